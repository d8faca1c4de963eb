package xmltree

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
)

// attributes writes n attributes (or, with declarations, n namespace declarations), each with its own
// name, as they would follow an element name.
func attributes(n int, declarations bool) string {
	var b strings.Builder
	for i := range n {
		if declarations {
			fmt.Fprintf(&b, ` xmlns:p%d="urn:p:%d"`, i, i)
		} else {
			fmt.Fprintf(&b, ` a%d="%d"`, i, i)
		}
	}
	return b.String()
}

func parseErrorKind(t *testing.T, doc []byte) (ErrorKind, int) {
	t.Helper()
	_, err := Parse(doc, DefaultLimits)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("parsed, or not a parse error: %v", err)
	}
	return pe.Kind, pe.Line
}

// An element with more attributes or namespace declarations than accepted is refused (where it
// starts), whatever the encoding; one with as many as accepted is read in full.
func TestCrowdedElementsAreRefused(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		kind ErrorKind
	}{
		{"200,000 attributes", "<r" + attributes(200_000, false) + "/>", TooManyAttributes},
		{"100,000 namespace declarations", "<r" + attributes(100_000, true) + "/>", TooManyNamespaces},
		{"one attribute too many", "<r" + attributes(MaxAttributes+1, false) + "/>", TooManyAttributes},
		{"one declaration too many", "<r" + attributes(MaxNamespaceDeclarations+1, true) + "/>", TooManyNamespaces},
		{"a default declaration too many", "<r xmlns=''" + attributes(MaxNamespaceDeclarations, true) + "/>", TooManyNamespaces},
		{"deep in the document", "<?xml version='1.0'?>\n<r>\n <a/>\n <b" + attributes(MaxAttributes+1, false) + "></b>\n</r>", TooManyAttributes},
		{"an unclosed tag", "<r" + attributes(MaxAttributes+1, false), TooManyAttributes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if kind, _ := parseErrorKind(t, []byte(c.doc)); kind != c.kind {
				t.Fatalf("kind %s, want %s", kind, c.kind)
			}
		})
	}
	if _, line := parseErrorKind(t, []byte(cases[5].doc)); line != 4 {
		t.Fatalf("reported on line %d, want 4", line)
	}

	tr, err := Parse([]byte("<r"+attributes(MaxAttributes, false)+attributes(MaxNamespaceDeclarations-1, true)+" xmlns='urn:d'/>"), DefaultLimits)
	if err != nil {
		t.Fatalf("an element at both limits: %v", err)
	}
	if n := len(tr.Attrs(tr.Root())); n != MaxAttributes {
		t.Fatalf("%d attributes read, want %d", n, MaxAttributes)
	}
	if q := tr.QName(tr.Name(tr.Root())); q.Space != "urn:d" {
		t.Fatalf("root in %q", q.Space)
	}
}

// Documents read through a converter are looked over after conversion.
func TestCrowdedElementsAreRefusedInEveryEncoding(t *testing.T) {
	doc := "<r" + attributes(MaxAttributes+1, false) + "/>"
	utf16le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(doc)) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	for name, data := range map[string][]byte{
		"UTF-8 with a byte-order mark": append([]byte{0xEF, 0xBB, 0xBF}, doc...),
		"ISO-8859-1":                   []byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + doc),
		"UTF-16":                       utf16le,
	} {
		t.Run(name, func(t *testing.T) {
			if kind, _ := parseErrorKind(t, data); kind != TooManyAttributes {
				t.Fatalf("kind %s", kind)
			}
		})
	}
}

// What only looks like a crowded tag (in a comment, a CDATA section, a processing instruction, an
// attribute value or the document type declaration) is not one.
func TestCrowdedTagLookalikesAreRead(t *testing.T) {
	fake := "<x" + attributes(MaxAttributes+1, false) + "/>"
	docs := map[string]string{
		"comment":         "<r><!--" + fake + "--></r>",
		"CDATA":           "<r><![CDATA[" + fake + "]]></r>",
		"PI":              "<r><?pi " + fake + "?></r>",
		"attribute value": `<r a='` + strings.ReplaceAll(fake, "<", "&lt;") + `' b="x>y/>"/>`,
		"DOCTYPE":         "<!DOCTYPE r [<!ELEMENT r ANY><!-- " + fake + " --><?pi " + fake + "?><!NOTATION n SYSTEM '" + strings.ReplaceAll(fake, `"`, "") + "'>]><r/>",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(doc), DefaultLimits); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Crowded elements (more than CrowdedElement attributes) may have MaxCrowdedAttributes in all.
func TestCrowdedElementsShareABudget(t *testing.T) {
	doc := func(elements, each int) []byte {
		return []byte("<r>" + strings.Repeat("<e"+attributes(each, false)+"/>", elements) + "</r>")
	}
	if _, err := Parse(doc(MaxCrowdedAttributes/MaxAttributes, MaxAttributes), DefaultLimits); err != nil {
		t.Fatalf("at the budget: %v", err)
	}
	if kind, _ := parseErrorKind(t, doc(MaxCrowdedAttributes/MaxAttributes+1, MaxAttributes)); kind != TooManyAttributes {
		t.Fatalf("past the budget: %s", kind)
	}
	if _, err := Parse(doc(2*MaxCrowdedAttributes/CrowdedElement, CrowdedElement), DefaultLimits); err != nil {
		t.Fatalf("elements that are not crowded: %v", err)
	}
}

// A document whose distinct names pass MaxNameBytes is refused, whatever parsers read before it.
func TestDistinctNamesAreBounded(t *testing.T) {
	names := func(prefix string, bytes int) []byte {
		var b strings.Builder
		b.WriteString("<r>")
		for i := 0; i*(len(prefix)+6) < bytes; i++ {
			fmt.Fprintf(&b, "<%s%05d/>", prefix, i)
		}
		b.WriteString("</r>")
		return []byte(b.String())
	}
	if kind, _ := parseErrorKind(t, names("n", 4*MaxNameBytes)); kind != TooManyNames {
		t.Fatalf("element names: %s", kind)
	}
	var uris strings.Builder
	for i := range MaxNameBytes / 4 {
		fmt.Fprintf(&uris, "<e xmlns:p='urn:%d'/>", i)
	}
	if kind, _ := parseErrorKind(t, []byte("<r>"+uris.String()+"</r>")); kind != TooManyNames {
		t.Fatalf("namespace names: %s", kind)
	}
	// Parsers kept from earlier documents hold their names: a document that fits alone must still fit.
	fits := names("f", MaxNameBytes/2)
	for i := range 16 {
		if _, err := Parse(names(fmt.Sprintf("filler-%d-with-a-long-name-", i), MaxNameBytes/3), DefaultLimits); err != nil {
			t.Fatalf("filler %d: %v", i, err)
		}
		if _, err := Parse(fits, DefaultLimits); err != nil {
			t.Fatalf("after filler %d: %v", i, err)
		}
	}
}

// Many bindings in scope, shadowed and restored, and more binding states than the parser numbers: names
// resolve as encoding/xml resolves them.
func TestManyNamespaceBindingsResolve(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<r:r xmlns:r="urn:r">`)
	for level := range 100 {
		fmt.Fprintf(&b, `<r:l%s xmlns:s="urn:s%d">`, attributes(CrowdedElement/2, true), level)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 12_000 {
		i, j := rng.IntN(200), rng.IntN(200)
		fmt.Fprintf(&b, `<r:e xmlns:a="urn:u%d" xmlns:b="urn:u%d" xmlns:p7="urn:v%d"><a:x b:y="1"/><p7:z/><s:w/><p8:v/></r:e>`, i, j, j)
	}
	b.WriteString(strings.Repeat("</r:l>", 100) + "<s:w xmlns:s='urn:t'/></r:r>")
	doc := b.String()
	tr, err := Parse([]byte(doc), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want, err := namesByEncodingXML(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := treeNames(tr); got != want {
		t.Fatalf("names differ from encoding/xml's (first difference at byte %d)", firstDifference(got, want))
	}
}

func firstDifference(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// Random documents with real and lookalike tags near the limits: a document is refused exactly when one
// of its elements, as encoding/xml reads it, has more attributes or declarations than accepted.
func TestCrowdedTagsAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	near := func(limit int) int { return limit - 2 + rng.IntN(4) }
	for i := range 100 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteString(`<?xml version="1.0"?>`)
		}
		if rng.IntN(3) == 0 {
			b.WriteString("<!DOCTYPE r [<!ELEMENT r ANY><!-- <y" + attributes(near(MaxAttributes), false) + "> --><!NOTATION n SYSTEM '>[<'>]>")
		}
		b.WriteString("<r>")
		for range 1 + rng.IntN(4) {
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "<e%s>t&gt;</e>", attributes(near(MaxAttributes), false))
			case 1:
				fmt.Fprintf(&b, "<e%s/>", attributes(near(MaxNamespaceDeclarations), true))
			case 2:
				fmt.Fprintf(&b, "<!-- <e%s/> -->", attributes(MaxAttributes+5, false))
			case 3:
				fmt.Fprintf(&b, "<![CDATA[<e%s/>]]>", attributes(MaxAttributes+5, true))
			case 4:
				fmt.Fprintf(&b, "<?p <e%s/>?>", attributes(MaxAttributes+5, false))
			case 5:
				fmt.Fprintf(&b, `<e a='"&gt;>/' b="'>/"%s/>`, attributes(near(MaxAttributes)-2, false))
			}
		}
		b.WriteString("</r>")
		doc := b.String()
		want, err := crowdedByEncodingXML(doc)
		if err != nil {
			t.Fatalf("document %d: encoding/xml: %v", i, err)
		}
		_, err = Parse([]byte(doc), DefaultLimits)
		var pe *Error
		got := ErrorKind("")
		if errors.As(err, &pe) {
			got = pe.Kind
		} else if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("document %d: %q, want %q", i, got, want)
		}
	}
}

// crowdedByEncodingXML is the error kind for the first element past a limit, as encoding/xml reads the
// document, or "".
func crowdedByEncodingXML(doc string) (ErrorKind, error) {
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attributes, declarations := 0, 0
		for _, a := range se.Attr {
			if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
				declarations++
			} else {
				attributes++
			}
		}
		switch {
		case attributes > MaxAttributes:
			return TooManyAttributes, nil
		case declarations > MaxNamespaceDeclarations:
			return TooManyNamespaces, nil
		}
	}
}

// libxml2's first error is reported, with its line.
func TestFirstErrorIsReported(t *testing.T) {
	_, err := Parse([]byte("<a>\n<b>\n</a>"), DefaultLimits)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != NotWellFormed || pe.Line != 3 {
		t.Fatalf("err %v", err)
	}
}

// The hostile documents: a parse of each is refused, at about the cost of reading its bytes.
func BenchmarkHostileDocuments(b *testing.B) {
	docs := []struct {
		name string
		doc  string
	}{
		{"200000-attributes", "<r" + attributes(200_000, false) + "/>"},
		{"100000-namespace-declarations", "<r" + attributes(100_000, true) + "/>"},
		{"crowded-elements", "<r>" + strings.Repeat("<e"+attributes(MaxAttributes, false)+"/>", 1000) + "</r>"},
		{"distinct-names", func() string {
			var s strings.Builder
			s.WriteString("<r>")
			for i := range 300_000 {
				fmt.Fprintf(&s, "<a%d/>", i)
			}
			return s.String() + "</r>"
		}()},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			data := []byte(d.doc)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(data, DefaultLimits); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
