package rules

import (
	"strings"

	"einvoice/ubl/xmltree"
	_ "einvoice/ubl/xsd" // registers the UBL 2.1 names MustName looks up
)

// Namespaces by the prefixes rule code uses.
var prefixes = map[string]string{
	"cbc":   "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
	"cac":   "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
	"ext":   "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
	"inv":   "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
	"cn":    "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
	"ord":   "urn:oasis:names:specification:ubl:schema:xsd:Order-2",
	"sig":   "urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2",
	"sac":   "urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2",
	"sbc":   "urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2",
	"ds":    "http://www.w3.org/2000/09/xmldsig#",
	"xades": "http://uri.etsi.org/01903/v1.3.2#",
}

// MustName is the Name of "prefix:Local" (or "local" for an unqualified attribute). The name must be
// one the schema tables registered, so that a typo fails at start-up instead of never matching.
func MustName(q string) xmltree.Name {
	n, ok := xmltree.Lookup(splitName(q))
	if !ok {
		panic("rules: name not in the UBL 2.1 schemas: " + q)
	}
	return n
}

// RegisterName is the Name of a name written as for MustName, registered if the UBL 2.1 schemas do not
// have it: an official rule may name an element no schema declares (cbc:Xpath for cbc:XPath), and a
// document, schema-invalid, may still hold one, which the rule then reports.
func RegisterName(q string) xmltree.Name { return xmltree.Register(splitName(q)) }

// splitName is the namespace and local name of "prefix:Local" or "local"; an unknown prefix panics.
func splitName(q string) (space, local string) {
	p, local, ok := strings.Cut(q, ":")
	if !ok {
		return "", q
	}
	if space = prefixes[p]; space == "" {
		panic("rules: unknown prefix in " + q)
	}
	return space, local
}

type axis uint8

const (
	child axis = iota
	descendant
	parent
	self
)

type pathStep struct {
	axis  axis
	name  xmltree.Name
	any   bool
	pred  Pred
	plain bool // a name and nothing else: not any, no predicate
}

// Path is a compiled location path of child steps ("cac:Party/cbc:Name"), with "..", ".", "*", a
// leading "/" (from the document element's parent, so "/*" is the document element) and "//"
// (descendants). Attributes are read with Ctx.Attr, not paths.
type Path struct {
	text   string
	rooted bool
	steps  []pathStep
	union  []*Path // "a | b": the alternatives, in the order written

	childOnly bool // relative, every step a child step: evaluated by a direct walk
	up        int  // relative, a few parent steps and then only child steps: how many parent steps ("../../cbc:ID")
	noPreds   bool // no step has a predicate (a predicate's own paths would share the arena)
	oneName   bool // one child step naming an element, no predicate: "cbc:ID"
	memo      int  // for a path from the root (the same nodes wherever it is evaluated): its slot in
	// Ctx.memo, where its first result is kept for the document; -1 for the others
}

// memoPaths counts the paths with a memo slot (paths are compiled at start-up only).
var memoPaths int

func (p *Path) assignMemo() {
	rooted := p.rooted
	for _, alt := range p.union {
		rooted = alt.rooted
		if !rooted {
			break
		}
	}
	p.memo = -1
	if rooted {
		p.memo = memoPaths
		memoPaths++
	}
}

// P compiles a path; it panics on a malformed one (rule tables are built at start-up).
func P(text string) *Path { return PWith(text, nil) }

// PWith compiles a path whose steps may name predicates: "cac:PartyTaxScheme[vat]/cbc:CompanyID".
func PWith(text string, preds map[string]Pred) *Path {
	if strings.Contains(text, "|") {
		u := &Path{text: text}
		for _, alt := range strings.Split(text, "|") {
			u.union = append(u.union, PWith(strings.TrimSpace(alt), preds))
		}
		u.assignMemo()
		return u
	}
	p := &Path{text: text}
	rest := text
	nextAxis := child
	switch {
	case strings.HasPrefix(rest, "//"):
		p.rooted, nextAxis, rest = true, descendant, rest[2:]
	case strings.HasPrefix(rest, "/"):
		p.rooted, rest = true, rest[1:]
	}
	for rest != "" {
		var s string
		s, rest, _ = strings.Cut(rest, "/")
		switch s {
		case "":
			nextAxis = descendant
			continue
		case "..":
			p.steps = append(p.steps, pathStep{axis: parent})
		case ".":
			p.steps = append(p.steps, pathStep{axis: self})
		case "*":
			p.steps = append(p.steps, pathStep{axis: nextAxis, any: true})
		default:
			st := pathStep{axis: nextAxis}
			if name, pred, ok := strings.Cut(s, "["); ok {
				s = name
				st.pred = preds[strings.TrimSuffix(pred, "]")]
				if st.pred == nil {
					panic("rules: unknown predicate " + pred + " in " + text)
				}
			}
			if s == "*" {
				st.any = true
			} else {
				st.name = MustName(s)
				if st.axis == descendant {
					xmltree.IndexName(st.name)
				}
			}
			st.plain = !st.any && st.pred == nil
			p.steps = append(p.steps, st)
		}
		nextAxis = child
	}
	p.childOnly = !p.rooted && len(p.steps) > 0
	p.noPreds = true
	for _, st := range p.steps {
		p.childOnly = p.childOnly && st.axis == child
		p.noPreds = p.noPreds && st.pred == nil
	}
	p.oneName = p.childOnly && p.noPreds && len(p.steps) == 1 && !p.steps[0].any
	for p.up < len(p.steps) && p.steps[p.up].axis == parent {
		p.up++
	}
	for _, st := range p.steps[p.up:] {
		if p.rooted || st.axis != child {
			p.up = 0
		}
	}
	p.assignMemo()
	return p
}

func (p *Path) String() string { return p.text }

// selectNodes evaluates the path from n into the document's arena: no allocation once the buffers have
// grown, and the result stays valid for the rest of the document's evaluation.
func (c *Ctx) selectNodes(n xmltree.NodeID, p *Path) []xmltree.NodeID {
	if p.memo >= 0 {
		if p.memo >= len(c.memo) {
			c.memo = append(c.memo, make([]memoEntry, memoPaths-len(c.memo))...)
		}
		if m := &c.memo[p.memo]; m.done {
			return m.nodes
		}
		// A dynamic error in a predicate leaves the slot empty, so that the next evaluation fails again.
		nodes := c.selectAll(n, p)
		c.memo[p.memo] = memoEntry{done: true, nodes: nodes}
		return nodes
	}
	return c.selectAll(n, p)
}

type memoEntry struct {
	done  bool
	nodes []xmltree.NodeID
}

func (c *Ctx) selectAll(n xmltree.NodeID, p *Path) []xmltree.NodeID {
	if p.union != nil {
		// Each alternative leaves its result at the end of the arena, so the union is the run they form.
		start := len(c.arena)
		for _, alt := range p.union {
			c.selectAll(n, alt)
		}
		return c.arena[start:len(c.arena):len(c.arena)]
	}
	if p.childOnly && p.noPreds && n != xmltree.None {
		start := len(c.arena)
		c.collectChildPath(n, p.steps)
		return c.arena[start:len(c.arena):len(c.arena)]
	}
	t := c.t
	if p.up > 0 && p.noPreds && n != xmltree.None {
		x := n
		for i := 0; i < p.up && x != xmltree.None; i++ {
			x = t.Parent(x)
		}
		if x != xmltree.None { // (above the document element, the general walk knows the document node)
			start := len(c.arena)
			if p.up == len(p.steps) {
				c.arena = append(c.arena, x)
			} else {
				c.collectChildPath(x, p.steps[p.up:])
			}
			return c.arena[start:len(c.arena):len(c.arena)]
		}
	}
	// A predicate may evaluate paths of its own: the scratch buffers are taken while in use, so a
	// nested evaluation starts fresh ones instead of overwriting these.
	cur, next := append(c.scratchA[:0], n), c.scratchB[:0]
	c.scratchA, c.scratchB = nil, nil
	if p.rooted {
		cur[0] = xmltree.None // the document node
	}
	for i := range p.steps {
		st := &p.steps[i]
		next = next[:0]
		for _, x := range cur {
			switch st.axis {
			case self:
				next = append(next, x)
			case parent:
				if x != xmltree.None {
					next = append(next, t.Parent(x))
				}
			case child:
				if x == xmltree.None {
					if r := t.Root(); r != xmltree.None && st.matches(c, r) {
						next = append(next, r)
					}
					continue
				}
				ids, names := t.ChildElements(x)
				for i, name := range names {
					if st.takes(c, name, ids[i]) {
						next = append(next, ids[i])
					}
				}
			default: // descendant
				next = c.descendants(x, st, next)
			}
		}
		cur, next = next, cur
	}
	c.scratchA, c.scratchB = cur, next
	start := len(c.arena)
	for _, x := range cur {
		if x != xmltree.None {
			c.arena = append(c.arena, x)
		}
	}
	return c.arena[start:len(c.arena):len(c.arena)]
}

// descendants appends the descendants of x (or of the document) that match the step, in document
// order. Nodes are numbered in document order, so x's descendants are the range up to its subtree's
// end, and a named step only looks at the elements of that name within it.
func (c *Ctx) descendants(x xmltree.NodeID, st *pathStep, out []xmltree.NodeID) []xmltree.NodeID {
	t := c.t
	from, to := xmltree.NodeID(0), xmltree.NodeID(t.Len())
	if x != xmltree.None {
		from, to = x+1, t.SubtreeEnd(x)
	}
	if !st.any {
		for _, y := range t.NamedWithin(st.name, from, to) {
			if st.pred == nil || st.pred(c, y) {
				out = append(out, y)
			}
		}
		return out
	}
	for y := from; y < to; y++ {
		if t.Kind(y) == xmltree.Element && st.matches(c, y) {
			out = append(out, y)
		}
	}
	return out
}

// collectChildPath appends to the arena, in document order, the nodes a path of child steps selects.
func (c *Ctx) collectChildPath(x xmltree.NodeID, steps []pathStep) {
	st := &steps[0]
	ids, names := c.t.ChildElements(x)
	for i, name := range names {
		if !st.takes(c, name, ids[i]) {
			continue
		}
		if len(steps) == 1 {
			c.arena = append(c.arena, ids[i])
		} else {
			c.collectChildPath(ids[i], steps[1:])
		}
	}
}

// countChildPath counts the nodes a path of child steps without predicates selects.
func (c *Ctx) countChildPath(x xmltree.NodeID, steps []pathStep) int {
	st := &steps[0]
	ids, names := c.t.ChildElements(x)
	k := 0
	for i, name := range names {
		if st.takes(c, name, ids[i]) {
			if len(steps) == 1 {
				k++
			} else {
				k += c.countChildPath(ids[i], steps[1:])
			}
		}
	}
	return k
}

// firstChildPath is the first node a path of child steps selects, or None.
func (c *Ctx) firstChildPath(x xmltree.NodeID, steps []pathStep) xmltree.NodeID {
	st := &steps[0]
	ids, names := c.t.ChildElements(x)
	for i, name := range names {
		if !st.takes(c, name, ids[i]) {
			continue
		}
		if len(steps) == 1 {
			return ids[i]
		}
		if y := c.firstChildPath(ids[i], steps[1:]); y != xmltree.None {
			return y
		}
	}
	return xmltree.None
}

func (st *pathStep) matches(c *Ctx, x xmltree.NodeID) bool { return st.takes(c, c.t.Name(x), x) }

// takes reports whether element x, of the name, passes the step; the usual step, a name, is one
// comparison.
func (st *pathStep) takes(c *Ctx, name xmltree.Name, x xmltree.NodeID) bool {
	if st.plain {
		return name == st.name
	}
	return st.takesOther(c, name, x)
}

// takesOther is takes for the other steps, kept out of takes so that takes is inlined in the loops
// over children.
//
//go:noinline
func (st *pathStep) takesOther(c *Ctx, name xmltree.Name, x xmltree.NodeID) bool {
	return (st.any || name == st.name) && (st.pred == nil || st.pred(c, x))
}
