package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"einvoice/ubl/xmltree"
)

// Paths of child steps select, through every way of evaluating them (Nodes, and the shortcuts Count,
// Any, Eq, One and First, which walk the children without keeping a node list), what a plain walk of
// the tree selects, on random documents.
func TestChildStepPathsAgreeWithAPlainWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"cac:Party", "cbc:ID", "cbc:Name", "cac:PartyName"}
	var gen func(b *strings.Builder, depth int)
	gen = func(b *strings.Builder, depth int) {
		for k := rng.IntN(4); k > 0; k-- {
			name := names[rng.IntN(len(names))]
			b.WriteString("<" + name + ">")
			if depth < 3 && rng.IntN(2) == 0 {
				gen(b, depth+1)
			} else {
				b.WriteString([]string{"a", "b", ""}[rng.IntN(3)])
			}
			b.WriteString("</" + name + ">")
		}
	}
	paths := []string{"cbc:ID", "cac:Party", "cac:Party/cbc:ID", "cac:Party/cac:PartyName/cbc:Name", "*", "cac:Party/*", "*/cbc:Name"}
	for i := 0; i < 400; i++ {
		var b strings.Builder
		b.WriteString(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ` +
			`xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ` +
			`xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`)
		gen(&b, 0)
		b.WriteString("</Invoice>")
		tr, err := xmltree.Parse([]byte(b.String()), xmltree.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		c := newCtx(tr)
		for _, text := range paths {
			p := P(text)
			for n := xmltree.NodeID(0); int(n) < tr.Len(); n++ {
				if tr.Kind(n) != xmltree.Element {
					continue
				}
				want := walkChildSteps(tr, n, strings.Split(text, "/"))
				if got := c.Count(n, p); got != len(want) {
					t.Fatalf("%s from %s: count %d, want %d", text, tr.Path(n), got, len(want))
				}
				if got := c.Nodes(n, p); !slices.Equal(got, want) {
					t.Fatalf("%s from %s: nodes %v, want %v", text, tr.Path(n), got, want)
				}
				first := xmltree.None
				if len(want) > 0 {
					first = want[0]
				}
				if got := c.First(n, p); got != first {
					t.Fatalf("%s from %s: first %d, want %d", text, tr.Path(n), got, first)
				}
				for _, lit := range []string{"a", "b", ""} {
					eq := slices.ContainsFunc(want, func(x xmltree.NodeID) bool { return c.Str(x) == lit })
					if got := c.Eq(n, p, lit); got != eq {
						t.Fatalf("%s from %s: = %q %v, want %v", text, tr.Path(n), lit, got, eq)
					}
					if got := c.Any(n, p, func(x xmltree.NodeID) bool { return c.Str(x) == lit }); got != eq {
						t.Fatalf("%s from %s: any = %q %v, want %v", text, tr.Path(n), lit, got, eq)
					}
				}
				one, err := func() (x xmltree.NodeID, err error) {
					defer func() {
						if r := recover(); r != nil {
							err = r.(*DynamicError)
						}
					}()
					return c.One(n, p), nil
				}()
				switch {
				case len(want) > 1 && err == nil:
					t.Fatalf("%s from %s: one of %d nodes gave no error", text, tr.Path(n), len(want))
				case len(want) <= 1 && (err != nil || one != first):
					t.Fatalf("%s from %s: one %d %v, want %d", text, tr.Path(n), one, err, first)
				}
			}
		}
		c.release()
		tr.Release()
	}
}

// walkChildSteps is what steps ("cbc:ID", "*") select from n, following the tree's links.
func walkChildSteps(tr *xmltree.Tree, n xmltree.NodeID, steps []string) []xmltree.NodeID {
	var out []xmltree.NodeID
	for x := tr.FirstChild(n); x != xmltree.None; x = tr.NextSibling(x) {
		if steps[0] != "*" && tr.Name(x) != MustName(steps[0]) {
			continue
		}
		if len(steps) == 1 {
			out = append(out, x)
		} else {
			out = append(out, walkChildSteps(tr, x, steps[1:])...)
		}
	}
	return out
}
