package ubltest

import (
	"bytes"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// Variants makes n variants of doc, each by 1 to 3 small edits (an element removed, repeated or swapped
// with its neighbour, a value or an attribute changed), reproducibly from seed, so that tests can compare
// validators on documents no one has written by hand. The edits keep a document well-formed; most
// variants stay close to a real invoice, which is where rules disagree if they disagree at all. A
// document that does not parse gives none.
func Variants(doc []byte, n int, seed uint64) [][]byte {
	elems := scan(doc)
	if len(elems) < 2 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(doc))))
	var out [][]byte
	for range n {
		v := doc
		for range 1 + rng.IntN(3) {
			es := scan(v)
			if len(es) < 2 {
				break
			}
			v = edit(v, es, rng)
		}
		if rng.IntN(20) == 0 {
			v = nearMissNamespace(v, rng)
		}
		out = append(out, v)
	}
	return out
}

// element is one element of a document, by byte offsets.
type element struct {
	start, end         int // the whole element, from "<" to after its end tag
	tagEnd             int // after the start tag's ">"
	contentEnd         int // where its end tag begins (== tagEnd for an empty element written <a/>)
	parent             int // index of the parent element, -1 for the document element
	leaf               bool
	hasAttrs, selfShut bool
}

// values are the replacements a value edit draws from besides the document's own values: codes the
// rules know, near misses of them, and malformed values.
var values = []string{
	"", " ", "0", "1", "-1", "0.00", "-0.00", "-0", "100", "100.00", "-100.00", "23", "13", "6", "12.5", "1e3",
	"NaN", "INF", "abc", ".5", "5.", "1000000000000000000000000000000", "0.000000001",
	"S", "E", "Z", "AA", "AE", "K", "G", "O", "L", "M", "ISE", "RED", "INT", "NOR", "NS", "OUT",
	"EUR", "USD", "GBP", "XXX", "eur", "PT", "ES", "SE", "GB", "XK", "pt",
	"380", "381", "383", "384", "386", "389", "751", "325", "326", "58", "30", "42", "49", "59", "ZZZ",
	"0088", "0160", "0191", "0208", "9920", "9946", "VAT", "TAX", "NIF", "FC", "GC",
	// identifier schemes with checks of their own, and identifiers that pass or nearly pass them
	"0007", "0151", "0192", "0201", "0210", "0211", "9907", "0106", "0190", "9944", "0217",
	"7300010000001", "7300010000002", "5560360793", "5560360794", "974760673", "974760674", "0123456749",
	"51824753556", "51824753557", "RSSMRA85T10A562S", "IT12345678903", "12345678903", "AAAAAA", "12345678",
	"NL123456789B12",
	"C62", "H87", "KGM", "EA", "XYZ",
	"2021-01-01", "2021-12-31", "2019-02-29", "2021-13-45", "20210101", "2021-01-01T10:00:00",
	"2021-01-01Z", "2021-01-01+01:00", "2021-12-31-14:00", "2021-01-01+14:01", "-2021-01-01", "2021-1-1", "+100.00", "00100.00",
	"PT500000000", "PT123456789", "500000000", "123456789", "999999990", "ES12345678", "SE556677889901",
	"M01", "M07", "M16", "M99", "#M01#", "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#M01#",
	"true", "false", "application/pdf", "image/png", "text/plain",
	// CIUS-PT's tagged notes and properties, well and badly formed
	"#SOURCECURRENCYCODE#USD#", "#CALCULATIONRATE#1.12345#", "#CALCULATIONRATE#1.1#", "#DESCRIPTION@INVOICEPERIOD#Março#",
	"#NUMBER@ATCERTIFIEDPROGRAM#1234#", "#HASHCODE@ATCERTIFIEDPROGRAM#abcd#", "#DESCRIPTION@ATCERTIFIEDPROGRAM#x#",
	"#ENTITY@ATMPAYMENT-001#12345#", "#REFERENCE@ATMPAYMENT-001#123456789#", "#AMOUNT@ATMPAYMENT-001#10.00#",
	"#ENTITY@ATMPAYMENT-1#12345#", "#WITHHOLDINGTAXTYPE@WITHHOLDINGTAX-001#IRS#",
	"#WITHHOLDINGTAXDESCRIPTION@WITHHOLDINGTAX-001#x#", "#WITHHOLDINGTAXAMOUNT@WITHHOLDINGTAX-001#1.00#",
	"#REFERENCE@DUCPAYMENT#123#", "#ID@INVOICEDOCUMENTREFERENCE#FT 1/1#", "#LINEID@COMMITMENTLINEREFERENCE#1#",
	"#TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY#", "TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY", "#ADDITIONALPROPERTY#",
	"urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.2", "urn:cen.eu:en16931:2017",
}

// attributes are the names an edit may add to an element.
var attributes = []string{"currencyID", "schemeID", "unitCode", "listID", "mimeCode", "filename", "languageID", "schemeAgencyID"}

var decimalValue = regexp.MustCompile(`^\s*[+-]?[0-9]+(\.[0-9]+)?\s*$`)
var attrValue = regexp.MustCompile(`(\s[A-Za-z_][\w.:-]*\s*=\s*)("[^"]*"|'[^']*')`)

var namespaceDeclaration = regexp.MustCompile(`\sxmlns(?::[\w.-]+)?="([^"]*)"`)

// nearMissNamespace changes the namespace one declaration binds to a near miss: another UBL namespace,
// or the same one with a blank, a version, capitals, a non-ASCII character or a bad escape (any string
// is a namespace name to the official rules' parser; one that is not a URI is an error to xmllint).
func nearMissNamespace(doc []byte, rng *rand.Rand) []byte {
	decls := namespaceDeclaration.FindAllSubmatchIndex(doc, -1)
	if len(decls) == 0 {
		return doc
	}
	d := decls[rng.IntN(len(decls))]
	uri := string(doc[d[2]:d[3]])
	misses := []string{uri + " ", uri + ".1", strings.ToUpper(uri), uri + "ção", "%zz" + uri,
		strings.NewReplacer("Basic", "Aggregate", "Aggregate", "Basic").Replace(uri),
		strings.NewReplacer("Invoice-2", "CreditNote-2", "CreditNote-2", "Invoice-2", "Order-2", "OrderResponse-2").Replace(uri)}
	return splice(doc, d[2], d[3], []byte(misses[rng.IntN(len(misses))]))
}

// edit makes one edit of doc, on an element other than the document element: it is removed (20 in 100),
// repeated (6), given a copy of another element as its last child (4), swapped with its next sibling
// (8), renamed as another element or one of no schema (6), given an attribute (6), has an attribute
// changed or removed (10), or has its value changed or emptied.
func edit(doc []byte, es []element, rng *rand.Rand) []byte {
	k := 1 + rng.IntN(len(es)-1)
	e := es[k]
	switch r := rng.IntN(100); {
	case r < 20: // remove
		return splice(doc, e.start, e.end, nil)
	case r < 26: // repeat
		return splice(doc, e.end, e.end, doc[e.start:e.end])
	case r < 30 && !e.selfShut: // a copy of another element put inside this one, as its last child
		from := es[1+rng.IntN(len(es)-1)]
		return splice(doc, e.contentEnd, e.contentEnd, doc[from.start:from.end])
	case r < 38: // swap with the next sibling
		for j := k + 1; j < len(es); j++ {
			if es[j].parent == e.parent {
				next := es[j]
				swapped := append(append(append([]byte{}, doc[next.start:next.end]...), doc[e.end:next.start]...), doc[e.start:e.end]...)
				return splice(doc, e.start, next.end, swapped)
			}
		}
		return doc
	case r < 44: // renamed as another element of the document, or as one of no schema
		other := es[1+rng.IntN(len(es)-1)]
		name := tagName(doc, other.start)
		if rng.IntN(4) == 0 {
			invented := []string{"Foo", "InvoiceLineX", "ID2", "Note"}[rng.IntN(4)]
			if prefix, _, ok := bytes.Cut(name, []byte(":")); ok {
				invented = string(prefix) + ":" + invented
			}
			name = []byte(invented)
		}
		if e.selfShut {
			return splice(doc, e.start+1, e.start+1+len(tagName(doc, e.start)), name)
		}
		doc = splice(doc, e.contentEnd+2, e.contentEnd+2+len(tagName(doc, e.contentEnd+1)), name) // "</" first: it is after
		return splice(doc, e.start+1, e.start+1+len(tagName(doc, e.start)), name)
	case r < 50: // an attribute added
		name := attributes[rng.IntN(len(attributes))]
		tag := tagName(doc, e.start)
		return splice(doc, e.start+1+len(tag), e.start+1+len(tag), []byte(" "+name+`="`+escape(pick(rng, doc, es))+`"`))
	case r < 60 && e.hasAttrs: // an attribute's value changed or the attribute removed
		tag := doc[e.start:e.tagEnd]
		attrs := attrValue.FindAllSubmatchIndex(tag, -1)
		a := attrs[rng.IntN(len(attrs))]
		if name := string(tag[a[2]:a[3]]); strings.Contains(name, "xmlns") {
			return doc
		}
		if rng.IntN(4) == 0 {
			return splice(doc, e.start+a[0], e.start+a[1], nil)
		}
		return splice(doc, e.start+a[4], e.start+a[5], []byte(`"`+escape(pick(rng, doc, es))+`"`))
	case e.leaf && !e.selfShut: // a value changed
		text := string(doc[e.tagEnd:e.contentEnd])
		return splice(doc, e.tagEnd, e.contentEnd, []byte(newValue(text, doc, es, rng)))
	default: // an element's content emptied, or an empty element given a value
		if e.selfShut {
			return doc
		}
		return splice(doc, e.tagEnd, e.contentEnd, nil)
	}
}

// newValue is a replacement for a value: the number nudged, another value of the document, or one of
// values.
func newValue(text string, doc []byte, es []element, rng *rand.Rand) string {
	if decimalValue.MatchString(text) && rng.IntN(2) == 0 {
		v, _ := strconv.ParseFloat(strings.TrimSpace(text), 64)
		t := strings.TrimSpace(text)
		switch rng.IntN(12) {
		case 7:
			return "+" + t
		case 8:
			return "00" + t
		case 9:
			return t + "E0"
		case 10:
			return "<![CDATA[" + t + "]]>"
		case 11:
			return "&#160;" + t
		case 0:
			v += 1
		case 1:
			v -= 0.01
		case 2:
			v = -v
		case 3:
			v *= 10
		case 4:
			return t + "1" // one more digit
		case 5:
			return " " + text + " "
		default:
			v += 100
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return escape(pick(rng, doc, es))
}

// pick is another leaf's value of the document (as written, escapes and all) or one of values.
func pick(rng *rand.Rand, doc []byte, es []element) string {
	if rng.IntN(2) == 0 {
		for range 8 {
			e := es[rng.IntN(len(es))]
			if e.leaf && !e.selfShut {
				return unescape(string(doc[e.tagEnd:e.contentEnd]))
			}
		}
	}
	return values[rng.IntN(len(values))]
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func unescape(s string) string {
	var b strings.Builder
	d := xml.NewDecoder(strings.NewReader("<a>" + s + "</a>"))
	for {
		tok, err := d.Token()
		if err != nil {
			return b.String()
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
}

// tagName is the qualified name of the tag whose "<" (or "</"'s "/") is at i.
func tagName(doc []byte, i int) []byte {
	j := i + 1
	for j < len(doc) && !strings.ContainsRune(" \t\r\n/>", rune(doc[j])) {
		j++
	}
	return doc[i+1 : j]
}

func splice(doc []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(with))
	return append(append(append(out, doc[:from]...), with...), doc[to:]...)
}

// scan lists a document's elements in document order, or nil if it does not parse.
func scan(doc []byte) []element {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // offsets are bytes
	var es []element
	var open []int
	for {
		before := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil
		}
		after := int(d.InputOffset())
		switch t := tok.(type) {
		case xml.StartElement:
			parent := -1
			if len(open) > 0 {
				parent = open[len(open)-1]
				es[parent].leaf = false
			}
			selfShut := bytes.HasSuffix(doc[before:after], []byte("/>"))
			es = append(es, element{start: before, tagEnd: after, parent: parent, leaf: true,
				hasAttrs: hasPlainAttr(t.Attr), selfShut: selfShut})
			open = append(open, len(es)-1)
		case xml.EndElement:
			e := &es[open[len(open)-1]]
			open = open[:len(open)-1]
			e.end = after
			if e.selfShut {
				e.contentEnd = e.tagEnd
			} else {
				e.contentEnd = before
			}
		}
	}
	if len(open) != 0 {
		return nil
	}
	return es
}

func hasPlainAttr(attrs []xml.Attr) bool {
	for _, a := range attrs {
		if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
			return true
		}
	}
	return false
}
