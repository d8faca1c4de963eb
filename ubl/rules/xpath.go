package rules

import (
	"cmp"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"einvoice/ubl/xmltree"
)

// Ctx is the evaluation context of one document: the tree, and values computed once per document or
// once per rule context (the Schematron "let" variables), computed lazily as Saxon does.
type Ctx struct {
	t     *xmltree.Tree
	doc   map[any]any
	local map[any]any
	slots []any

	arena              []xmltree.NodeID // results of path evaluations, kept for the whole document
	scratchA, scratchB []xmltree.NodeID
	memo               []memoEntry // results of paths from the root, by Path.memo
	paths              []int32     // each node's element path in the set's path cache (see pathsOf)
	work               [][]int32   // by pattern: pairs of element and rule (see Set.Run)

	found []Finding       // the findings so far
	node  xmltree.NodeID  // the element being checked
	fire  func(a *Assert) // records a's finding on node (made once: a closure per check would be garbage)
}

// PathID identifies an element's path of names (from the document element down to it) among the paths
// the rule set has seen, the same for every document: a value that depends on the names alone can be
// remembered by it. ok is false when the path has no number (a name no schema registered, or too
// many paths seen).
func (c *Ctx) PathID(n xmltree.NodeID) (id int32, ok bool) {
	if int(n) < len(c.paths) && c.paths[n] >= 0 {
		return c.paths[n], true
	}
	return 0, false
}

// contexts keeps evaluation contexts for reuse: their buffers and maps outlive a document.
var contexts = sync.Pool{New: func() any {
	c := &Ctx{doc: map[any]any{}, arena: make([]xmltree.NodeID, 0, 1024)}
	c.fire = func(a *Assert) { c.found = append(c.found, Finding{Assert: a, Node: c.node}) }
	return c
}}

func newCtx(t *xmltree.Tree) *Ctx {
	c := contexts.Get().(*Ctx)
	c.t = t
	return c
}

// release forgets the document and keeps the context for the next one, unless a large document made
// its buffers large.
func (c *Ctx) release() {
	if cap(c.arena) > 1<<16 || cap(c.paths) > 1<<16 || cap(c.found) > 1<<14 {
		return
	}
	for _, w := range c.work {
		if cap(w) > 1<<16 {
			return
		}
	}
	c.t = nil
	clear(c.doc)
	clear(c.local)
	clear(c.slots)
	clear(c.memo)
	c.arena, c.paths, c.found = c.arena[:0], c.paths[:0], c.found[:0]
	contexts.Put(c)
}

// Slot identifies a per-document value cheaply; make slots with NewSlot at start-up.
type Slot int

var slotCount Slot

// NewSlot returns a new slot (only at start-up: not safe for concurrent use).
func NewSlot() Slot { slotCount++; return slotCount - 1 }

// DocSlot returns a document-level value kept in a slot, computing it on first use.
func DocSlot[T any](c *Ctx, s Slot, compute func() T) T {
	if int(s) < len(c.slots) && c.slots[s] != nil {
		return c.slots[s].(T)
	}
	if int(s) >= len(c.slots) {
		c.slots = append(c.slots, make([]any, int(slotCount)-len(c.slots))...)
	}
	v := compute()
	c.slots[s] = v
	return v
}

func (c *Ctx) resetLocal() { clear(c.local) }

// Tree is the document being evaluated.
func (c *Ctx) Tree() *xmltree.Tree { return c.t }

// Doc returns a document-level value, computing it on first use.
func Doc[T any](c *Ctx, key any, compute func() T) T {
	if v, ok := c.doc[key]; ok {
		return v.(T)
	}
	v := compute()
	c.doc[key] = v
	return v
}

// Local returns a value of the current rule context, computing it on first use.
func Local[T any](c *Ctx, key any, compute func() T) T {
	if c.local == nil {
		c.local = map[any]any{}
	}
	if v, ok := c.local[key]; ok {
		return v.(T)
	}
	v := compute()
	c.local[key] = v
	return v
}

// Nodes returns the nodes p selects from n. The slice belongs to the evaluation: read it, do not
// write to it (appending to it copies).
func (c *Ctx) Nodes(n xmltree.NodeID, p *Path) []xmltree.NodeID { return c.selectNodes(n, p) }

// Exists: exists(p).
func (c *Ctx) Exists(n xmltree.NodeID, p *Path) bool { return c.First(n, p) != xmltree.None }

// Count: count(p). A path of named child steps is counted as it is walked, nothing kept.
func (c *Ctx) Count(n xmltree.NodeID, p *Path) int {
	if p.childOnly && p.noPreds && n != xmltree.None {
		return c.countChildPath(n, p.steps)
	}
	return len(c.selectNodes(n, p))
}

// First is the first node p selects, or None. A path of child steps stops at the first node found.
func (c *Ctx) First(n xmltree.NodeID, p *Path) xmltree.NodeID {
	if p.childOnly && n != xmltree.None {
		return c.firstChildPath(n, p.steps)
	}
	if sel := c.selectNodes(n, p); len(sel) > 0 {
		return sel[0]
	}
	return xmltree.None
}

// Any reports whether some node p selects satisfies f.
func (c *Ctx) Any(n xmltree.NodeID, p *Path, f func(xmltree.NodeID) bool) bool {
	if p.oneName && n != xmltree.None {
		ids, names := c.t.ChildElements(n)
		for i, name := range names {
			if name == p.steps[0].name && f(ids[i]) {
				return true
			}
		}
		return false
	}
	for _, x := range c.selectNodes(n, p) {
		if f(x) {
			return true
		}
	}
	return false
}

// All reports whether every node p selects satisfies f (true for none).
func (c *Ctx) All(n xmltree.NodeID, p *Path, f func(xmltree.NodeID) bool) bool {
	for _, x := range c.selectNodes(n, p) {
		if !f(x) {
			return false
		}
	}
	return true
}

// One is the single node p selects: None for none, a dynamic error for more than one (where XPath
// needs a single item: a cast, arithmetic, a string function).
func (c *Ctx) One(n xmltree.NodeID, p *Path) xmltree.NodeID {
	if p.oneName && n != xmltree.None { // the usual case, "cbc:ID": a look at the children, nothing kept
		ids, names := c.t.ChildElements(n)
		found := xmltree.None
		for i, name := range names {
			if name == p.steps[0].name {
				if found != xmltree.None {
					dynamicError("a sequence of more than one item is not allowed: %s", p)
				}
				found = ids[i]
			}
		}
		return found
	}
	sel := c.selectNodes(n, p)
	switch len(sel) {
	case 0:
		return xmltree.None
	case 1:
		return sel[0]
	}
	dynamicError("a sequence of more than one item is not allowed: %s", p)
	return xmltree.None
}

// Str is the string value of a node ("" for None, as for an empty sequence).
func (c *Ctx) Str(n xmltree.NodeID) string {
	if n == xmltree.None {
		return ""
	}
	if s, ok := c.t.LeafText(n); ok {
		return s
	}
	if !c.t.Exact(n) {
		panic(ErrBlanksNeeded)
	}
	return c.t.StringValue(n)
}

// TextValue is normalize-space(text()): the element's only text child, normalised ("" without one); two
// or more (text around a comment or a child element) are a dynamic error, as XPath needs one item.
func (c *Ctx) TextValue(n xmltree.NodeID) string {
	if s, ok := c.t.LeafText(n); ok {
		return Norm(s)
	}
	if !c.t.Exact(n) {
		panic(ErrBlanksNeeded)
	}
	text := xmltree.None
	for x := c.t.FirstContent(n); x != xmltree.None; x = c.t.NextContent(x) {
		if c.t.Kind(x) == xmltree.Text {
			if text != xmltree.None {
				dynamicError("a sequence of more than one text node is not allowed as the argument of normalize-space()")
			}
			text = x
		}
	}
	if text == xmltree.None {
		return ""
	}
	return Norm(c.t.OwnText(text))
}

// StrOf is string(p) / normalize-space-less value of the single node p selects.
func (c *Ctx) StrOf(n xmltree.NodeID, p *Path) string { return c.Str(c.One(n, p)) }

// NormOf is normalize-space(p).
func (c *Ctx) NormOf(n xmltree.NodeID, p *Path) string { return Norm(c.StrOf(n, p)) }

// Attr is an attribute's value and presence.
func (c *Ctx) Attr(n xmltree.NodeID, name xmltree.Name) (string, bool) {
	if n == xmltree.None {
		return "", false
	}
	return c.t.Attr(n, name)
}

// Eq is the general comparison "p = 'lit'": some selected node's string value equals lit.
func (c *Ctx) Eq(n xmltree.NodeID, p *Path, lit string) bool {
	return c.Any(n, p, func(x xmltree.NodeID) bool { return c.Str(x) == lit })
}

// Norm is XPath normalize-space. A value that is already normal is returned as it is.
func Norm(s string) string {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b <= ' ' && (b == '\t' || b == '\n' || b == '\r' || b == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ')) {
			return normalize(s)
		}
	}
	return s
}

func normalize(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }), " ")
}

// TrimBlanks removes leading and trailing XML whitespace (space, tab, newline, carriage return).
func TrimBlanks(s string) string { return trimRightBlanks(TrimLeftBlanks(s)) }

// TrimLeftBlanks removes leading XML whitespace.
func TrimLeftBlanks(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

func trimRightBlanks(s string) string {
	i := len(s)
	for i > 0 && isBlank(s[i-1]) {
		i--
	}
	return s[:i]
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// Len is string-length: characters, not bytes.
func Len(s string) int { return utf8.RuneCountInString(s) }

// Regexp is a regular expression compiled the first time it is matched: most rules' expressions (the
// tagged notes' with counted repeats among them) are matched on few documents, and compiling them all
// would cost every start of the program a few milliseconds.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// MatchString reports whether s matches.
func (r *Regexp) MatchString(s string) bool {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re.MatchString(s)
}

// Re is a regular expression written with XPath's meaning of "." (neither newline nor carriage
// return) and "\d" (any Unicode decimal digit). Flag "s" makes "." match every character. A syntax
// error panics at once; the expression is compiled when first matched.
func Re(expr string, flags ...string) *Regexp {
	dotAll := len(flags) > 0 && strings.Contains(flags[0], "s")
	var b strings.Builder
	for i := 0; i < len(expr); i++ {
		ch := expr[i]
		switch {
		case ch == '\\' && i+1 < len(expr):
			if expr[i+1] == 'd' {
				b.WriteString(`\p{Nd}`)
			} else {
				b.WriteByte(ch)
				b.WriteByte(expr[i+1])
			}
			i++
		case ch == '.' && !dotAll:
			b.WriteString(`[^\n\r]`)
		case ch == '.':
			b.WriteString(`(?s:.)`)
		default:
			b.WriteByte(ch)
		}
	}
	if _, err := syntax.Parse(b.String(), syntax.Perl); err != nil {
		panic("rules: regular expression " + expr + ": " + err.Error())
	}
	return &Regexp{expr: b.String()}
}

// Double is the cast of a node's untyped value to xs:double, as general comparisons and arithmetic on
// untyped values do; an invalid value is a dynamic error.
func (c *Ctx) Double(n xmltree.NodeID) float64 {
	s := c.Str(n)
	f, ok := ParseDouble(s)
	if !ok {
		dynamicError("cannot convert %q to xs:double", s)
	}
	return f
}

// Number is number(p): NaN for no node or an invalid value.
func (c *Ctx) Number(n xmltree.NodeID, p *Path) float64 {
	x := c.One(n, p)
	if x == xmltree.None {
		return math.NaN()
	}
	f, ok := ParseDouble(c.Str(x))
	if !ok {
		return math.NaN()
	}
	return f
}

// ParseDouble reads the xs:double lexical form (surrounding whitespace allowed).
func ParseDouble(s string) (float64, bool) {
	s = TrimBlanks(s)
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= '0' && ch <= '9' || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// IntCmp is the general comparison of the nodes p selects with an integer literal: true when some
// node's value compares with x as op says ("<", "<=", ">", ">=", "=", "!="), in document order, a value
// that is not a number stopping the evaluation when it is reached (see UntypedCmp).
func (c *Ctx) IntCmp(n xmltree.NodeID, p *Path, op string, x int64) bool {
	for _, y := range c.selectNodes(n, p) {
		if UntypedCmp(c.Str(y), op, float64(x), true) {
			return true
		}
	}
	return false
}

// UntypedCmp compares a node's value s (an xs:untypedAtomic) with a number x as Saxon 9.9's general
// comparison does, which is what the official results follow where XPath leaves room:
//   - against NaN only "!=" holds;
//   - a value written as a plain integer ("-0", "042": an optional minus and up to ten digits) compared
//     with an integer (xInteger) is compared as an integer;
//   - any other value is cast to xs:double (a dynamic error if it cannot be) and the two doubles are
//     ordered as Java orders them: -0 below 0, and NaN above every number.
//
// So "-0.00" = 0 is false and "-0.00" < 0 is true, while "-0" = 0 is true.
func UntypedCmp(s, op string, x float64, xInteger bool) bool {
	if math.IsNaN(x) {
		return op == "!="
	}
	var order int
	if t := TrimBlanks(s); xInteger && plainInteger(t) {
		v, _ := strconv.ParseInt(t, 10, 64)
		order = cmp.Compare(v, int64(x))
	} else {
		f, ok := ParseDouble(s)
		if !ok {
			dynamicError("cannot convert %q to xs:double", s)
		}
		order = javaCompare(f, x)
	}
	switch op {
	case "<":
		return order < 0
	case "<=":
		return order <= 0
	case ">":
		return order > 0
	case ">=":
		return order >= 0
	case "=":
		return order == 0
	case "!=":
		return order != 0
	}
	panic("rules: unknown operator " + op)
}

// plainInteger reports whether s is an optional minus and one to ten digits.
func plainInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 10 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// javaCompare orders two doubles as Java's Double.compare: numerically, then -0 below 0, and NaN above
// everything (y is never NaN here).
func javaCompare(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case math.IsNaN(x):
		return 1
	}
	return cmp.Compare(int64(math.Float64bits(x)), int64(math.Float64bits(y))) // -0 and 0, or equal
}

// Fail raises a dynamic error from a rule's own code (for example a sequence where XPath needs one item).
func Fail(msg string) { dynamicError("%s", msg) }

// RoundDouble is XPath round() on a double: halves towards positive infinity, and from -0.5 up to
// zero the result is negative zero.
func RoundDouble(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r := math.Floor(f + 0.5)
	if r == 0 && math.Signbit(f) {
		return math.Copysign(0, -1)
	}
	return r
}
