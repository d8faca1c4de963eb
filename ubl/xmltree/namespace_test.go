package xmltree

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The namespace processing is ours (libxml2 reads names as written): on documents full of namespace
// declarations, prefixes and mistakes, a document must be refused exactly when libxml2's own SAX2
// parser reports an error (xmllint, which uses it, is the reference) other than a namespace name that is
// not a URI, which the official rules' parser takes as it is (it is counted, for the schema verdict);
// and the names of an accepted one must resolve as encoding/xml resolves them.
func TestNamespacesAgreeWithLibxml2SAX2(t *testing.T) {
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("xmllint (libxml2-utils) is not installed: .ci/run installs it")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	const n = 3000
	docs := make([]string, n)
	files := make([]string, n)
	for i := range docs {
		docs[i] = randomNamespaceDoc(rng)
		files[i] = filepath.Join(dir, fmt.Sprintf("d%04d.xml", i))
		if err := os.WriteFile(files[i], []byte(docs[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := exec.Command("xmllint", append([]string{"--noout"}, files...)...).CombinedOutput()
	refused, notURI := map[string]bool{}, map[string]bool{}
	errLine := regexp.MustCompile(`(?m)^(\S+\.xml):\d+: [a-z ]*error : (.*)$`)
	for _, m := range errLine.FindAllStringSubmatch(string(out), -1) {
		if strings.HasSuffix(m[2], "is not a valid URI") {
			notURI[m[1]] = true
		} else {
			refused[m[1]] = true
		}
	}
	accepted := 0
	for i, doc := range docs {
		tree, err := Parse([]byte(doc), DefaultLimits)
		if (err != nil) != refused[files[i]] {
			t.Fatalf("%s\nlibxml2 SAX2 refuses it: %v; we: %v", doc, refused[files[i]], err)
		}
		if err != nil {
			continue
		}
		if (tree.Info.NonURILine > 0) != notURI[files[i]] {
			t.Fatalf("%s\nlibxml2 finds a namespace name that is not a URI: %v; we note line %d", doc, notURI[files[i]], tree.Info.NonURILine)
		}
		accepted++
		want, err := namesByEncodingXML(doc)
		if err != nil {
			t.Fatalf("%s: encoding/xml: %v", doc, err)
		}
		if got := treeNames(tree); got != want {
			t.Fatalf("%s\nnames %s\nwant  %s", doc, got, want)
		}
	}
	if accepted < n/10 || accepted > n*9/10 {
		t.Fatalf("%d of %d documents accepted: the generator should give both kinds", accepted, n)
	}
}

// randomNamespaceDoc is a small document of elements and attributes whose names and namespace
// declarations are drawn from lists that include every mistake Namespaces in XML names.
func randomNamespaceDoc(rng *rand.Rand) string {
	// Most choices are sound, so that many documents are accepted; a few are mistakes.
	pick := func(sound, mistaken []string) string {
		if rng.IntN(12) == 0 {
			return mistaken[rng.IntN(len(mistaken))]
		}
		return sound[rng.IntN(len(sound))]
	}
	elements := [2][]string{{"a", "p:a", "p:b", "q:a", "r:b", "p:a.b", "p:é", "xml:c"}, {"xmlns:d", ":e", "f:", "g:h:i", "p:1x", "p:-x", "s:a"}}
	attributes := [2][]string{{"x", "y", "p:x", "q:x", "p:y", "xml:lang", "r:x"}, {"z:", ":z", "p:2", "s:x"}}
	declared := [2][]string{{"xmlns", "xmlns:p", "xmlns:q", "xmlns:r"}, {"xmlns:xml", "xmlns:xmlns", "xmlns:1"}}
	uris := [2][]string{{"urn:a", "urn:b", "", "relative", "urn:a#x", "http://example.com/p?q"},
		{"http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/", "a b", "%zz"}}
	var b strings.Builder
	var element func(depth int)
	element = func(depth int) {
		name := pick(elements[0], elements[1])
		b.WriteString("<" + name)
		used := map[string]bool{}
		for k := rng.IntN(3); k > 0 || depth == 0 && !used["xmlns:p"]; k-- {
			d := pick(declared[0], declared[1])
			if depth == 0 && k <= 0 {
				d = "xmlns:p"
			}
			if !used[d] {
				used[d] = true
				uri := pick(uris[0], uris[1])
				if d != "xmlns" && uri == "" && rng.IntN(4) > 0 {
					uri = "urn:c" // an empty prefixed declaration is a mistake: make it a rarer one
				}
				b.WriteString(" " + d + `="` + uri + `"`)
			}
		}
		for k := rng.IntN(3); k > 0; k-- {
			if a := pick(attributes[0], attributes[1]); !used[a] {
				used[a] = true
				b.WriteString(" " + a + `="v"`)
			}
		}
		b.WriteString(">")
		for k := rng.IntN(3); depth < 3 && k > 0; k-- {
			element(depth + 1)
		}
		b.WriteString("</" + name + ">")
	}
	element(0)
	return b.String()
}

// treeNames lists each element's name and attributes' names, {namespace}local, in document order.
func treeNames(t *Tree) string {
	var b strings.Builder
	for n := NodeID(0); int(n) < t.Len(); n++ {
		if t.Kind(n) != Element {
			continue
		}
		q := t.QName(t.Name(n))
		fmt.Fprintf(&b, "<{%s}%s", q.Space, q.Local)
		for _, a := range t.Attrs(n) {
			q := t.QName(a.Name)
			fmt.Fprintf(&b, " {%s}%s", q.Space, q.Local)
		}
		b.WriteString(">")
	}
	return b.String()
}

func namesByEncodingXML(doc string) (string, error) {
	d := xml.NewDecoder(bytes.NewReader([]byte(doc)))
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			return "", err
		}
		if se, ok := tok.(xml.StartElement); ok {
			fmt.Fprintf(&b, "<{%s}%s", se.Name.Space, se.Name.Local)
			for _, a := range se.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				fmt.Fprintf(&b, " {%s}%s", a.Name.Space, a.Name.Local)
			}
			b.WriteString(">")
		}
	}
}
