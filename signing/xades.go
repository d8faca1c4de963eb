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
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/russellhaering/goxmldsig/etreeutils"
)

// XAdES-BES enveloped signatures of UBL documents, placed where UBL 2.1 puts them:
// ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/sig:UBLDocumentSignatures/
// sac:SignatureInformation/ds:Signature. Exclusive canonicalisation (goxmldsig's), SHA-256 digests,
// RSA or ECDSA with SHA-256, the certificate in KeyInfo, and SignedProperties with the signing time and
// the signing certificate.

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

// SignXML adds an XAdES-BES enveloped signature to a UBL document, at time now.
func SignXML(doc []byte, seal *Seal, now time.Time, opts XMLOptions) ([]byte, error) {
	d := etree.NewDocument()
	if err := d.ReadFromBytes(doc); err != nil {
		return nil, fmt.Errorf("reading the XML: %w", err)
	}
	root := d.Root()
	if root == nil {
		return nil, errors.New("the XML has no document element")
	}
	id := randomID()
	sig := signatureSkeleton(seal, id, now, opts)
	placeInUBLExtensions(root, sig)

	docDigest, err := digestDocument(root, sig, crypto.SHA256, []transform{{algorithm: algEnveloped}, {algorithm: algExcC14N}})
	if err != nil {
		return nil, err
	}
	props := sig.FindElement("./ds:Object/xades:QualifyingProperties/xades:SignedProperties")
	propsDigest, err := digestElement(props, crypto.SHA256, algExcC14N, "")
	if err != nil {
		return nil, err
	}
	refs := sig.FindElements("./ds:SignedInfo/ds:Reference")
	refs[0].FindElement("./ds:DigestValue").SetText(base64.StdEncoding.EncodeToString(docDigest))
	refs[1].FindElement("./ds:DigestValue").SetText(base64.StdEncoding.EncodeToString(propsDigest))

	signedInfo, err := canonicalize(sig.FindElement("./ds:SignedInfo"), algExcC14N, "")
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(signedInfo)
	value, err := seal.sign(h[:])
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if seal.isECDSA() {
		if value, err = ecdsaRaw(value, seal.Signer.Public().(*ecdsa.PublicKey)); err != nil {
			return nil, err
		}
	}
	sig.FindElement("./ds:SignatureValue").SetText(base64.StdEncoding.EncodeToString(value))
	d.WriteSettings.CanonicalEndTags = false
	return d.WriteToBytes()
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// signatureSkeleton is the ds:Signature with everything but the digests and the signature value.
func signatureSkeleton(seal *Seal, id string, now time.Time, opts XMLOptions) *etree.Element {
	sig := etree.NewElement("ds:Signature")
	sig.CreateAttr("xmlns:ds", nsDS)
	sig.CreateAttr("Id", "Signature-"+id)
	si := sig.CreateElement("ds:SignedInfo")
	si.CreateElement("ds:CanonicalizationMethod").CreateAttr("Algorithm", algExcC14N)
	method := algRSASHA256
	if seal.isECDSA() {
		method = algECDSASHA256
	}
	si.CreateElement("ds:SignatureMethod").CreateAttr("Algorithm", method)
	reference := func(uri, typ string, transforms ...string) {
		r := si.CreateElement("ds:Reference")
		if typ == "" {
			r.CreateAttr("Id", "Reference-"+id)
		} else {
			r.CreateAttr("Type", typ)
		}
		r.CreateAttr("URI", uri)
		ts := r.CreateElement("ds:Transforms")
		for _, t := range transforms {
			ts.CreateElement("ds:Transform").CreateAttr("Algorithm", t)
		}
		r.CreateElement("ds:DigestMethod").CreateAttr("Algorithm", algSHA256)
		r.CreateElement("ds:DigestValue")
	}
	reference("", "", algEnveloped, algExcC14N)
	reference("#SignedProperties-"+id, typeSignedProperties, algExcC14N)
	sig.CreateElement("ds:SignatureValue").CreateAttr("Id", "SignatureValue-"+id)
	x509Data := sig.CreateElement("ds:KeyInfo").CreateElement("ds:X509Data")
	for _, c := range seal.certificates() {
		x509Data.CreateElement("ds:X509Certificate").SetText(base64.StdEncoding.EncodeToString(c.Raw))
	}
	qp := sig.CreateElement("ds:Object").CreateElement("xades:QualifyingProperties")
	qp.CreateAttr("xmlns:xades", nsXAdES)
	qp.CreateAttr("Target", "#Signature-"+id)
	sp := qp.CreateElement("xades:SignedProperties")
	sp.CreateAttr("Id", "SignedProperties-"+id)
	ssp := sp.CreateElement("xades:SignedSignatureProperties")
	ssp.CreateElement("xades:SigningTime").SetText(now.UTC().Format("2006-01-02T15:04:05Z"))
	certDigest := sha256.Sum256(seal.Certificate.Raw)
	if opts.SigningCertificateV2 {
		cert := ssp.CreateElement("xades:SigningCertificateV2").CreateElement("xades:Cert")
		digest := cert.CreateElement("xades:CertDigest")
		digest.CreateElement("ds:DigestMethod").CreateAttr("Algorithm", algSHA256)
		digest.CreateElement("ds:DigestValue").SetText(base64.StdEncoding.EncodeToString(certDigest[:]))
		if serial, err := issuerSerialV2(seal.Certificate); err == nil {
			cert.CreateElement("xades:IssuerSerialV2").SetText(base64.StdEncoding.EncodeToString(serial))
		}
	} else {
		cert := ssp.CreateElement("xades:SigningCertificate").CreateElement("xades:Cert")
		digest := cert.CreateElement("xades:CertDigest")
		digest.CreateElement("ds:DigestMethod").CreateAttr("Algorithm", algSHA256)
		digest.CreateElement("ds:DigestValue").SetText(base64.StdEncoding.EncodeToString(certDigest[:]))
		serial := cert.CreateElement("xades:IssuerSerial")
		serial.CreateElement("ds:X509IssuerName").SetText(seal.Certificate.Issuer.String())
		serial.CreateElement("ds:X509SerialNumber").SetText(seal.Certificate.SerialNumber.String())
	}
	return sig
}

// issuerSerialV2 is the DER IssuerSerial (RFC 5035) of a certificate.
func issuerSerialV2(c *x509.Certificate) ([]byte, error) {
	dirName := tagged(0xA4, c.RawIssuer)
	return asn1.Marshal(issuerSerial{Issuer: []asn1.RawValue{{FullBytes: dirName}}, Serial: c.SerialNumber})
}

// placeInUBLExtensions puts the signature where UBL 2.1 puts document signatures, adding the extension
// structure (ext:UBLExtensions first in the document element) as needed.
func placeInUBLExtensions(root, sig *etree.Element) {
	var exts *etree.Element
	for _, c := range root.ChildElements() {
		if c.Tag == "UBLExtensions" && c.NamespaceURI() == nsExt {
			exts = c
			break
		}
	}
	if exts == nil {
		exts = etree.NewElement("ext:UBLExtensions")
		exts.CreateAttr("xmlns:ext", nsExt)
		at := firstElementIndex(root)
		root.InsertChildAt(at, exts)
		// Keep the indentation: the extensions are followed by what preceded the first element.
		root.InsertChildAt(at+1, etree.NewText("\n  "))
	}
	ext := exts.CreateElement(exts.Space + ":UBLExtension")
	ext.CreateElement(exts.Space + ":ExtensionURI").SetText(ublSignatureExtension)
	content := ext.CreateElement(exts.Space + ":ExtensionContent")
	docSigs := newElement(content, nsSig, "sig", "UBLDocumentSignatures")
	info := newElement(docSigs, nsSAC, "sac", "SignatureInformation")
	newElement(info, nsCBC, "cbc", "ID").SetText("urn:oasis:names:specification:ubl:signature:1")
	newElement(info, nsSBC, "sbc", "ReferencedSignatureID").SetText("urn:oasis:names:specification:ubl:signature:" + root.Tag)
	info.AddChild(sig)
}

// newElement adds a child in a namespace: with the prefix an ancestor declared for it, or with its own
// declaration. (Declaring each namespace once, where it is first used, keeps canonicalisation simple for
// every verifier.)
func newElement(parent *etree.Element, ns, prefix, tag string) *etree.Element {
	for e := parent; e != nil; e = e.Parent() {
		for _, a := range e.Attr {
			if a.Space == "xmlns" && a.Value == ns {
				return parent.CreateElement(a.Key + ":" + tag)
			}
		}
	}
	el := parent.CreateElement(prefix + ":" + tag)
	el.CreateAttr("xmlns:"+prefix, ns)
	return el
}

func firstElementIndex(e *etree.Element) int {
	for i, t := range e.Child {
		if _, ok := t.(*etree.Element); ok {
			return i
		}
	}
	return len(e.Child)
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
	return digestElement(target, h, c14n, prefixes)
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
