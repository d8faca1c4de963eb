package rules

import (
	"math"

	"einvoice/ubl/xmltree"
)

// A pattern's contexts are merged into one automaton that reads an element and then its ancestors,
// nearest first: the contexts' steps reversed, with shared suffixes shared. Finding an element's first
// matching rule is then one walk up its ancestors, instead of one walk per candidate rule.

// matchState is where the walk stands after reading some steps.
type matchState struct {
	endAnywhere int            // lowest rule whose context is complete here ("a/b", "//a/b"), noRule if none
	endAtRoot   int            // lowest rule complete here if the last element read is the document element ("/a/b")
	lowest      int            // lowest rule complete here or further on: the walk stops where it cannot do better
	named       []*matchEdge   // edges for one name each (several when predicates differ)
	wildcard    []*matchEdge   // "*" edges
	index       [][]*matchEdge // the start state's named edges by Name: it has one per context's last name
}

type matchEdge struct {
	step patternStep
	next *matchState
}

const noRule = math.MaxInt

func newMatchState() *matchState {
	return &matchState{endAnywhere: noRule, endAtRoot: noRule, lowest: noRule}
}

// compileMatcher builds the automaton of the rules' contexts; a rule's index is its rank.
func compileMatcher(rules []*Rule) *matchState {
	start := newMatchState()
	for i, r := range rules {
		for _, alt := range r.Context.alts {
			s := start
			for k := len(alt.steps) - 1; k >= 0; k-- {
				s = s.follow(alt.steps[k])
			}
			if alt.rooted {
				s.endAtRoot = min(s.endAtRoot, i)
			} else {
				s.endAnywhere = min(s.endAnywhere, i)
			}
		}
	}
	start.computeLowest()
	highest := xmltree.Name(0)
	for _, e := range start.named {
		highest = max(highest, e.step.name)
	}
	start.index = make([][]*matchEdge, int(highest)+1)
	for _, e := range start.named {
		start.index[e.step.name] = append(start.index[e.step.name], e)
	}
	return start
}

// follow is the state after step, adding it when new. Steps are the same when name and predicate are.
func (s *matchState) follow(step patternStep) *matchState {
	edges := &s.wildcard
	if !step.any {
		edges = &s.named
	}
	for _, e := range *edges {
		if e.step.name == step.name && e.step.suffix == step.suffix && e.step.space == step.space && e.step.predName == step.predName {
			return e.next
		}
	}
	e := &matchEdge{step: step, next: newMatchState()}
	*edges = append(*edges, e)
	return e.next
}

func (s *matchState) computeLowest() int {
	s.lowest = min(s.endAnywhere, s.endAtRoot)
	for _, e := range s.named {
		s.lowest = min(s.lowest, e.next.computeLowest())
	}
	for _, e := range s.wildcard {
		s.lowest = min(s.lowest, e.next.computeLowest())
	}
	return s.lowest
}

// first is the lowest rule whose context matches n, or noRule.
func (s *matchState) first(c *Ctx, n xmltree.NodeID) int {
	best := noRule
	s.walk(c, n, &best)
	return best
}

// walk reads element x (and then its ancestors) from state s, lowering best as contexts complete.
func (s *matchState) walk(c *Ctx, x xmltree.NodeID, best *int) {
	if x == xmltree.None {
		return
	}
	name := c.t.Name(x)
	s.take(c, x, name, s.namedEdges(name), best)
	s.take(c, x, name, s.wildcard, best)
}

func (s *matchState) namedEdges(name xmltree.Name) []*matchEdge {
	if s.index == nil {
		return s.named
	}
	if int(name) < len(s.index) {
		return s.index[name]
	}
	return nil
}

func (s *matchState) take(c *Ctx, x xmltree.NodeID, name xmltree.Name, edges []*matchEdge, best *int) {
	for _, e := range edges {
		next := e.next
		if next.lowest >= *best || !e.step.matchesName(c.t, name) || e.step.pred != nil && !safely(e.step.pred, c, x) {
			continue
		}
		*best = min(*best, next.endAnywhere)
		parent := c.t.Parent(x)
		if parent == xmltree.None {
			*best = min(*best, next.endAtRoot)
		}
		next.walk(c, parent, best)
	}
}

// firstByNames is first for an element known only by its name and its ancestors' names (nearest
// first, the document element last). ok is false when a context's predicate would have to decide:
// the answer then depends on the document, not on the names alone.
func (s *matchState) firstByNames(t *xmltree.Tree, names []xmltree.Name) (rule int, ok bool) {
	best := noRule
	ok = s.walkNames(t, names, &best)
	return best, ok
}

func (s *matchState) walkNames(t *xmltree.Tree, names []xmltree.Name, best *int) bool {
	if len(names) == 0 {
		return true
	}
	for _, edges := range [2][]*matchEdge{s.namedEdges(names[0]), s.wildcard} {
		for _, e := range edges {
			next := e.next
			if next.lowest >= *best || !e.step.matchesName(t, names[0]) {
				continue
			}
			if e.step.pred != nil {
				return false
			}
			*best = min(*best, next.endAnywhere)
			if len(names) == 1 {
				*best = min(*best, next.endAtRoot)
			}
			if !next.walkNames(t, names[1:], best) {
				return false
			}
		}
	}
	return true
}
