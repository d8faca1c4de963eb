package rules

import (
	"slices"
	"sync"

	"einvoice/ubl/xmltree"
)

// A set remembers, for each element path documents have shown (the names from the document element
// down to the element), the rule each pattern matches there. Most elements of a document then find
// their rules with one lookup instead of one walk up their ancestors per pattern. Paths through
// elements whose names no schema registered, and contexts whose predicates must look at the document,
// are matched by walking, as before.

// pathCache numbers paths and keeps their rules. Entries are only ever added, at most maxPaths.
type pathCache struct {
	mu     sync.RWMutex
	roots  []pathChild    // the paths of document elements, by name
	kids   [][]pathChild  // by path: the paths one element longer, by name
	parent []int32        // by path: its parent path, -1 for a document element
	name   []xmltree.Name // by path: its last name
	rules  ruleTable      // by path: the patterns with a rule there (or byWalking), in pattern order
}

// ruleTable is the patterns' rules by path, all paths' in one array (an element's rules are read
// from a few cache lines, not from an allocation of their own): path p's are list[at[p]:at[p+1]].
type ruleTable struct {
	at   []int32
	list []patternRule
}

func (r ruleTable) of(path int32) []patternRule { return r.list[r.at[path]:r.at[path+1]] }

// patternRule is a pattern's rule for a path: its index in the pattern, or byWalking.
type patternRule struct{ pattern, rule int32 }

// pathChild is a path one name longer than another.
type pathChild struct {
	name xmltree.Name
	path int32
}

// childPath finds the path one name longer in a list sorted by name.
func childPath(list []pathChild, name xmltree.Name) (int, bool) {
	lo, hi := 0, len(list)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid].name < name {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(list) && list[lo].name == name
}

const (
	maxPaths  = 1 << 16
	noMatch   = -1
	byWalking = -2 // a predicate decides: walk the element's ancestors in the document
	textNode  = -1 // in pathsOf's result: not an element
	unknown   = -2 // in pathsOf's result: an element whose path is not remembered
)

// pathsOf numbers the paths of a tree's elements, remembering those not seen before. It returns each
// node's path (or textNode, unknown) and the rules by path to read them in.
func (s *Set) pathsOf(t *xmltree.Tree, paths []int32) ([]int32, ruleTable) {
	pc := &s.paths
	locked := false
	pc.mu.RLock()
	for i := range paths {
		n := xmltree.NodeID(i)
		if t.Kind(n) != xmltree.Element {
			paths[i] = textNode
			continue
		}
		parent, name := int32(-1), t.Name(n)
		if p := t.Parent(n); p != xmltree.None {
			parent = paths[p]
		}
		if parent == unknown || name >= xmltree.FirstLocalName {
			paths[i] = unknown
			continue
		}
		at, ok := childPath(*pc.children(parent), name)
		if !ok && !locked {
			pc.mu.RUnlock()
			pc.mu.Lock()
			locked = true
			// Another document may have added paths in between, moving pc.kids: look again.
			at, ok = childPath(*pc.children(parent), name)
		}
		list := pc.children(parent)
		if ok {
			paths[i] = (*list)[at].path
		} else {
			paths[i] = s.addPath(t, list, at, parent, name)
		}
	}
	rules := pc.rules
	if locked {
		pc.mu.Unlock()
	} else {
		pc.mu.RUnlock()
	}
	return paths, rules
}

// children is the list of the paths one name longer than parent (-1: the document elements' paths).
func (pc *pathCache) children(parent int32) *[]pathChild {
	if parent < 0 {
		return &pc.roots
	}
	return &pc.kids[parent]
}

// addPath remembers a new path and the rules of its element; the caller holds the write lock.
func (s *Set) addPath(t *xmltree.Tree, list *[]pathChild, at int, parent int32, name xmltree.Name) int32 {
	pc := &s.paths
	if len(pc.parent) >= maxPaths {
		return unknown
	}
	id := int32(len(pc.parent))
	*list = slices.Insert(*list, at, pathChild{name, id})
	pc.kids = append(pc.kids, nil)
	pc.parent = append(pc.parent, parent)
	pc.name = append(pc.name, name)
	names := []xmltree.Name{name}
	for p := parent; p >= 0; p = pc.parent[p] {
		names = append(names, pc.name[p])
	}
	r := &pc.rules
	if len(r.at) == 0 {
		r.at = append(r.at, 0)
	}
	for i, p := range s.Patterns {
		rule, ok := p.matcher.firstByNames(t, names)
		switch {
		case !ok:
			r.list = append(r.list, patternRule{int32(i), byWalking})
		case rule != noRule:
			r.list = append(r.list, patternRule{int32(i), int32(rule)})
		}
	}
	r.at = append(r.at, int32(len(r.list)))
	return id
}
