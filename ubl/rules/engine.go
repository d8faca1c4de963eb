// Package rules runs business-rule sets (Schematron-style) over parsed UBL documents. A rule set is a
// list of patterns; a pattern is a list of rules; a rule has a context (which elements it applies to)
// and asserts (Go tests with their rule id, flag and messages). As in Schematron, every pattern walks
// all elements in document order and checks each element with the first of its rules whose context
// matches; patterns are independent. Tests use the helpers of Ctx, which follow XPath 2.0's value rules,
// including its dynamic errors: a test that would make the official XSLT fail makes the whole
// evaluation fail, with no verdict, as the official validator does.
//
// Rule sets live in sub-packages (ciuspt, peppol); adding a profile is adding a set.
package rules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"einvoice/ubl/xmltree"
)

// Flag is a finding's severity: only fatal findings reject a document.
type Flag uint8

// Flags.
const (
	Fatal Flag = iota
	Warning
)

func (f Flag) String() string {
	if f == Warning {
		return "warning"
	}
	return "fatal"
}

// Assert is one rule id's test.
type Assert struct {
	ID     string
	Flag   Flag
	Report bool // a report fires when its test holds; an assert when it does not
	PT, EN string
	Test   func(c *Ctx, n xmltree.NodeID) bool

	// Members and Fired make the assert a family of asserts decided together (as the UBL-CR rules,
	// which one look at the document decides): Fired calls fire with each member that fires, in
	// order, and Test is not used.
	Members []*Assert
	Fired   func(c *Ctx, n xmltree.NodeID, fire func(*Assert))

	once     sync.Once
	messages [2]string // Portuguese and English, made once
}

// Message is the assert's text in a language, beginning with "[ID]-".
func (a *Assert) Message(lang string) string {
	a.once.Do(func() { a.messages = [2]string{"[" + a.ID + "]-" + a.PT, "[" + a.ID + "]-" + a.EN} })
	if lang == "en" {
		return a.messages[1]
	}
	return a.messages[0]
}

// Rule is a context and the asserts checked on every element it matches.
type Rule struct {
	Context *Context
	Asserts []*Assert
}

// check is an assert reduced to what running it needs.
type check struct {
	test   func(c *Ctx, n xmltree.NodeID) bool
	fired  func(c *Ctx, n xmltree.NodeID, fire func(*Assert))
	report bool
	assert *Assert
}

// Pattern is an independent group of rules: an element is checked by its first matching rule only.
type Pattern struct {
	Name  string
	Rules []*Rule

	matcher *matchState // the rules' contexts merged into one automaton
	checks  [][]check   // by rule: its asserts as the engine runs them (all rules' in one array)
}

// Set is a rule set for one profile.
type Set struct {
	Name     string
	Patterns []*Pattern

	paths pathCache
}

// Finding is one fired assert on one element.
type Finding struct {
	Assert *Assert
	Node   xmltree.NodeID
}

// ErrBlanksNeeded means a test read as text an element with element children in a tree parsed without
// the whitespace between elements (xmltree.Parse): the set must run again on the tree of
// xmltree.ParseKeepingBlanks. Indented documents that follow the schema never need it. It is not a
// DynamicError, so no recovery meant for those (safely) swallows it.
var ErrBlanksNeeded = errors.New("rules: the document must be parsed with its whitespace between elements")

// DynamicError is an XPath dynamic error: the official validator stops and gives no verdict.
type DynamicError struct{ Msg string }

func (e *DynamicError) Error() string { return "no verdict: " + e.Msg }

func dynamicError(format string, args ...any) {
	panic(&DynamicError{Msg: fmt.Sprintf(format, args...)})
}

// NewSet compiles the patterns of a rule set.
func NewSet(name string, patterns ...*Pattern) *Set {
	for _, p := range patterns {
		p.matcher = compileMatcher(p.Rules)
		var all []check
		for _, r := range p.Rules {
			for _, a := range r.Asserts {
				all = append(all, check{test: a.Test, fired: a.Fired, report: a.Report, assert: a})
			}
		}
		p.checks = make([][]check, len(p.Rules))
		for i, r := range p.Rules {
			p.checks[i], all = all[:len(r.Asserts):len(r.Asserts)], all[len(r.Asserts):]
		}
	}
	return &Set{Name: name, Patterns: patterns}
}

// Run evaluates the set on a tree. A DynamicError means there is no verdict (findings are then nil).
func (s *Set) Run(t *xmltree.Tree) (findings []Finding, err error) {
	return s.RunContext(context.Background(), t)
}

// checkEvery is how many elements a set checks between two looks at its context: often enough to stop
// soon after a deadline, seldom enough to cost nothing measurable.
const checkEvery = 1024

// RunContext is Run stopping early, with ctx.Err() and no findings, once ctx is done.
func (s *Set) RunContext(ctx context.Context, t *xmltree.Tree) (findings []Finding, err error) {
	c := newCtx(t)
	defer c.release()
	defer func() {
		if r := recover(); r != nil {
			if r == ErrBlanksNeeded {
				findings, err = nil, ErrBlanksNeeded
				return
			}
			de, ok := r.(*DynamicError)
			if !ok {
				panic(r)
			}
			findings, err = nil, de
		}
	}()
	paths, table := s.pathsOf(t, slices.Grow(c.paths[:0], t.Len())[:t.Len()])
	c.paths = paths
	// One pass lists, for each pattern, the elements it has a rule for (or must walk to know).
	patterns := len(s.Patterns)
	for len(c.work) < patterns {
		c.work = append(c.work, nil)
	}
	work := c.work[:patterns]
	for i := range work {
		work[i] = work[i][:0]
	}
	for n, path := range paths {
		switch path {
		case textNode:
		case unknown:
			for i := range work {
				work[i] = append(work[i], int32(n), byWalking)
			}
		default:
			for _, m := range table.of(path) {
				work[m.pattern] = append(work[m.pattern], int32(n), m.rule)
			}
		}
	}
	steps := 0
	for i, p := range s.Patterns {
		for k := 0; k < len(work[i]); k += 2 {
			if steps++; steps%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			n, rule := xmltree.NodeID(work[i][k]), int(work[i][k+1])
			if rule == byWalking {
				if rule = p.firstMatch(c, n); rule == noMatch {
					continue
				}
			}
			c.resetLocal()
			c.node = n
			checks := p.checks[rule]
			for k := range checks {
				a := &checks[k]
				if a.fired != nil {
					a.fired(c, n, c.fire)
				} else if a.test(c, n) == a.report {
					c.found = append(c.found, Finding{Assert: a.assert, Node: n})
				}
			}
		}
	}
	if len(c.found) == 0 {
		return nil, nil
	}
	return slices.Clone(c.found), nil // one allocation of the right size; c.found stays with the context
}

// firstMatch is the first rule of the pattern (in rule order) whose context matches n, or noMatch.
func (p *Pattern) firstMatch(c *Ctx, n xmltree.NodeID) int {
	if best := p.matcher.first(c, n); best < len(p.Rules) {
		return best
	}
	return noMatch
}

// Context is a union of path patterns, as "a/b | //c/d".
type Context struct {
	text string
	alts []pathPattern
}

type pathPattern struct {
	rooted bool // starts at the document element ("/a/b")
	steps  []patternStep
}

type patternStep struct {
	name     xmltree.Name
	any      bool
	suffix   string // with any: only elements whose local name ends so ("*BinaryObject")
	space    string // with any: only elements of this namespace ("cbc:*"), "" for all
	pred     Pred
	predName string // tells predicates apart when contexts are merged
}

// matchesName reports whether an element of the name passes the step's name test (not its predicate).
func (st *patternStep) matchesName(t *xmltree.Tree, name xmltree.Name) bool {
	if !st.any {
		return st.name == name
	}
	q := t.QName(name)
	return (st.space == "" || q.Space == st.space) && (st.suffix == "" || strings.HasSuffix(q.Local, st.suffix))
}

// Pred is a named predicate a context step may carry: "cac:AllowanceCharge[allowance]".
type Pred func(c *Ctx, n xmltree.NodeID) bool

// NewContext compiles a context. Steps are "prefix:Local", "*", "prefix:*" (any element of the prefix's
// namespace) or "*Suffix" (any element whose local name ends with Suffix), each optionally followed by
// "[name]" naming a predicate of preds; alternatives are separated by "|"; a leading "/" anchors at the
// document element, a leading "//" (or none) matches anywhere. Steps without predicates depend on names
// only, which lets a set remember where each path of names matches.
func NewContext(text string, preds map[string]Pred) *Context {
	c := &Context{text: text, alts: make([]pathPattern, 0, strings.Count(text, "|")+1)}
	for _, alt := range strings.Split(text, "|") {
		alt = strings.TrimSpace(alt)
		pp := pathPattern{}
		switch {
		case strings.HasPrefix(alt, "//"):
			alt = alt[2:]
		case strings.HasPrefix(alt, "/"):
			pp.rooted, alt = true, alt[1:]
		}
		pp.steps = make([]patternStep, 0, strings.Count(alt, "/")+1)
		for _, s := range strings.Split(alt, "/") {
			st := patternStep{}
			if name, pred, ok := strings.Cut(s, "["); ok {
				s = name
				p := preds[strings.TrimSuffix(pred, "]")]
				if p == nil {
					panic("rules: unknown predicate " + pred + " in " + text)
				}
				st.pred, st.predName = p, pred
			}
			if suffix, ok := strings.CutPrefix(s, "*"); ok {
				st.any, st.suffix = true, suffix
			} else if prefix, ok := strings.CutSuffix(s, ":*"); ok {
				if st.any, st.space = true, prefixes[prefix]; st.space == "" {
					panic("rules: unknown prefix in " + s)
				}
			} else {
				st.name = MustName(s)
			}
			pp.steps = append(pp.steps, st)
		}
		c.alts = append(c.alts, pp)
	}
	return c
}

// safely evaluates a context predicate. XSLT 2.0 makes a dynamic error while matching a pattern
// recoverable, and the recovery (Saxon's default) is that the pattern does not match.
func safely(p Pred, c *Ctx, n xmltree.NodeID) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, dyn := r.(*DynamicError); !dyn {
				panic(r)
			}
			ok = false
		}
	}()
	return p(c, n)
}
