package xmltree

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const ns = "urn:example"

func mustParse(t *testing.T, doc string) *Tree {
	t.Helper()
	tr, err := Parse([]byte(doc), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTreeShape(t *testing.T) {
	a := Register(ns, "a")
	b := Register(ns, "b")
	id := Register("", "id")
	tr := mustParse(t, `<?xml version="1.0" encoding="UTF-8"?>
<p:a xmlns:p="urn:example" xmlns:q="urn:other">
  <p:b id="1">x &amp; y</p:b>
  <p:b><![CDATA[<raw>]]></p:b>
  <q:c>one<p:b>two</p:b>three</q:c>
</p:a>`)
	root := tr.Root()
	if tr.Name(root) != a || tr.Prefix(root) != "p" {
		t.Fatalf("root %v", tr.QName(tr.Name(root)))
	}
	bs := tr.Children(root, b)
	if len(bs) != 2 || tr.OwnText(bs[0]) != "x & y" || tr.OwnText(bs[1]) != "<raw>" {
		t.Fatalf("children %v", bs)
	}
	if v, ok := tr.Attr(bs[0], id); !ok || v != "1" {
		t.Fatalf("attribute %q %v", v, ok)
	}
	c := tr.NextSibling(bs[1])
	if q := tr.QName(tr.Name(c)); q != (QName{"urn:other", "c"}) || tr.Name(c) < FirstLocalName {
		t.Fatalf("unregistered name %v %d", q, tr.Name(c))
	}
	if tr.StringValue(c) != "onetwothree" || tr.OwnText(c) != "onethree" {
		t.Fatalf("string value %q own %q", tr.StringValue(c), tr.OwnText(c))
	}
	if got := tr.Path(tr.FirstChild(c)); got != "/p:a/q:c[1]/p:b[1]" {
		t.Fatalf("path %s", got)
	}
	if tr.Line(bs[1]) != 4 || tr.Depth(tr.FirstChild(c)) != 2 {
		t.Fatalf("line %d depth %d", tr.Line(bs[1]), tr.Depth(tr.FirstChild(c)))
	}
}

func TestNameIndexAndSubtrees(t *testing.T) {
	a := Register(ns, "a")
	b := Register(ns, "b")
	IndexName(b)
	tr := mustParse(t, `<a xmlns="urn:example"><b/><x:b xmlns:x="urn:example"><b>t</b></x:b><c/><b/></a>`)
	all := tr.Named(b)
	if len(all) != 4 {
		t.Fatalf("named b: %v", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i] <= all[i-1] {
			t.Fatalf("not in document order: %v", all)
		}
	}
	if got := tr.Named(a); len(got) != 1 || got[0] != tr.Root() {
		t.Fatalf("named a: %v", got)
	}
	second := all[1] // the b holding another b
	within := tr.NamedWithin(b, second+1, tr.SubtreeEnd(second))
	if len(within) != 1 || tr.Parent(within[0]) != second {
		t.Fatalf("b within the second b: %v", within)
	}
	if tr.SubtreeEnd(tr.Root()) != NodeID(tr.Len()) || tr.SubtreeEnd(all[0]) != all[0]+1 {
		t.Fatalf("subtree ends %d %d", tr.SubtreeEnd(tr.Root()), tr.SubtreeEnd(all[0]))
	}
	if got := tr.Named(Register(ns, "never-used")); len(got) != 0 {
		t.Fatalf("unused name: %v", got)
	}
}

// A bare document type declaration (no external DTD, no entity, no attribute default) is read, as the
// official tools read it, and noted.
func TestBareDoctype(t *testing.T) {
	for _, doc := range []string{`<!DOCTYPE r><r>x</r>`, `<?xml version="1.0"?>
<!DOCTYPE r [ <!ELEMENT r ANY> <!-- c --> <?pi x?> ]><r>x</r>`} {
		tr, err := Parse([]byte(doc), DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if !tr.Info.Doctype || tr.OwnText(tr.Root()) != "x" {
			t.Fatalf("%s: info %+v, text %q", doc, tr.Info, tr.OwnText(tr.Root()))
		}
	}
	if tr, err := Parse([]byte(`<r>x</r>`), DefaultLimits); err != nil || tr.Info.Doctype {
		t.Fatalf("no DOCTYPE: %v %+v", err, tr.Info)
	}
}

// A CDATA section is text like any other, and the elements it is written in are noted, each once.
func TestCDATASections(t *testing.T) {
	tr, err := Parse([]byte(`<r><![CDATA[]]><a>x<![CDATA[<y>]]>z<![CDATA[ ]]></a><b/><![CDATA[ ]]></r>`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.FirstChild(tr.Root())
	if text := tr.OwnText(a); text != "x<y>z " {
		t.Fatalf("text %q", text)
	}
	if got := fmt.Sprint(tr.Info.CDATAIn); got != fmt.Sprint([]NodeID{tr.Root(), a, tr.Root()}) {
		t.Fatalf("CDATA sections noted in %v", got)
	}
	if tr, _ := Parse([]byte(`<r>x</r>`), DefaultLimits); tr.Info.CDATAIn != nil {
		t.Fatalf("no CDATA section: %v", tr.Info.CDATAIn)
	}
}

// hostileInput is a document the parser must refuse, with the limits it runs under and the kind of
// refusal.
type hostileInput struct {
	name string
	doc  string
	lim  Limits
	kind ErrorKind
}

// hostileInputs are the entity, depth and size attacks.
func hostileInputs() []hostileInput {
	billionLaughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">]><lolz>&lol9;</lolz>`
	xxe := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`
	xxeNet := `<?xml version="1.0"?><!DOCTYPE r SYSTEM "http://127.0.0.1:9/x.dtd"><r/>`
	deep := strings.Repeat("<a>", 10000) + strings.Repeat("</a>", 10000)
	hugeText := "<a>" + strings.Repeat("x", 50<<20) + "</a>"
	return []hostileInput{
		{"billion laughs", billionLaughs, DefaultLimits, DoctypeFound},
		{"external entity", xxe, DefaultLimits, DoctypeFound},
		{"external DTD", xxeNet, DefaultLimits, DoctypeFound},
		{"external DTD, public", `<!DOCTYPE r PUBLIC "-//x//y" "x.dtd"><r/>`, DefaultLimits, DoctypeFound},
		{"parameter entity", `<!DOCTYPE r [<!ENTITY % p "<!ELEMENT r ANY>"> %p;]><r/>`, DefaultLimits, DoctypeFound},
		{"attribute default", `<!DOCTYPE r [<!ATTLIST r a CDATA "x">]><r/>`, DefaultLimits, DoctypeFound},
		{"unparsed entity", `<!DOCTYPE r [<!NOTATION n SYSTEM "n"><!ENTITY u SYSTEM "u" NDATA n>]><r/>`, DefaultLimits, DoctypeFound},
		{"10,000 deep", deep, DefaultLimits, TooDeep},
		{"50 MB text node", hugeText, DefaultLimits, TextTooLong},
		{"50 MB document over the size limit", hugeText, Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxText: 1 << 20}, TooLarge},
		{"truncated", `<?xml version="1.0"?><a><b>text</b><c`, DefaultLimits, NotWellFormed},
		{"undefined prefix", `<a><x:b/></a>`, DefaultLimits, NotWellFormed},
		{"undeclared entity", `<a>&nope;</a>`, DefaultLimits, NotWellFormed},
		{"empty", ``, DefaultLimits, Empty},
		{"not XML", `hello`, DefaultLimits, NotWellFormed},
	}
}

// TestHostileInputs: each is refused with its kind and a message (how fast is
// BenchmarkParseHostileInputs's question).
func TestHostileInputs(t *testing.T) {
	for _, c := range hostileInputs() {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), c.lim)
			var pe *Error
			if !errors.As(err, &pe) || pe.Kind != c.kind {
				t.Fatalf("err %v, want kind %s", err, c.kind)
			}
			if pe.Message == "" {
				t.Fatal("no message")
			}
		})
	}
}

// BenchmarkParseHostileInputs times the refusal of each hostile input.
func BenchmarkParseHostileInputs(b *testing.B) {
	for _, c := range hostileInputs() {
		doc := []byte(c.doc)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				Parse(doc, c.lim)
			}
		})
	}
}

func TestEncodingInfo(t *testing.T) {
	tr := mustParse(t, "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>")
	if !tr.Info.BOM || !strings.EqualFold(tr.Info.Encoding, "UTF-8") {
		t.Fatalf("info %+v", tr.Info)
	}
	latin1 := append([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><a>`), 0xE7, 0xE3)
	latin1 = append(latin1, []byte("o</a>")...)
	tr2, err := Parse(latin1, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if tr2.Info.Encoding != "ISO-8859-1" || tr2.OwnText(0) != "ção" {
		t.Fatalf("latin-1: %+v %q", tr2.Info, tr2.OwnText(0))
	}
	if !bytes.Equal([]byte(tr2.OwnText(0)), []byte("ção")) {
		t.Fatal("text not converted to UTF-8")
	}
}

// Documents libxml2 reads in place (UTF-8, no mark) and through its buffers (marks, declared or
// detected encodings) must read alike.
func TestEncodingsReadAlike(t *testing.T) {
	latin1 := func(s string) []byte { // ç and ã as ISO-8859-1 bytes
		return []byte(strings.NewReplacer("ç", "\xE7", "ã", "\xE3").Replace(s))
	}
	utf16le := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	utf16be := func(s string) []byte {
		b := []byte{0xFE, 0xFF}
		for _, r := range s {
			b = append(b, byte(r>>8), byte(r))
		}
		return b
	}
	cases := []struct {
		name     string
		doc      []byte
		encoding string
	}{
		{"no declaration", []byte(`<a>ção</a>`), ""},
		{"no encoding", []byte(`<?xml version="1.0"?><a>ção</a>`), ""},
		{"UTF-8", []byte(`<?xml version="1.0" encoding="UTF-8"?><a>ção</a>`), "UTF-8"},
		{"utf8 in single quotes, spaced", []byte(`<?xml version='1.0' encoding = 'utf8' ?><a>ção</a>`), "utf8"},
		{"mark", []byte("\xEF\xBB\xBF<a>ção</a>"), ""},
		{"latin-1, double quotes", latin1(`<?xml version="1.0" encoding="ISO-8859-1"?><a>ção</a>`), "ISO-8859-1"},
		{"latin-1, single quotes", latin1(`<?xml version='1.0' encoding='iso-8859-1'?><a>ção</a>`), "iso-8859-1"},
		{"UTF-16 with a mark", utf16le(`<?xml version="1.0" encoding="UTF-16"?><a>ção</a>`), "UTF-16LE"},
		{"UTF-16 with a mark, no declaration", utf16le(`<a>ção</a>`), "UTF-16LE"},
		{"UTF-16 with a mark, declared UTF-8", utf16le(`<?xml version="1.0" encoding="UTF-8"?><a>ção</a>`), "UTF-16LE"},
		{"UTF-16 big-endian with a mark", utf16be(`<?xml version="1.0" encoding="UTF-16"?><a>ção</a>`), "UTF-16BE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Parse(c.doc, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if tr.OwnText(tr.Root()) != "ção" || !strings.EqualFold(tr.Info.Encoding, c.encoding) {
				t.Fatalf("text %q, encoding %q", tr.OwnText(tr.Root()), tr.Info.Encoding)
			}
			if mark := c.doc[0] >= 0xEF; tr.Info.BOM != mark {
				t.Fatalf("byte-order mark %v, want %v", tr.Info.BOM, mark)
			}
		})
	}
	for _, doc := range []string{"<a>x\x00</a>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>\x00</a>"} {
		if _, err := Parse([]byte(doc), DefaultLimits); err == nil {
			t.Errorf("%q: a NUL byte was accepted", doc)
		}
	}
}

// A parser whose buffers grew for a large document is not kept for the next one.
func TestLargeDocumentParserNotKept(t *testing.T) {
	drain := func() {
		for {
			select {
			case p := <-parsers:
				p.free()
			default:
				return
			}
		}
	}
	drain()
	defer drain()
	if _, err := Parse([]byte(`<a>x</a>`), DefaultLimits); err != nil {
		t.Fatal(err)
	}
	if len(parsers) != 1 {
		t.Fatalf("%d parsers kept after a small document, want 1", len(parsers))
	}
	drain()
	large := []byte("<a>" + strings.Repeat("x", maxKeptBytes) + "</a>")
	if _, err := Parse(large, DefaultLimits); err != nil {
		t.Fatal(err)
	}
	if len(parsers) != 0 {
		t.Fatalf("%d parsers kept after a %d-byte document, want 0", len(parsers), len(large))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`<a xmlns="urn:x"><b c="d">e</b></a>`))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`))
	f.Add([]byte(`<!DOCTYPE a [<!ELEMENT a ANY><!ATTLIST a b (x|y) "x"><!NOTATION n SYSTEM "n">]><a b="y"/>`))
	f.Add([]byte(`<?xml version="1.0" encoding="UTF-8"?><a>x</a>`))
	f.Add([]byte("<?xml version='1.0' encoding='latin1'?><a>\xe7</a>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data, Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxText: 1 << 20})
		if err != nil {
			return
		}
		for i := 0; i < tr.Len(); i++ {
			if tr.Kind(NodeID(i)) == Element {
				tr.Path(NodeID(i))
				tr.StringValue(NodeID(i))
			}
		}
	})
}

func TestChildElements(t *testing.T) {
	a, b := Register(ns, "a"), Register(ns, "b")
	tr := mustParse(t, `<a xmlns="urn:example">t<b/><c>x<b/><b/></c>u<b><a/></b></a>`)
	for n := NodeID(0); int(n) < tr.Len(); n++ {
		if tr.Kind(n) != Element {
			continue
		}
		ids, names := tr.ChildElements(n)
		var want []NodeID
		for c := tr.FirstChild(n); c != None; c = tr.NextSibling(c) {
			want = append(want, c)
		}
		if len(ids) != len(want) || len(names) != len(ids) {
			t.Fatalf("%s: children %v, want %v", tr.Path(n), ids, want)
		}
		for i := range ids {
			if ids[i] != want[i] || names[i] != tr.Name(ids[i]) {
				t.Fatalf("%s: children %v names %v, want %v", tr.Path(n), ids, names, want)
			}
		}
	}
	if ids, _ := tr.ChildElements(tr.Root()); len(ids) != 3 || tr.Name(ids[0]) != b || tr.Name(ids[2]) != b {
		t.Fatalf("root children %v", ids)
	}
	last, _ := tr.ChildElements(tr.Root())
	if inner, _ := tr.ChildElements(last[2]); len(inner) != 1 || tr.Name(inner[0]) != a {
		t.Fatalf("inner children %v", inner)
	}
}

// A tree parsed into the arrays a released tree gave back is the tree a fresh parse makes.
func TestReleasedArraysServeTheNextTree(t *testing.T) {
	Register(ns, "a")
	first := `<a xmlns="urn:example" k="v"><b>one</b><b>two</b>` + strings.Repeat(`<c x="1">three</c>`, 50) + `</a>`
	second := `<p:a xmlns:p="urn:example"><p:b q="z">four</p:b><d/>five</p:a>`
	describe := func(tr *Tree) string {
		var b strings.Builder
		for n := NodeID(0); int(n) < tr.Len(); n++ {
			b.WriteString(tr.Path(n) + "=" + tr.StringValue(n))
			if tr.Kind(n) == Element {
				for _, a := range tr.Attrs(n) {
					b.WriteString(" @" + tr.QName(a.Name).Local + "=" + tr.Value(a))
				}
				ids, _ := tr.ChildElements(n)
				b.WriteString(" kids " + strconv.Itoa(len(ids)))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	fresh := describe(mustParse(t, second))
	for i := 0; i < 3; i++ {
		mustParse(t, first).Release()
		if got := describe(mustParse(t, second)); got != fresh {
			t.Fatalf("after a release:\n%s\nwant:\n%s", got, fresh)
		}
	}
}

// A path writer gives every node the path worked out from the definition, whatever the order the
// nodes come in (it reuses the steps the node before shares).
func TestPathWriter(t *testing.T) {
	tr := mustParse(t, `<p:a xmlns:p="urn:example" xmlns:q="urn:other"><p:b/><q:c>x<p:b/><p:b>y</p:b></q:c>`+
		`<p:b><q:c/><q:c><p:a/></q:c></p:b><q:c/>`+strings.Repeat(`<p:b><q:c/></p:b>`, 11)+`</p:a>`) // positions past 9 too
	want := func(n NodeID) string { // from the links, step by step
		path := ""
		for ; n != None; n = tr.Parent(n) {
			step := "/text()"
			if tr.Kind(n) == Element {
				step = "/" + tr.Prefix(n) + ":" + tr.QName(tr.Name(n)).Local
				if p := tr.Parent(n); p != None {
					pos := 1
					for s := tr.FirstChild(p); s != n; s = tr.NextSibling(s) {
						if tr.Name(s) == tr.Name(n) {
							pos++
						}
					}
					step += "[" + strconv.Itoa(pos) + "]"
				}
			}
			path = step + path
		}
		return path
	}
	var order []NodeID
	for n := NodeID(0); int(n) < tr.Len(); n++ {
		order = append(order, n)
	}
	for i := len(order) - 1; i >= 0; i-- {
		order = append(order, order[i])
	}
	order = append(order, 5, 0, 9, 9, 2, 11, 3, None, 7)
	order = slices.Repeat(order, 8) // enough paths to fill several of the writer's blocks
	w := tr.NewPathWriter()
	written := map[int]string{}
	total := 0
	for i, n := range order {
		if n != None && int(n) >= tr.Len() {
			continue
		}
		got := w.Path(n)
		if exp := want(n); n != None && got != exp || n == None && got != "" {
			t.Fatalf("node %d: %q, want %q", n, got, exp)
		}
		written[i] = got
		total += len(got)
	}
	if total < 3*pathChunk {
		t.Fatalf("the test wrote %d bytes of paths: too few to cross the writer's blocks", total)
	}
	for i, got := range written { // the paths share memory: none may have changed since
		if n := order[i]; n != None && got != want(n) {
			t.Fatalf("node %d: %q became %q", n, want(n), got)
		}
	}
	if got := tr.Path(tr.FirstChild(tr.Root())); got != "/p:a/p:b[1]" {
		t.Fatalf("first child: %q", got)
	}
}

// Whitespace runs of every length around the eight-byte steps of the blank test: dropped between
// elements, kept as a leaf's content, and never taken for blank when one character is not.
func TestWhitespaceRuns(t *testing.T) {
	const blanks = " \t\n\r"
	for n := 0; n <= 20; n++ {
		run := make([]byte, n)
		for i := range run {
			run[i] = blanks[i%4]
		}
		ws := string(run)
		want := strings.ReplaceAll(ws, "\r", "\n") // the parser normalises line ends
		tr := mustParse(t, `<a xmlns="urn:example"><b/>`+ws+`<c>`+ws+`</c></a>`)
		if got := tr.StringValue(tr.Root()); got != want {
			t.Fatalf("%d blanks: string value %q, want %q (the leaf's only)", n, got, want)
		}
		for p := 0; p < n; p++ {
			for _, other := range []string{"x", "\u00a0", "!"} { // "!" is 0x21, the first byte above the blanks
				text := ws[:p] + other + ws[p+1:]
				tr := mustParse(t, `<a xmlns="urn:example"><b/>`+text+`<c/></a>`)
				if got, want := tr.StringValue(tr.Root()), strings.ReplaceAll(text, "\r", "\n"); got != want {
					t.Fatalf("%q: string value %q, want %q", text, got, want)
				}
			}
		}
	}
}

// The text nodes of random documents (blanks, text, references, comments, processing instructions and
// CDATA sections around start, end and empty tags) are those a reference reading with encoding/xml
// keeps: every run of character data up to the next tag, comment or instruction (XPath's text nodes),
// and a run of blanks only where it is not before or between elements.
func TestTextRunsAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{" ", "\n", "\t", "\r\n", "  \n    ", "\n                ", "x", "\u00a0", "é", "&amp;", "&#32;", "<!--c-->", "<?p d?>", "<![CDATA[ ]]>", "<![CDATA[y]]>"}
	var gen func(b *strings.Builder, depth int)
	gen = func(b *strings.Builder, depth int) {
		for k := rng.IntN(5); k > 0; k-- {
			switch r := rng.IntN(10); {
			case r < 5:
				b.WriteString(pieces[rng.IntN(len(pieces))])
			case r < 7 || depth > 4:
				b.WriteString("<e/>")
			default:
				b.WriteString("<e>")
				gen(b, depth+1)
				b.WriteString("</e>")
			}
		}
	}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		b.WriteString(`<r xmlns="urn:example">`)
		gen(&b, 0)
		b.WriteString("</r>")
		doc := b.String()
		want, err := referenceContent(doc)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		tr := mustParse(t, doc)
		var got []string
		for n := NodeID(0); int(n) < tr.Len(); n++ {
			if tr.Kind(n) != Element {
				continue
			}
			if text, ok := tr.LeafText(n); ok != (tr.FirstChild(n) == None && tr.FirstContent(n) != None && tr.NextContent(tr.FirstContent(n)) == None) || ok && text != tr.StringValue(n) {
				t.Fatalf("%q: element %d: leaf text %q %v, string value %q", doc, n, text, ok, tr.StringValue(n))
			}
			items := "|"
			for c := tr.FirstContent(n); c != None; c = tr.NextContent(c) {
				if tr.Kind(c) == Text {
					items += strconv.Quote(tr.OwnText(c)) + "|"
				} else {
					items += "E|"
				}
			}
			got = append(got, items)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", doc, got, want)
		}
	}
}

// referenceContent is, element by element in document order, the content the tree should keep.
func referenceContent(doc string) ([]string, error) {
	type open struct {
		index      int
		hasElement bool
	}
	var out []string
	var stack []open
	run, inRun := "", false
	endRun := func(childStarts bool) {
		if !inRun || len(stack) == 0 {
			run, inRun = "", false
			return
		}
		top := &stack[len(stack)-1]
		if strings.Trim(run, " \t\n") != "" || !childStarts && !top.hasElement {
			out[top.index] += strconv.Quote(run) + "|"
		}
		run, inRun = "", false
	}
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			run, inRun = run+string(tok), true
		case xml.StartElement:
			endRun(true)
			if len(stack) > 0 {
				stack[len(stack)-1].hasElement = true
				out[stack[len(stack)-1].index] += "E|"
			}
			stack = append(stack, open{index: len(out)})
			out = append(out, "|")
		case xml.EndElement:
			endRun(false)
			stack = stack[:len(stack)-1]
		case xml.Comment, xml.ProcInst:
			endRun(false)
		}
	}
}

// Whitespace between elements is left out of a tree unless the parse keeps it, and Exact tells where
// leaving it out changes a string value.
func TestBlanksBetweenElements(t *testing.T) {
	doc := []byte("<a xmlns=\"urn:example\">x<b>\n  <c>1</c>\n</b> <d>2</d>\n</a>")
	lean, err := Parse(doc, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ParseKeepingBlanks(doc, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := full.StringValue(full.Root()), "x\n  1\n 2\n"; got != want {
		t.Errorf("kept blanks: string value %q, want %q", got, want)
	}
	if got := lean.StringValue(lean.Root()); got != "x12" {
		t.Errorf("without blanks: string value %q", got)
	}
	b := lean.FirstChild(lean.Root())
	c := lean.FirstChild(b)
	if lean.Exact(lean.Root()) || lean.Exact(b) || !lean.Exact(c) {
		t.Errorf("Exact: root %v, b %v, c %v; want false, false, true", lean.Exact(lean.Root()), lean.Exact(b), lean.Exact(c))
	}
	if !full.Exact(full.Root()) {
		t.Error("a tree with its blanks is exact")
	}
	indentedLeaves, _ := Parse([]byte("<a xmlns=\"urn:example\"><b>1</b></a>"), DefaultLimits)
	if !indentedLeaves.Exact(indentedLeaves.Root()) {
		t.Error("nothing was left out, yet the root is not exact")
	}
}
