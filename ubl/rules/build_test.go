package rules_test

import (
	"slices"
	"strings"
	"testing"

	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

// A prefix family fires what its asserts fire alone, in their order, on a text that starts (leading
// blanks aside) with their prefixes; an assert none of whose prefixes the text starts with is not
// evaluated.
func TestByPrefixFiresAsItsMembersAlone(t *testing.T) {
	calls := map[string]int{}
	test := func(id string, holds func(s string) bool) rules.Test {
		return func(c *rules.Ctx, n xmltree.NodeID) bool { calls[id]++; return holds(rules.TrimLeftBlanks(c.Str(n))) }
	}
	members := []*rules.Assert{
		// a report: fires on "#a"
		rules.NewAssert("T-1", rules.Fatal, true, test("T-1", func(s string) bool { return s == "#a" }), "a", "a"),
		// an assert: fires on a text that starts with "#" and is not "#a"
		rules.NewAssert("T-2", rules.Warning, false, test("T-2", func(s string) bool { return s == "#a" || !strings.HasPrefix(s, "#") }), "b", "b"),
		// a report: fires on "#b"
		rules.NewAssert("T-3", rules.Fatal, true, test("T-3", func(s string) bool { return s == "#b" }), "c", "c"),
	}
	prefixes := [][]string{{"#a"}, {"#"}, {"#b", "#c"}}
	run := func(set *rules.Set, doc string) []string {
		tree, err := xmltree.Parse([]byte(doc), xmltree.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		findings, err := set.Run(tree)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range findings {
			ids = append(ids, f.Assert.ID)
		}
		return ids
	}
	byPrefix := make([]rules.OnPrefix, len(members))
	for i, m := range members {
		byPrefix[i] = rules.OnPrefix{Assert: m, Prefixes: prefixes[i]}
	}
	const cbc = `xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`
	alone := rules.NewSet("alone", rules.NewPattern("p", rules.NewRule("cbc:Note", nil, members...)))
	family := rules.NewSet("family", rules.NewPattern("p", rules.NewRule("cbc:Note", nil, rules.NewByPrefix(byPrefix...))))
	for _, tc := range []struct {
		text      string
		evaluated []string
	}{
		{"#a", []string{"T-1", "T-2"}},
		{" \n #a", []string{"T-1", "T-2"}},
		{"#b", []string{"T-2", "T-3"}},
		{"#c", []string{"T-2", "T-3"}},
		{"#d", []string{"T-2"}},
		{"free text", nil},
	} {
		doc := `<cbc:Note ` + cbc + `>` + tc.text + `</cbc:Note>`
		want := run(alone, doc)
		clear(calls)
		if got := run(family, doc); !slices.Equal(got, want) {
			t.Errorf("%q: the family fires %v, its members alone %v", tc.text, got, want)
		}
		var evaluated []string
		for id := range calls {
			evaluated = append(evaluated, id)
		}
		slices.Sort(evaluated)
		if !slices.Equal(evaluated, tc.evaluated) {
			t.Errorf("%q: evaluated %v, want %v", tc.text, evaluated, tc.evaluated)
		}
	}
}
