package signing

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/russellhaering/goxmldsig/etreeutils"
	"golang.org/x/net/html/charset"
)

// XAdES-BES enveloped signatures of UBL documents, placed where UBL 2.1 puts them:
// ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/sig:UBLDocumentSignatures/
// sac:SignatureInformation/ds:Signature. Exclusive canonicalisation, SHA-256 digests, RSA or ECDSA
// with SHA-256, the certificate in KeyInfo, and SignedProperties with the signing time and the signing
// certificate. Signing inserts the signature into the document's bytes and canonicalises with libxml2
// (c14n.go); verification reads the document into a tree and canonicalises with goxmldsig, so each
// checks the other in the tests.

const (
	nsDS    = "http://www.w3.org/2000/09/xmldsig#"
	nsXAdES = "http://uri.etsi.org/01903/v1.3.2#"
	nsExt   = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
	nsSig   = "urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2"
	nsSAC   = "urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2"
	nsSBC   = "urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2"
	nsCBC   = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"

	algExcC14N           = "http://www.w3.org/2001/10/xml-exc-c14n#"
	algExcC14NComments   = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"
	algC14N10            = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
	algC14N10Comments    = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"
	algC14N11            = "http://www.w3.org/2006/12/xml-c14n11"
	algC14N11Comments    = "http://www.w3.org/2006/12/xml-c14n11#WithComments"
	algEnveloped         = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
	algSHA1              = "http://www.w3.org/2000/09/xmldsig#sha1"
	algSHA256            = "http://www.w3.org/2001/04/xmlenc#sha256"
	algSHA384            = "http://www.w3.org/2001/04/xmldsig-more#sha384"
	algSHA512            = "http://www.w3.org/2001/04/xmlenc#sha512"
	algRSASHA1           = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
	algRSASHA256         = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
	algRSASHA384         = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"
	algRSASHA512         = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"
	algECDSASHA256       = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
	algECDSASHA384       = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384"
	algECDSASHA512       = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512"
	typeSignedProperties = "http://uri.etsi.org/01903#SignedProperties"

	ublSignatureExtension = "urn:oasis:names:specification:ubl:dsig:enveloped:xades"
)

var (
	digestMethods = map[string]crypto.Hash{algSHA1: crypto.SHA1, algSHA256: crypto.SHA256, algSHA384: crypto.SHA384, algSHA512: crypto.SHA512}
	sigMethods    = map[string]crypto.Hash{algRSASHA1: crypto.SHA1, algRSASHA256: crypto.SHA256, algRSASHA384: crypto.SHA384,
		algRSASHA512: crypto.SHA512, algECDSASHA256: crypto.SHA256, algECDSASHA384: crypto.SHA384, algECDSASHA512: crypto.SHA512}
)

// XMLOptions tune an XAdES signature.
type XMLOptions struct {
	// SigningCertificateV2 writes the EN 319 132-1 SigningCertificateV2 property instead of the XAdES
	// 1.3.2 SigningCertificate. The UBL 2.1 schemas carry XAdES 1.3.2, whose content model has no room
	// for it: a UBL document signed with it no longer passes the schema.
	SigningCertificateV2 bool
}

// SignXML adds an XAdES-BES enveloped signature to a UBL document, at time now. The document's own
// bytes are kept: the signature, with the extension structure around it, is inserted where UBL 2.1
// puts it, and nothing else changes.
func SignXML(doc []byte, seal *Seal, now time.Time, opts XMLOptions) ([]byte, error) {
	place, err := findSignaturePlace(doc)
	if err != nil {
		return nil, err
	}
	docDigest, err := excC14NDigest(place.with(doc, ""))
	if err != nil {
		return nil, fmt.Errorf("reading the XML: %w", err)
	}
	// SignedProperties and SignedInfo are canonicalised alone, with the declarations of the
	// namespaces their ancestors declare: exclusive canonicalisation gives them the same form there.
	id := randomID()
	props := signedProperties(seal, id, now, opts, "")
	propsDigest, err := excC14NDigest([]byte(signedProperties(seal, id, now, opts, ` xmlns:ds="`+nsDS+`" xmlns:xades="`+nsXAdES+`"`)))
	if err != nil {
		return nil, err
	}
	method := algRSASHA256
	if seal.isECDSA() {
		method = algECDSASHA256
	}
	info := signedInfo(id, method, docDigest[:], propsDigest[:], "")
	infoDigest, err := excC14NDigest([]byte(signedInfo(id, method, docDigest[:], propsDigest[:], ` xmlns:ds="`+nsDS+`"`)))
	if err != nil {
		return nil, err
	}
	value, err := seal.sign(infoDigest[:])
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if seal.isECDSA() {
		if value, err = ecdsaRaw(value, seal.Signer.Public().(*ecdsa.PublicKey)); err != nil {
			return nil, err
		}
	}
	var sig strings.Builder
	sig.WriteString(`<ds:Signature xmlns:ds="` + nsDS + `" Id="Signature-` + id + `">`)
	sig.WriteString(info)
	sig.WriteString(`<ds:SignatureValue Id="SignatureValue-` + id + `">` + base64.StdEncoding.EncodeToString(value) + `</ds:SignatureValue>`)
	sig.WriteString(`<ds:KeyInfo><ds:X509Data>`)
	for _, c := range seal.certificates() {
		sig.WriteString(`<ds:X509Certificate>` + base64.StdEncoding.EncodeToString(c.Raw) + `</ds:X509Certificate>`)
	}
	sig.WriteString(`</ds:X509Data></ds:KeyInfo><ds:Object><xades:QualifyingProperties xmlns:xades="` + nsXAdES + `" Target="#Signature-` + id + `">`)
	sig.WriteString(props)
	sig.WriteString(`</xades:QualifyingProperties></ds:Object></ds:Signature>`)
	return place.with(doc, sig.String()), nil
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// signedInfo is the ds:SignedInfo of a signature, with the namespace declarations decl: the whole
// document's reference and the signed properties'.
func signedInfo(id, method string, docDigest, propsDigest []byte, decl string) string {
	return `<ds:SignedInfo` + decl + `><ds:CanonicalizationMethod Algorithm="` + algExcC14N + `"></ds:CanonicalizationMethod>` +
		`<ds:SignatureMethod Algorithm="` + method + `"></ds:SignatureMethod>` +
		`<ds:Reference Id="Reference-` + id + `" URI=""><ds:Transforms><ds:Transform Algorithm="` + algEnveloped + `"></ds:Transform>` +
		`<ds:Transform Algorithm="` + algExcC14N + `"></ds:Transform></ds:Transforms>` +
		`<ds:DigestMethod Algorithm="` + algSHA256 + `"></ds:DigestMethod><ds:DigestValue>` + base64.StdEncoding.EncodeToString(docDigest) + `</ds:DigestValue></ds:Reference>` +
		`<ds:Reference Type="` + typeSignedProperties + `" URI="#SignedProperties-` + id + `"><ds:Transforms><ds:Transform Algorithm="` + algExcC14N + `"></ds:Transform></ds:Transforms>` +
		`<ds:DigestMethod Algorithm="` + algSHA256 + `"></ds:DigestMethod><ds:DigestValue>` + base64.StdEncoding.EncodeToString(propsDigest) + `</ds:DigestValue></ds:Reference>` +
		`</ds:SignedInfo>`
}

// signedProperties is the xades:SignedProperties of a signature, with the namespace declarations
// decl: the signing time and the signing certificate.
func signedProperties(seal *Seal, id string, now time.Time, opts XMLOptions, decl string) string {
	certDigest := sha256.Sum256(seal.Certificate.Raw)
	digest := `<xades:CertDigest><ds:DigestMethod Algorithm="` + algSHA256 + `"></ds:DigestMethod><ds:DigestValue>` +
		base64.StdEncoding.EncodeToString(certDigest[:]) + `</ds:DigestValue></xades:CertDigest>`
	var cert string
	if opts.SigningCertificateV2 {
		cert = `<xades:SigningCertificateV2><xades:Cert>` + digest
		if serial, err := issuerSerialV2(seal.Certificate); err == nil {
			cert += `<xades:IssuerSerialV2>` + base64.StdEncoding.EncodeToString(serial) + `</xades:IssuerSerialV2>`
		}
		cert += `</xades:Cert></xades:SigningCertificateV2>`
	} else {
		cert = `<xades:SigningCertificate><xades:Cert>` + digest + `<xades:IssuerSerial><ds:X509IssuerName>` +
			xmlText(seal.Certificate.Issuer.String()) + `</ds:X509IssuerName><ds:X509SerialNumber>` +
			seal.Certificate.SerialNumber.String() + `</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert></xades:SigningCertificate>`
	}
	return `<xades:SignedProperties` + decl + ` Id="SignedProperties-` + id + `"><xades:SignedSignatureProperties><xades:SigningTime>` +
		now.UTC().Format("2006-01-02T15:04:05Z") + `</xades:SigningTime>` + cert + `</xades:SignedSignatureProperties></xades:SignedProperties>`
}

// xmlText escapes character data as encoding/xml does, and writes every character past ASCII as a
// character reference, so that the text reads the same in a document of any ASCII-based encoding.
func xmlText(s string) string {
	var escaped, b strings.Builder
	xml.EscapeText(&escaped, []byte(s))
	for _, r := range escaped.String() {
		if r > 0x7e {
			fmt.Fprintf(&b, "&#x%X;", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// issuerSerialV2 is the DER IssuerSerial (RFC 5035) of a certificate.
func issuerSerialV2(c *x509.Certificate) ([]byte, error) {
	dirName := tagged(0xA4, c.RawIssuer)
	return asn1.Marshal(issuerSerial{Issuer: []asn1.RawValue{{FullBytes: dirName}}, Serial: c.SerialNumber})
}

// signaturePlace is where a document's signature goes: at byte offset at, inside the extension
// structure open … close.
type signaturePlace struct {
	at          int
	open, close string
}

// with is the document with a signature (or none) in its place.
func (p signaturePlace) with(doc []byte, sig string) []byte {
	out := make([]byte, 0, len(doc)+len(p.open)+len(sig)+len(p.close))
	out = append(out, doc[:p.at]...)
	out = append(out, p.open...)
	out = append(out, sig...)
	out = append(out, p.close...)
	return append(out, doc[p.at:]...)
}

// findSignaturePlace finds where UBL 2.1 puts a document signature: a new ext:UBLExtension at the end
// of the document's ext:UBLExtensions, or, without them, new ext:UBLExtensions before the document
// element's first child (where UBL wants them). Only the start of the document is read.
func findSignaturePlace(doc []byte) (signaturePlace, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = asciiCompatible
	depth, root, inExtensions := 0, "", false
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			return signaturePlace{}, fmt.Errorf("reading the XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				root = t.Name.Local
			case depth == 2 && t.Name.Space == nsExt && t.Name.Local == "UBLExtensions":
				inExtensions = true
			case depth == 2:
				return newExtensions(before, root, "\n  "), nil
			}
		case xml.EndElement:
			depth--
			switch {
			case depth == 1 && inExtensions:
				open, close := extension(root, ` xmlns:ext="`+nsExt+`"`)
				return signaturePlace{at: before, open: open, close: close}, nil
			case depth == 0:
				return newExtensions(before, root, ""), nil
			}
		}
	}
}

// newExtensions places the signature in new ext:UBLExtensions at offset at, followed by indent.
func newExtensions(at int, root, indent string) signaturePlace {
	open, close := extension(root, "")
	return signaturePlace{at: at, open: `<ext:UBLExtensions xmlns:ext="` + nsExt + `">` + open, close: close + `</ext:UBLExtensions>` + indent}
}

// extension is the ext:UBLExtension that holds a document signature, around the signature.
func extension(root, declaration string) (open, close string) {
	open = `<ext:UBLExtension` + declaration + `><ext:ExtensionURI>` + ublSignatureExtension + `</ext:ExtensionURI><ext:ExtensionContent>` +
		`<sig:UBLDocumentSignatures xmlns:sig="` + nsSig + `"><sac:SignatureInformation xmlns:sac="` + nsSAC + `">` +
		`<cbc:ID xmlns:cbc="` + nsCBC + `">urn:oasis:names:specification:ubl:signature:1</cbc:ID>` +
		`<sbc:ReferencedSignatureID xmlns:sbc="` + nsSBC + `">urn:oasis:names:specification:ubl:signature:` + root + `</sbc:ReferencedSignatureID>`
	close = `</sac:SignatureInformation></sig:UBLDocumentSignatures></ext:ExtensionContent></ext:UBLExtension>`
	return open, close
}

// asciiCompatible lets the scan of a document's start read the encodings that write the ASCII
// characters as ASCII (its names and markup are ASCII); libxml2 then reads the whole document.
func asciiCompatible(label string, input io.Reader) (io.Reader, error) {
	l := strings.ToLower(label)
	if strings.HasPrefix(l, "iso-8859-") || strings.HasPrefix(l, "windows-125") || l == "us-ascii" || l == "ascii" || l == "latin1" {
		return input, nil
	}
	return nil, fmt.Errorf("the encoding %q is not read", label)
}

// ecdsaRaw turns an ASN.1 ECDSA signature into the r‖s form XMLDSig uses.
func ecdsaRaw(der []byte, pub *ecdsa.PublicKey) ([]byte, error) {
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &rs); err != nil {
		return nil, err
	}
	size := (pub.Curve.Params().BitSize + 7) / 8
	out := make([]byte, 2*size)
	rs.R.FillBytes(out[:size])
	rs.S.FillBytes(out[size:])
	return out, nil
}

// transform is one ds:Transform: its algorithm and, for exclusive canonicalisation, the inclusive
// namespace prefixes.
type transform struct {
	algorithm, prefixes string
}

// digestDocument digests the whole document as a reference with URI "" does: the transforms apply to
// a copy of the document element, the enveloped-signature transform removing sig from it.
func digestDocument(root, sig *etree.Element, h crypto.Hash, transforms []transform) ([]byte, error) {
	path := pathTo(root, sig)
	c14n := algC14N10 // a node set without a canonicalisation transform is written as inclusive C14N
	prefixes := ""
	target := root
	copied := false
	for _, t := range transforms {
		switch t.algorithm {
		case algEnveloped:
			if !copied {
				target, copied = root.Copy(), true
			}
			s := follow(target, path)
			if s == nil || s.Parent() == nil {
				return nil, invalid("the enveloped signature cannot be found")
			}
			s.Parent().RemoveChild(s)
		case algExcC14N, algExcC14NComments, algC14N10, algC14N10Comments, algC14N11, algC14N11Comments:
			c14n, prefixes = t.algorithm, t.prefixes
		default:
			return nil, invalid("unsupported transform %s", t.algorithm)
		}
	}
	b, err := canonicalize(target, c14n, prefixes)
	if err != nil {
		return nil, err
	}
	before, after := outsideDocumentElement(root)
	d := newHash(h)
	d.Write(before)
	d.Write(b)
	d.Write(after)
	return d.Sum(nil), nil
}

// outsideDocumentElement is the canonical form of the processing instructions before and after the
// document element, which a reference to the whole document covers too (its comments it does not).
func outsideDocumentElement(root *etree.Element) (before, after []byte) {
	doc := root.Parent()
	if doc == nil {
		return nil, nil
	}
	seenRoot := false
	for _, t := range doc.Child {
		switch t := t.(type) {
		case *etree.Element:
			seenRoot = true
		case *etree.ProcInst:
			if t.Target == "xml" { // the XML declaration, not a processing instruction
				continue
			}
			pi := "<?" + t.Target
			if t.Inst != "" {
				pi += " " + t.Inst
			}
			pi += "?>"
			if seenRoot {
				after = append(after, "\n"+pi...)
			} else {
				before = append(before, pi+"\n"...)
			}
		}
	}
	return before, after
}

// pathTo is the child indexes from root down to e.
func pathTo(root, e *etree.Element) []int {
	var path []int
	for p := e.Parent(); p != nil && e != root; e, p = p, p.Parent() {
		for i, t := range p.Child {
			if t == etree.Token(e) {
				path = append([]int{i}, path...)
				break
			}
		}
	}
	return path
}

func follow(e *etree.Element, path []int) *etree.Element {
	for _, i := range path {
		if i >= len(e.Child) {
			return nil
		}
		c, ok := e.Child[i].(*etree.Element)
		if !ok {
			return nil
		}
		e = c
	}
	return e
}

func digestElement(e *etree.Element, h crypto.Hash, c14n, prefixes string) ([]byte, error) {
	b, err := canonicalize(e, c14n, prefixes)
	if err != nil {
		return nil, err
	}
	d := newHash(h)
	d.Write(b)
	return d.Sum(nil), nil
}

// canonicalize writes an element (with the namespaces in scope where it sits) in canonical form.
func canonicalize(e *etree.Element, algorithm, prefixes string) ([]byte, error) {
	var c dsig.Canonicalizer
	exclusive := true
	switch algorithm {
	case algExcC14N:
		c = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(prefixes)
	case algExcC14NComments:
		c = dsig.MakeC14N10ExclusiveWithCommentsCanonicalizerWithPrefixList(prefixes)
	case algC14N10:
		c, exclusive = dsig.MakeC14N10RecCanonicalizer(), false
	case algC14N10Comments:
		c, exclusive = dsig.MakeC14N10WithCommentsCanonicalizer(), false
	case algC14N11:
		c, exclusive = dsig.MakeC14N11Canonicalizer(), false
	case algC14N11Comments:
		c, exclusive = dsig.MakeC14N11WithCommentsCanonicalizer(), false
	default:
		return nil, invalid("unsupported canonicalisation %s", algorithm)
	}
	if !exclusive {
		return c.Canonicalize(e)
	}
	ctx, err := etreeutils.NSBuildParentContext(e)
	if err != nil {
		return nil, err
	}
	detached, err := etreeutils.NSDetatch(ctx, e)
	if err != nil {
		return nil, err
	}
	return c.Canonicalize(detached)
}

// VerifyXML checks every XML signature in a document: each reference's digest, the signature over
// SignedInfo with the public key of the certificate in KeyInfo, that one reference covers the whole
// document, and, for XAdES, that the signed signing-certificate digest is that certificate's.
// ErrNoSignature when there is none.
func VerifyXML(doc []byte) ([]SignatureInfo, error) {
	d := etree.NewDocument()
	d.ReadSettings.CharsetReader = charset.NewReaderLabel // documents in ISO-8859-1 and the like
	if err := d.ReadFromBytes(doc); err != nil {
		return nil, invalid("the XML cannot be read: %v", err)
	}
	root := d.Root()
	if root == nil {
		return nil, invalid("the XML has no document element")
	}
	var sigs []*etree.Element
	var find func(e *etree.Element)
	find = func(e *etree.Element) {
		for _, c := range e.ChildElements() {
			if c.Tag == "Signature" && c.NamespaceURI() == nsDS {
				sigs = append(sigs, c)
				continue
			}
			find(c)
		}
	}
	find(root)
	if len(sigs) == 0 {
		return nil, ErrNoSignature
	}
	var out []SignatureInfo
	for i, sig := range sigs {
		info, err := verifySignatureElement(root, sig)
		if err != nil {
			return nil, fmt.Errorf("XML signature %d: %w", i+1, err)
		}
		out = append(out, info)
	}
	return out, nil
}

func child(e *etree.Element, ns, tag string) *etree.Element {
	if e == nil {
		return nil
	}
	for _, c := range e.ChildElements() {
		if c.Tag == tag && c.NamespaceURI() == ns {
			return c
		}
	}
	return nil
}

func children(e *etree.Element, ns, tag string) []*etree.Element {
	var out []*etree.Element
	if e == nil {
		return nil
	}
	for _, c := range e.ChildElements() {
		if c.Tag == tag && c.NamespaceURI() == ns {
			out = append(out, c)
		}
	}
	return out
}

func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
}

func verifySignatureElement(root, sig *etree.Element) (SignatureInfo, error) {
	signedInfo := child(sig, nsDS, "SignedInfo")
	if signedInfo == nil {
		return SignatureInfo{}, invalid("no SignedInfo")
	}
	cert, err := keyInfoCertificate(sig)
	if err != nil {
		return SignatureInfo{}, err
	}
	info := SignatureInfo{Kind: "XMLDSig", Signer: DisplayName(cert.Subject), Issuer: DisplayName(cert.Issuer), Serial: cert.SerialNumber.String()}
	coversDocument := false
	for _, ref := range children(signedInfo, nsDS, "Reference") {
		uri := ref.SelectAttrValue("URI", "")
		var transforms []transform
		for _, t := range children(child(ref, nsDS, "Transforms"), nsDS, "Transform") {
			tr := transform{algorithm: t.SelectAttrValue("Algorithm", "")}
			if inc := t.FindElement("./*[local-name()='InclusiveNamespaces']"); inc != nil {
				tr.prefixes = inc.SelectAttrValue("PrefixList", "")
			}
			transforms = append(transforms, tr)
		}
		h, ok := digestMethods[child(ref, nsDS, "DigestMethod").SelectAttrValue("Algorithm", "")]
		if !ok {
			return info, invalid("unsupported digest method")
		}
		var digest []byte
		switch {
		case uri == "":
			digest, err = digestDocument(root, sig, h, transforms)
			coversDocument = true
		case strings.HasPrefix(uri, "#"):
			target := elementByID(root, uri[1:])
			if target == nil {
				return info, invalid("reference %s points nowhere", uri)
			}
			if target == root {
				coversDocument = true
				digest, err = digestDocument(root, sig, h, transforms)
			} else {
				c14n, prefixes := algC14N10, ""
				for _, t := range transforms {
					c14n, prefixes = t.algorithm, t.prefixes
				}
				digest, err = digestElement(target, h, c14n, prefixes)
			}
			if ref.SelectAttrValue("Type", "") == typeSignedProperties {
				info.Kind = "XAdES-BES"
				if err == nil {
					err = checkSigningCertificate(target, cert)
				}
			}
		default:
			return info, invalid("reference %q is outside the document", uri)
		}
		if err != nil {
			return info, err
		}
		want, derr := decodeBase64(child(ref, nsDS, "DigestValue").Text())
		if derr != nil || !bytes.Equal(want, digest) {
			return info, invalid("reference %q: the signed content changed (digest mismatch)", uri)
		}
	}
	if !coversDocument {
		return info, invalid("no reference covers the whole document")
	}
	c14n := child(signedInfo, nsDS, "CanonicalizationMethod")
	prefixes := ""
	if inc := c14n.FindElement("./*[local-name()='InclusiveNamespaces']"); inc != nil {
		prefixes = inc.SelectAttrValue("PrefixList", "")
	}
	canonical, err := canonicalize(signedInfo, c14n.SelectAttrValue("Algorithm", ""), prefixes)
	if err != nil {
		return info, err
	}
	method := child(signedInfo, nsDS, "SignatureMethod").SelectAttrValue("Algorithm", "")
	h, ok := sigMethods[method]
	if !ok {
		return info, invalid("unsupported signature method %s", method)
	}
	d := newHash(h)
	d.Write(canonical)
	value, err := decodeBase64(child(sig, nsDS, "SignatureValue").Text())
	if err != nil {
		return info, invalid("malformed SignatureValue")
	}
	if pub, isEC := cert.PublicKey.(*ecdsa.PublicKey); isEC {
		size := (pub.Curve.Params().BitSize + 7) / 8
		if len(value) != 2*size {
			return info, invalid("malformed ECDSA SignatureValue")
		}
		value, _ = asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(value[:size]), new(big.Int).SetBytes(value[size:])})
	}
	if err := verifySignature(cert.PublicKey, emptyAlgorithm, h, d.Sum(nil), value); err != nil {
		return info, err
	}
	info.Covered = "the whole document"
	return info, nil
}

// keyInfoCertificate is the signer's certificate: the one in KeyInfo whose key is not that of another
// certificate's issuer (with one certificate, that one).
func keyInfoCertificate(sig *etree.Element) (*x509.Certificate, error) {
	var certs []*x509.Certificate
	for _, x := range children(child(child(sig, nsDS, "KeyInfo"), nsDS, "X509Data"), nsDS, "X509Certificate") {
		raw, err := decodeBase64(x.Text())
		if err != nil {
			return nil, invalid("malformed X509Certificate")
		}
		c, err := x509.ParseCertificate(raw)
		if err != nil {
			return nil, invalid("malformed X509Certificate: %v", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, invalid("no certificate in KeyInfo")
	}
	for _, c := range certs {
		leaf := true
		for _, other := range certs {
			if other != c && bytes.Equal(other.RawIssuer, c.RawSubject) {
				leaf = false
			}
		}
		if leaf {
			return c, nil
		}
	}
	return certs[0], nil
}

// checkSigningCertificate compares the signed certificate digest of a SignedProperties with the
// certificate whose key made the signature.
func checkSigningCertificate(props *etree.Element, cert *x509.Certificate) error {
	digests := props.FindElements(".//*[local-name()='CertDigest']")
	if len(digests) == 0 {
		return nil
	}
	for _, cd := range digests {
		h, ok := digestMethods[child(cd, nsDS, "DigestMethod").SelectAttrValue("Algorithm", "")]
		want, err := decodeBase64(child(cd, nsDS, "DigestValue").Text())
		if !ok || err != nil {
			continue
		}
		d := newHash(h)
		d.Write(cert.Raw)
		if bytes.Equal(d.Sum(nil), want) {
			return nil
		}
	}
	return invalid("the signing certificate in SignedProperties is not the one in KeyInfo")
}

// elementByID finds the element whose Id (or ID, or id) attribute has the value.
func elementByID(e *etree.Element, id string) *etree.Element {
	for _, key := range []string{"Id", "ID", "id"} {
		if e.SelectAttrValue(key, "\x00") == id {
			return e
		}
	}
	for _, c := range e.ChildElements() {
		if found := elementByID(c, id); found != nil {
			return found
		}
	}
	return nil
}
