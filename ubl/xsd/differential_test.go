package xsd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"einvoice/ubl/ubltest"
	"einvoice/ubl/xmltree"
)

// Values that probe the lexical rules of every type the schemas use.
var trickyValues = []string{
	"", " ", "0", "-0", "+1", "1.", ".5", ".", "1e5", "1,5", " 12.30 ", "1234567890123456789012345", "0000123.4500",
	"true", "false", "TRUE", " 1 ", "2021-02-29", "2024-02-29", "2021-13-01", "2021-06-30Z", "2021-06-30+14:00",
	"2021-06-30+14:30", " 2021-06-30", "12021-06-30", "0000-01-01", "12:30:00", "24:00:00", "12:60:00", "12:30:00.5Z",
	"2021-06-30T12:30:00", "QUJD", "QU==", "QQ==", "Q===", "QUJD!!", "a%zz", "http://x y", "#a#b", "pt-PT", "pt_PT",
	"_id", "1id", "x y", "&amp;", "ção",
}

var (
	elementRE = regexp.MustCompile(`(?s)<((?:cbc|cac):[A-Za-z]+)(\s[^>]*)?>.*?</(?:cbc|cac):[A-Za-z]+>`)
	leafRE    = regexp.MustCompile(`<((?:cbc):[A-Za-z]+)((?:\s[^>]*)?)>([^<]*)</(?:cbc):[A-Za-z]+>`)
	attrRE    = regexp.MustCompile(`(<cbc:[A-Za-z]+ [A-Za-z]+=")([^"]*)(")`)
)

// mutate applies one random change to a document.
func mutate(doc string, r *rand.Rand) string {
	pick := func(re *regexp.Regexp) []int {
		all := re.FindAllStringSubmatchIndex(doc, -1)
		if len(all) == 0 {
			return nil
		}
		return all[r.IntN(len(all))]
	}
	switch r.IntN(7) {
	case 0: // drop an element
		if m := pick(elementRE); m != nil {
			return doc[:m[0]] + doc[m[1]:]
		}
	case 1: // repeat an element
		if m := pick(elementRE); m != nil {
			return doc[:m[1]] + doc[m[0]:m[1]] + doc[m[1]:]
		}
	case 2, 3: // give a leaf a tricky value
		if m := pick(leafRE); m != nil {
			return doc[:m[6]] + trickyValues[r.IntN(len(trickyValues))] + doc[m[7]:]
		}
	case 4: // give an attribute a tricky value
		if m := pick(attrRE); m != nil {
			return doc[:m[4]] + trickyValues[r.IntN(len(trickyValues))] + doc[m[5]:]
		}
	case 5: // add an attribute the type may not have, or an xsi one
		if m := pick(leafRE); m != nil {
			attr := []string{` foo="1"`, ` schemeID="x"`, ` currencyID="EUR"`, ` unitCode="C62"`, ` listID="x"`, ` mimeCode="a/b"`}[r.IntN(6)]
			return doc[:m[3]] + attr + doc[m[3]:]
		}
	case 6: // move an element before its predecessor
		all := elementRE.FindAllStringSubmatchIndex(doc, -1)
		if len(all) > 2 {
			i := 1 + r.IntN(len(all)-1)
			a, b := all[i-1], all[i]
			if a[1] <= b[0] {
				return doc[:a[0]] + doc[b[0]:b[1]] + doc[a[1]:b[0]] + doc[a[0]:a[1]] + doc[b[1]:]
			}
		}
	}
	return doc
}

// Mutated corpus documents get the verdict xmllint gives with the official schemas: two of each
// schema-valid corpus document, sixteen with the long tests on (EINVOICE_CONFORMANCE=1).
func TestAgreesWithXmllintOnMutations(t *testing.T) {
	ubltest.Need(t, "xmllint")
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	schemas, _ := ubltest.SchemaDir()
	var sources []string
	for _, p := range profiles {
		for _, e := range p.Expected {
			if e.XSDValid {
				sources = append(sources, filepath.Join(p.Cases, e.File))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	if d := os.Getenv("XSD_DIFF_DIR"); d != "" {
		dir = d
	}
	byRoot := map[string][]string{}
	perSource := 1
	if ubltest.Conformance() {
		perSource = 8
	}
	for i, src := range sources {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := xmltree.Parse(data, xmltree.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		root := tree.QName(tree.Name(tree.Root())).Local
		for k := 0; k < perSource; k++ {
			doc := string(data)
			for n := 1 + r.IntN(2); n > 0; n-- {
				doc = mutate(doc, r)
			}
			f := filepath.Join(dir, fmt.Sprintf("m%04d-%d.xml", i, k))
			os.WriteFile(f, []byte(doc), 0o600)
			byRoot[root] = append(byRoot[root], f)
		}
		// And as many of the rule tests' variants (ubltest.Variants: elements copied into others,
		// renamed, attributes added), which found xs:language's pattern.
		for k, v := range ubltest.Variants(data, perSource, uint64(i)) {
			f := filepath.Join(dir, fmt.Sprintf("v%04d-%d.xml", i, k))
			os.WriteFile(f, v, 0o600)
			byRoot[root] = append(byRoot[root], f)
		}
	}
	total, disagree := 0, 0
	for root, files := range byRoot {
		official := ubltest.SchemaValid(t, filepath.Join(schemas, "maindoc", "UBL-"+root+"-2.1.xsd"), files)
		for _, f := range files {
			data, _ := os.ReadFile(f)
			got, errs, perr := valid(data)
			total++
			if got != official[f] {
				disagree++
				if disagree <= 10 {
					t.Errorf("%s: ours %v, xmllint %v (parse %v, errors %v)", f, got, official[f], perr, errs)
				}
			}
		}
	}
	t.Logf("%d mutated documents, %d disagreements", total, disagree)
}
