package xsd

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"einvoice/ubl/xmltree"
)

// Error is one structure error: where and what.
type Error struct {
	Node    xmltree.NodeID
	Line    int
	Message string
}

// MaxErrors bounds how many errors one validation reports; validation stops there.
const MaxErrors = 50

// validator walks one tree.
type validator struct {
	t     *xmltree.Tree
	errs  []Error
	ids   map[string]bool
	learn []*matched // verdicts worked out during this walk, remembered at its end

	ctx     context.Context
	visited int   // elements walked
	stopped error // the context's error, once the walk has seen it done
}

// checkEvery is how many elements the walk visits between two looks at its context.
const checkEvery = 1024

// A content model's verdict on a sequence of child names is the same in every document, so verdicts
// are remembered: matching the children of an element is then one lookup. At most maxVerdicts are
// kept; sequences with names no schema registered are never kept (their numbers belong to one parse).
type matched struct {
	typ   int
	names []xmltree.Name
	decls []match // how each child matched, up to pos
	pos   int     // children matched
	ok    bool    // the model's minimum was met
}

const maxVerdicts = 1 << 14

var verdicts = struct {
	sync.RWMutex
	byKey map[uint64]*matched
}{byKey: map[uint64]*matched{}}

func verdictKey(typ int, names []xmltree.Name) uint64 {
	h := uint64(14695981039346656037) ^ uint64(typ)
	for _, n := range names {
		h = (h ^ uint64(n)) * 1099511628211
	}
	return h
}

// Validate checks a tree against the schema of its document element and returns the errors (none when
// the document is valid). A document element that is not Invoice, CreditNote or Order in its UBL 2.1
// namespace is itself an error: there is no schema for it. So are a namespace name that is not a URI and
// a text node past 10,000,000 bytes: xmllint, whose verdict is the official one, reports them as errors
// of libxml2's parser.
func Validate(t *xmltree.Tree) []Error {
	errs, _ := ValidateContext(context.Background(), t)
	return errs
}

// ValidateContext is Validate stopping early, with ctx.Err(), once ctx is done.
func ValidateContext(ctx context.Context, t *xmltree.Tree) ([]Error, error) {
	v := &validator{t: t, ctx: ctx}
	root := t.Root()
	if t.Info.NonURILine > 0 {
		v.errs = append(v.errs, Error{Node: root, Line: t.Info.NonURILine, Message: "a namespace name is not a URI"})
	}
	if t.Info.HugeTextLine > 0 {
		v.errs = append(v.errs, Error{Node: root, Line: t.Info.HugeTextLine, Message: "a text node is longer than 10,000,000 bytes, libxml2's limit"})
	}
	known := false
	for _, n := range set.elements {
		if t.Name(root) == n {
			known = true
		}
	}
	if !known {
		q := t.QName(t.Name(root))
		v.fail(root, "no UBL 2.1 schema for the document element {%s}%s", q.Space, q.Local)
		return v.errs, nil
	}
	verdicts.RLock()
	v.element(root, set.global[t.Name(root)], "strict")
	verdicts.RUnlock()
	if len(v.learn) > 0 {
		verdicts.Lock()
		for _, m := range v.learn {
			if len(verdicts.byKey) < maxVerdicts {
				verdicts.byKey[verdictKey(m.typ, m.names)] = m
			}
		}
		verdicts.Unlock()
	}
	if v.stopped != nil {
		return nil, v.stopped
	}
	return v.errs, nil
}

// matchChildren is the verdict of complex type ti's content model on children with the names; the
// caller holds verdicts' read lock.
func (v *validator) matchChildren(ti int, names []xmltree.Name) *matched {
	key := verdictKey(ti, names)
	if m := verdicts.byKey[key]; m != nil && m.typ == ti && slices.Equal(m.names, names) {
		return m
	}
	mt := matcher{t: v.t, names: names, decls: make([]match, len(names))}
	ok := mt.particle(set.complex[ti].content)
	m := &matched{typ: ti, names: names, decls: mt.decls[:mt.pos], pos: mt.pos, ok: ok}
	if !slices.ContainsFunc(names, func(n xmltree.Name) bool { return n >= xmltree.FirstLocalName }) {
		m.names = slices.Clone(names)
		v.learn = append(v.learn, m)
	}
	return m
}

func (v *validator) fail(n xmltree.NodeID, format string, args ...any) {
	if len(v.errs) < MaxErrors {
		v.errs = append(v.errs, Error{Node: n, Line: v.t.Line(n), Message: fmt.Sprintf(format, args...)})
	}
}

// done reports whether the walk ends here: enough errors, or the context done.
func (v *validator) done() bool { return len(v.errs) >= MaxErrors || v.stopped != nil }

// visit counts an element walked, and every checkEvery elements looks at the context.
func (v *validator) visit() {
	if v.visited++; v.visited%checkEvery == 0 {
		v.stopped = v.ctx.Err()
	}
}

func (v *validator) label(n xmltree.NodeID) string {
	q := v.t.QName(v.t.Name(n))
	if p := v.t.Prefix(n); p != "" {
		return p + ":" + q.Local
	}
	return q.Local
}

// element validates n as an instance of complex type ti.
func (v *validator) element(n xmltree.NodeID, ti int, _ string) {
	if v.visit(); v.done() {
		return
	}
	ct := &set.complex[ti]
	if ct.abstract {
		v.fail(n, "element %s has an abstract type", v.label(n))
		return
	}
	v.attributes(n, ct)
	if ct.simple >= 0 {
		if v.t.HasElementChildren(n) {
			v.fail(n, "element %s may contain text only, no elements", v.label(n))
			return
		}
		if msg := set.simple[ct.simple].check(v.t.OwnText(n), true, v); msg != "" {
			v.fail(n, "element %s: %s", v.label(n), msg)
		}
		return
	}
	if !ct.mixed {
		if slices.Contains(v.t.Info.CDATAIn, n) {
			v.fail(n, "element %s may contain elements only, no CDATA section", v.label(n))
		}
		for c := v.t.FirstContent(n); c != xmltree.None; c = v.t.NextContent(c) {
			if v.t.Kind(c) == xmltree.Text && !isSpace(v.t.OwnText(c)) {
				v.fail(n, "element %s may contain elements only, no text", v.label(n))
				break
			}
		}
	}
	kids, names := v.t.ChildElements(n)
	if ct.content == nil {
		if len(kids) > 0 {
			v.fail(kids[0], "element %s is not allowed here: %s has no element content", v.label(kids[0]), v.label(n))
		}
		return
	}
	m := v.matchChildren(ti, names)
	switch {
	case m.pos < len(kids):
		v.fail(kids[m.pos], "element %s is not expected here in %s", v.label(kids[m.pos]), v.label(n))
	case !m.ok:
		v.fail(n, "element %s is incomplete: a required element is missing", v.label(n))
	}
	for i := 0; i < m.pos && !v.done(); i++ {
		d := m.decls[i]
		switch {
		case d.wild != nil:
			v.wildcardElement(kids[i], d.wild.process)
		default:
			v.element(kids[i], d.typ, "strict")
		}
	}
}

// wildcardElement validates an element matched by a wildcard: strict needs a global declaration, lax
// uses one when there is one (and looks at the children laxly otherwise), skip looks no further.
func (v *validator) wildcardElement(n xmltree.NodeID, process string) {
	if process == "skip" {
		return
	}
	if ti, ok := set.global[v.t.Name(n)]; ok {
		v.element(n, ti, process)
		return
	}
	if process == "strict" {
		v.fail(n, "element %s is not declared", v.label(n))
		return
	}
	if v.visit(); v.done() {
		return
	}
	for c := v.t.FirstChild(n); c != xmltree.None; c = v.t.NextSibling(c) {
		v.wildcardElement(c, "lax")
	}
}

// attributes checks every attribute against the type's uses and the required ones are present.
func (v *validator) attributes(n xmltree.NodeID, ct *complexType) {
	attrs := v.t.Attrs(n)
	for _, a := range attrs {
		q := v.t.QName(a.Name)
		if q.Space == nsXSI {
			switch q.Local {
			case "schemaLocation", "noNamespaceSchemaLocation":
				continue
			}
			v.fail(n, "attribute xsi:%s is not supported on %s", q.Local, v.label(n))
			continue
		}
		use := ct.attr(a.Name)
		switch {
		case use != nil && use.use == "prohibited":
			v.fail(n, "attribute %s is not allowed on %s", q.Local, v.label(n))
		case use != nil:
			if msg := set.simple[use.typ].check(v.t.Value(a), false, v); msg != "" {
				v.fail(n, "attribute %s of %s: %s", q.Local, v.label(n), msg)
			}
		case ct.anyAttr != nil && ct.anyAttr.allows(q.Space):
			if ct.anyAttr.process == "strict" {
				v.fail(n, "attribute %s of %s is not declared", q.Local, v.label(n))
			}
		default:
			v.fail(n, "attribute %s is not allowed on %s", q.Local, v.label(n))
		}
	}
	for _, name := range ct.required {
		if _, ok := v.t.Attr(n, name); !ok {
			v.fail(n, "attribute %s is required on %s", v.t.QName(name).Local, v.label(n))
		}
	}
}

func (ct *complexType) attr(name xmltree.Name) *attrUse {
	for i := range ct.attrs {
		if ct.attrs[i].name == name {
			return &ct.attrs[i]
		}
	}
	return nil
}

// match is how one child was matched: by an element declaration (its type) or by a wildcard.
type match struct {
	typ  int
	wild *wildcard
}

// matcher matches children against a content model greedily. The UBL, XMLDSig and XAdES models obey the
// Unique Particle Attribution rule, so a greedy match never needs to back out of a choice it made.
type matcher struct {
	t     *xmltree.Tree
	names []xmltree.Name // the children's
	pos   int
	decls []match
}

// particle consumes as many children as p admits and reports whether p's minimum was met.
func (m *matcher) particle(p *particle) bool {
	count := 0
	for p.max < 0 || count < p.max {
		start := m.pos
		if !m.once(p) {
			m.pos = start
			break
		}
		count++
		if m.pos == start { // an empty iteration: more of them change nothing
			count = max(count, p.min)
			break
		}
	}
	return count >= p.min
}

// once matches one occurrence of p.
func (m *matcher) once(p *particle) bool {
	switch p.kind {
	case pRef, pEl:
		if m.pos >= len(m.names) || m.names[m.pos] != p.name {
			return false
		}
		m.decls[m.pos] = match{typ: p.typ}
		m.pos++
		return true
	case pAny:
		if m.pos >= len(m.names) || !p.wild.allows(m.t.QName(m.names[m.pos]).Space) {
			return false
		}
		m.decls[m.pos] = match{wild: &p.wild}
		m.pos++
		return true
	case pSeq:
		for _, item := range p.items {
			if !m.particle(item) {
				return false
			}
		}
		return true
	case pChoice:
		emptyOK := false
		for _, item := range p.items {
			start := m.pos
			if m.particle(item) {
				if m.pos > start {
					return true
				}
				emptyOK = true
			}
			m.pos = start
		}
		return emptyOK
	case pAll:
		seen := make([]bool, len(p.items))
		for progress := true; progress; {
			progress = false
			for i, item := range p.items {
				start := m.pos
				if !seen[i] && m.once(item) && m.pos > start {
					seen[i], progress = true, true
				}
			}
		}
		for i, item := range p.items {
			if !seen[i] && item.min > 0 {
				return false
			}
		}
		return true
	}
	return false
}

func isSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}
