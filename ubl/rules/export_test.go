package rules

import (
	"fmt"

	"einvoice/ubl/xmltree"
)

// CheckPathCache compares, for every element of a tree and every pattern of a set, the rule the set's
// path cache gives with the rule walking the element's ancestors finds.
func CheckPathCache(s *Set, t *xmltree.Tree) (remembered int, err error) {
	c := newCtx(t)
	paths, table := s.pathsOf(t, make([]int32, t.Len()))
	for n, path := range paths {
		if path == textNode || path == unknown {
			continue
		}
		for i, p := range s.Patterns {
			cached := noMatch
			for _, m := range table.of(path) {
				if int(m.pattern) == i {
					cached = int(m.rule)
				}
			}
			if cached == byWalking {
				continue
			}
			remembered++
			if walked := p.firstMatch(c, xmltree.NodeID(n)); walked != cached {
				return remembered, fmt.Errorf("%s, pattern %s: remembered rule %d, walking finds %d", t.Path(xmltree.NodeID(n)), p.Name, cached, walked)
			}
		}
	}
	return remembered, nil
}
