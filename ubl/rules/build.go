package rules

import (
	"slices"
	"strings"

	"einvoice/ubl/xmltree"
)

// Test is an assert's test on the context element.
type Test = func(c *Ctx, n xmltree.NodeID) bool

// NewAssert makes an assert (fires when test is false) or, with report, a report (fires when true).
func NewAssert(id string, flag Flag, report bool, test Test, en, pt string) *Assert {
	return &Assert{ID: id, Flag: flag, Report: report, Test: test, EN: en, PT: pt}
}

// NewFamily makes one assert of members decided together: fired calls fire with each member that
// fires, in order.
func NewFamily(members []*Assert, fired func(c *Ctx, n xmltree.NodeID, fire func(*Assert))) *Assert {
	return &Assert{ID: members[0].ID, Flag: members[0].Flag, Members: members, Fired: fired}
}

// OnPrefix is an assert that can only fire on an element whose string value, leading blanks aside,
// starts with one of Prefixes (a note's tag check needs a note that starts with its tag).
type OnPrefix struct {
	*Assert
	Prefixes []string
}

// NewByPrefix makes one assert of asserts that can each fire only where the text starts with one of its
// prefixes: on an element, only the members with a prefix the text starts with are evaluated, and they
// fire as they would alone, in order. (Most notes are free text, and a tagged note has one tag of the
// many that have checks.)
func NewByPrefix(members ...OnPrefix) *Assert {
	var prefixes []string // the distinct prefixes
	uses := make([]uint64, len(members))
	asserts := make([]*Assert, len(members))
	for i, m := range members {
		if m.Test == nil || len(m.Prefixes) == 0 {
			panic("rules: a member of NewByPrefix needs a test and a prefix: " + m.ID)
		}
		for _, p := range m.Prefixes {
			k := slices.Index(prefixes, p)
			if k < 0 {
				k, prefixes = len(prefixes), append(prefixes, p)
			}
			if k >= 64 {
				panic("rules: more than 64 prefixes in one NewByPrefix")
			}
			uses[i] |= 1 << k
		}
		asserts[i] = m.Assert
	}
	return NewFamily(asserts, func(c *Ctx, n xmltree.NodeID, fire func(*Assert)) {
		s := TrimLeftBlanks(c.Str(n))
		var starts uint64
		for k, p := range prefixes {
			if strings.HasPrefix(s, p) {
				starts |= 1 << k
			}
		}
		if starts == 0 {
			return
		}
		for i, m := range asserts {
			if uses[i]&starts != 0 && m.Test(c, n) == m.Report {
				fire(m)
			}
		}
	})
}

// NewRule makes a rule from a context (see NewContext) and its asserts.
func NewRule(context string, preds map[string]Pred, asserts ...*Assert) *Rule {
	return &Rule{Context: NewContext(context, preds), Asserts: asserts}
}

// NewPattern makes a pattern of rules, in priority order.
func NewPattern(name string, rules ...*Rule) *Pattern { return &Pattern{Name: name, Rules: rules} }

// Exists is the test exists(path) for each path: all of them must select something.
func Exists(paths ...string) Test { return ExistsWith(nil, paths...) }

// ExistsWith is Exists with paths that name predicates.
func ExistsWith(preds map[string]Pred, paths ...string) Test {
	ps := make([]*Path, len(paths))
	for i, p := range paths {
		ps[i] = PWith(p, preds)
	}
	return func(c *Ctx, n xmltree.NodeID) bool {
		for _, p := range ps {
			if !c.Exists(n, p) {
				return false
			}
		}
		return true
	}
}

// ExistsAny is exists(a) or exists(b) or ….
func ExistsAny(paths ...string) Test {
	ps := make([]*Path, len(paths))
	for i, p := range paths {
		ps[i] = P(p)
	}
	return func(c *Ctx, n xmltree.NodeID) bool {
		for _, p := range ps {
			if c.Exists(n, p) {
				return true
			}
		}
		return false
	}
}

// Not negates a test.
func Not(t Test) Test { return func(c *Ctx, n xmltree.NodeID) bool { return !t(c, n) } }

// And is true when every test is (evaluated left to right, stopping at the first false).
func And(ts ...Test) Test {
	return func(c *Ctx, n xmltree.NodeID) bool {
		for _, t := range ts {
			if !t(c, n) {
				return false
			}
		}
		return true
	}
}

// Or is true when some test is (evaluated left to right, stopping at the first true).
func Or(ts ...Test) Test {
	return func(c *Ctx, n xmltree.NodeID) bool {
		for _, t := range ts {
			if t(c, n) {
				return true
			}
		}
		return false
	}
}

// CountAtMost is count(path) <= max.
func CountAtMost(path string, max int) Test {
	p := P(path)
	return func(c *Ctx, n xmltree.NodeID) bool { return c.Count(n, p) <= max }
}

// ChildEquals is the predicate "child = 'value'" (general comparison on string values).
func ChildEquals(path, value string) Pred {
	p := P(path)
	return func(c *Ctx, n xmltree.NodeID) bool { return c.Eq(n, p, value) }
}

// NormIn is the predicate "normalize-space(path) = v1 or … = vk"; more than one node is a dynamic error.
func NormIn(path string, values ...string) Pred {
	p := P(path)
	return func(c *Ctx, n xmltree.NodeID) bool {
		v := c.NormOf(n, p)
		for _, w := range values {
			if v == w {
				return true
			}
		}
		return false
	}
}

// EqIn is the predicate "path = v1 or … path = vk" (general comparisons on string values).
func EqIn(path string, values ...string) Pred {
	p := P(path)
	return func(c *Ctx, n xmltree.NodeID) bool {
		return c.Any(n, p, func(x xmltree.NodeID) bool {
			s := c.Str(x)
			for _, w := range values {
				if s == w {
					return true
				}
			}
			return false
		})
	}
}
