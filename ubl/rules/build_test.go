package rules_test

import (
	"slices"
	"testing"

	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

// A guarded group fires what its asserts fire alone, in their order, where the guard holds; elsewhere
// none of its asserts is evaluated.
func TestGuardedFiresAsItsMembersAlone(t *testing.T) {
	calls := 0
	holds := func(v string) rules.Test {
		return func(c *rules.Ctx, n xmltree.NodeID) bool { calls++; return c.Str(n) == v }
	}
	members := func() []*rules.Assert {
		return []*rules.Assert{
			rules.NewAssert("T-1", rules.Fatal, true, holds("#a"), "a", "a"),    // a report: fires when "#a"
			rules.NewAssert("T-2", rules.Warning, false, holds("#a"), "b", "b"), // an assert: fires unless "#a"
			rules.NewAssert("T-3", rules.Fatal, true, holds("#b"), "c", "c"),
		}
	}
	startsWithHash := func(c *rules.Ctx, n xmltree.NodeID) bool { s := c.Str(n); return s != "" && s[0] == '#' }
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
	const cbc = `xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`
	alone := rules.NewSet("alone", rules.NewPattern("p", rules.NewRule("cbc:Note", nil, members()...)))
	guarded := rules.NewSet("guarded", rules.NewPattern("p",
		rules.NewRule("cbc:Note", nil, rules.NewGuarded(startsWithHash, members()...))))
	for _, text := range []string{"#a", "#b", "#c"} {
		doc := `<cbc:Note ` + cbc + `>` + text + `</cbc:Note>`
		if want, got := run(alone, doc), run(guarded, doc); !slices.Equal(got, want) {
			t.Fatalf("%q: guarded fires %v, alone %v", text, got, want)
		}
	}
	calls = 0
	if got := run(guarded, `<cbc:Note `+cbc+`>free text</cbc:Note>`); len(got) != 0 || calls != 0 {
		t.Fatalf("free text: fired %v after %d evaluations, want none of either", got, calls)
	}
}
