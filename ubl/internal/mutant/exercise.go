// Package mutant makes variants of UBL documents that ubltest.Variants' small random edits do not:
// Exercise aims its variants at one assert of a rule inventory, so that rules no corpus document fires
// are compared too; Respell writes a document in other forms XML allows for the same content. With the
// official rules' transcription (ubl/internal/oracle) they let the rule engine's tests compare it with
// the official rules on documents no one has written by hand. Tests only: nothing in the product uses
// it.
package mutant

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// Exercise makes variants of doc aimed at one assert of a rule inventory, from the assert's context and
// test as the inventory writes them (namespaces: the inventory's prefixes):
//   - a test that something is absent (not(cbc:X/cbc:Y), not(//@a)) gets a variant where it is present;
//   - a test that allows one at most (count(p) <= 1) gets one with two;
//   - a test that bounds a value's length (matches(., '^(.{1,N})$')) gets values at and past the bound,
//     an empty one, one on two lines and ones in characters of two, three and four bytes;
//   - a test that reads a tagged value (starts-with(normalize-space(.), '#TAG#')) gets tagged values
//     well and badly formed, and the tag twice;
//   - a test that is a path (cbc:ID, @schemeID), or asks that paths exist, gets a variant without them;
//   - not(@*:schemaLocation) gets a schema location;
//   - any other test gets each path it puts to not() or exists() made and taken away; and the string
//     literals it compares with, a value no code list has, and, where it reads numbers, decimals and
//     digit strings of the forms patterns refuse, in the elements and attributes it names.
//
// The variant edits the first element the context selects (see contextElement), made when the document
// has none; a context ending in * gets an element no schema has. A document whose document element no
// alternative of the context names, or that binds an inventory prefix's namespace to no prefix it can
// use, gives no variant.
func Exercise(doc []byte, context, test string, namespaces map[string]string) [][]byte {
	x := &exercise{namespaces: namespaces}
	var out [][]byte
	for _, edit := range x.edits(strings.TrimSpace(test)) {
		d := etree.NewDocument()
		if d.ReadFromBytes(doc) != nil || d.Root() == nil {
			return nil
		}
		x.root = d.Root()
		e := x.contextElement(context)
		if e == nil || !edit(e) {
			continue
		}
		if b, err := d.WriteToBytes(); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// edits are the edits of the context element, one per variant, that put a test to work.
func (x *exercise) edits(test string) []func(*etree.Element) bool {
	var edits []func(*etree.Element) bool
	switch {
	case strings.Contains(test, "@*:schemaLocation"):
		edits = append(edits, func(e *etree.Element) bool {
			if x.root.SelectAttr("xmlns:xsi") == nil {
				x.root.CreateAttr("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")
			}
			e.CreateAttr("xsi:schemaLocation", "urn:x x.xsd")
			return true
		})
	case notPathRE.MatchString(test):
		path := notPathRE.FindStringSubmatch(test)[1]
		edits = append(edits, func(e *etree.Element) bool { return x.add(e, path, 1) })
	case countRE.MatchString(test):
		path := countRE.FindStringSubmatch(test)[1]
		edits = append(edits, func(e *etree.Element) bool { return x.add(e, path, 2) })
	case lengthRE.MatchString(test):
		m := lengthRE.FindStringSubmatch(test)
		n, _ := strconv.Atoi(m[2])
		for _, v := range lengthValues(n) {
			edits = append(edits, func(e *etree.Element) bool { return setValue(e, m[1], v) })
		}
	case tagRE.MatchString(test):
		m := tagRE.FindStringSubmatch(test)
		for _, v := range tagValues(m[2]) {
			edits = append(edits, func(e *etree.Element) bool { return setValue(e, m[1], v) })
		}
		if m[1] == "." {
			edits = append(edits, func(e *etree.Element) bool { // the tag twice
				if e.Parent() == nil {
					return false
				}
				e.SetText(tagValues(m[2])[0])
				e.Parent().InsertChildAt(e.Index()+1, e.Copy())
				return true
			})
		}
	case requiredRE.MatchString(test):
		edits = append(edits, func(e *etree.Element) bool { return x.remove(e, test) })
	case existsRE.MatchString(test):
		paths := existsPathRE.FindAllStringSubmatch(test, -1)
		edits = append(edits, func(e *etree.Element) bool {
			removed := false
			for _, p := range paths {
				removed = x.remove(e, p[1]) || removed
			}
			return removed
		})
	default:
		names := nameRE.FindAllString(test, -1)
		values := append(literals(test), "ZZ", "")
		if strings.Contains(test, `\d`) || strings.Contains(test, "xs:decimal") {
			values = append(numbers, values...) // castable as decimals, so that no other rule stops on them
		}
		if strings.Contains(test, "[0-9]") {
			values = append(digitStrings, values...)
		}
		for i, lit := range values {
			if i == 12 {
				break
			}
			if len(names) == 0 {
				edits = append(edits, func(e *etree.Element) bool { return setValue(e, ".", lit) })
				continue
			}
			name := names[i%len(names)]
			edits = append(edits, func(e *etree.Element) bool { return x.setNamed(e, name, lit) })
		}
		for _, m := range nestedRE.FindAllStringSubmatch(test, 4) { // inside a larger test: either way
			edits = append(edits,
				func(e *etree.Element) bool { return x.remove(e, m[1]) },
				func(e *etree.Element) bool { return x.add(e, m[1], 1) })
		}
		for _, attr := range attrRE.FindAllString(test, 2) {
			for _, v := range []string{"ZZ", ""} {
				edits = append(edits, func(e *etree.Element) bool { return setValue(e, attr, v) })
			}
		}
	}
	return edits
}

var (
	simplePath   = `(?://)?@?[A-Za-z][\w.-]*(?::[A-Za-z][\w.-]*)?(?:/@?[A-Za-z][\w.-]*(?::[A-Za-z][\w.-]*)?)*`
	notPathRE    = regexp.MustCompile(`^\(?\s*not\(\s*(` + simplePath + `)\s*\)\s*\)?$`)
	countRE      = regexp.MustCompile(`^\(?\s*count\(\s*(` + simplePath + `)\s*\)\s*<=\s*1\s*\)?$`)
	lengthRE     = regexp.MustCompile(`matches\(\s*(\.|@[\w:]+)\s*,\s*'\^\(\.\{1,(\d+)\}\)\$'\s*\)`)
	tagRE        = regexp.MustCompile(`starts-with\(\s*normalize-space\(\s*(\.|@[\w:]+)\s*\)\s*,\s*'(#[A-Z@]+[#-])'\s*\)`)
	requiredRE   = regexp.MustCompile(`^(` + simplePath + `)$`)
	existsRE     = regexp.MustCompile(`^\(?\s*exists\(\s*` + simplePath + `\s*\)(?:\s+or\s+exists\(\s*` + simplePath + `\s*\))*\s*\)?$`)
	nestedRE     = regexp.MustCompile(`\b(?:not|exists)\(\s*(` + simplePath + `)\s*\)`)
	existsPathRE = regexp.MustCompile(`exists\(\s*(` + simplePath + `)\s*\)`)
	nameRE       = regexp.MustCompile(`\b(?:cbc|cac):[A-Za-z]+`)
	attrRE       = regexp.MustCompile(`@[A-Za-z]+\b`)
	literalRE    = regexp.MustCompile(`'([^']*)'`)
)

// exercise is what the edits of one variant share: the inventory's prefixes and the variant's
// document element.
type exercise struct {
	namespaces map[string]string
	root       *etree.Element
}

// numbers are decimals in the forms number patterns refuse: no fraction, one fraction digit, many,
// a sign, too many integer digits; and a percentage past 100.
var numbers = []string{"1", "1.5", "1.123", "-1.00", "+1.00", "12345678901234.00", "1.123456789", "0.00", "150.00"}

// digitStrings are identifiers of digits, of the lengths identifier schemes use, whose check digits
// are mostly wrong.
var digitStrings = []string{"12345678", "0123456789", "12345678901", "12345678901234567890"}

// lengthValues are values at and past a bound of n characters, and ones no bound allows.
func lengthValues(n int) []string {
	return []string{
		strings.Repeat("a", n), strings.Repeat("a", n+1), strings.Repeat("ç", n), strings.Repeat("€", n+1),
		strings.Repeat("😀", n), "", "a\nb", " ",
	}
}

// tagValues are tagged values, the first one well formed: tag is "#TAG#" or "#TAG-" (numbered).
func tagValues(tag string) []string {
	long := strings.Repeat("x", 151)
	if strings.HasSuffix(tag, "-") {
		return []string{tag + "001#EUR#", tag + "1#EUR#", tag + "001#EUR", tag + "001#", tag + "abc#EUR#",
			tag + "001#" + long + "#", tag + "001#1.00#", tag + "001#IRS#", tag + "001#IRF#", " " + tag + "001#EUR#"}
	}
	return []string{tag + "EUR#", tag + "EUR", tag + "#", tag + " EUR #", tag + "x#y#", tag + long + "#",
		tag + "1.5#", tag + "2021-01-01#", " " + tag + "EUR#", tag + "EUR#\n"}
}

// literals are the distinct string literals of an XPath expression.
func literals(test string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range literalRE.FindAllStringSubmatch(test, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// setValue sets the element's text (".") or one of its attributes ("@name").
func setValue(e *etree.Element, target, v string) bool {
	if target == "." {
		if len(e.ChildElements()) > 0 {
			return false
		}
		e.SetText(v)
		return true
	}
	e.CreateAttr(strings.TrimPrefix(target, "@"), v)
	return true
}

// setNamed sets the text of the first element named name within e (e itself included), made as a child
// of e when there is none.
func (x *exercise) setNamed(e *etree.Element, name, v string) bool {
	space, local, ok := x.resolve(name)
	if !ok {
		return false
	}
	var found *etree.Element
	walk(e, func(d *etree.Element) bool {
		if found == nil && d.NamespaceURI() == space && d.Tag == local {
			found = d
		}
		return found == nil
	})
	if found == nil {
		if found = x.create(e, name); found == nil {
			return false
		}
	}
	if len(found.ChildElements()) > 0 {
		return false
	}
	found.SetText(v)
	return true
}

// add makes a path under e, times times: element steps are made as new children, a last step @a is
// set on the last element, and //@a is set on e's first element with no element children.
func (x *exercise) add(e *etree.Element, path string, times int) bool {
	if attr, ok := strings.CutPrefix(path, "//@"); ok {
		leaf := e
		for len(leaf.ChildElements()) > 0 {
			leaf = leaf.ChildElements()[0]
		}
		leaf.CreateAttr(attr, "1")
		return true
	}
	path = strings.TrimPrefix(path, "//")
	steps := strings.Split(path, "/")
	attr := ""
	if last := steps[len(steps)-1]; strings.HasPrefix(last, "@") {
		attr, steps = last[1:], steps[:len(steps)-1]
	}
	for range times {
		at := e
		for _, s := range steps {
			if at = x.create(at, s); at == nil {
				return false
			}
		}
		if attr != "" {
			at.CreateAttr(attr, "1")
		} else if len(steps) > 0 {
			at.SetText("1")
		}
	}
	return true
}

// remove takes away what a path selects below e: the elements of its last element step, or the
// attribute of a last @ step.
func (x *exercise) remove(e *etree.Element, path string) bool {
	steps := strings.Split(path, "/")
	at := []*etree.Element{e}
	for i, s := range steps {
		if attr, ok := strings.CutPrefix(s, "@"); ok {
			removed := false
			for _, a := range at {
				removed = a.RemoveAttr(attr) != nil || removed
			}
			return removed && i == len(steps)-1
		}
		space, local, ok := x.resolve(s)
		if !ok {
			return false
		}
		var next []*etree.Element
		for _, a := range at {
			for _, c := range a.ChildElements() {
				if c.NamespaceURI() == space && c.Tag == local {
					next = append(next, c)
				}
			}
		}
		if i == len(steps)-1 {
			for _, c := range next {
				c.Parent().RemoveChild(c)
			}
			return len(next) > 0
		}
		at = next
	}
	return false
}

// create makes an element named as an inventory step (prefix:local) the last child of parent.
func (x *exercise) create(parent *etree.Element, step string) *etree.Element {
	prefix, ok := x.prefixFor(step)
	if !ok {
		return nil
	}
	_, local, _ := strings.Cut(step, ":")
	if prefix == "" {
		return parent.CreateElement(local)
	}
	return parent.CreateElement(prefix + ":" + local)
}

// prefixFor is the document's prefix for the namespace of an inventory step's prefix, declared on the
// document element when the document has none.
func (x *exercise) prefixFor(step string) (string, bool) {
	space, _, ok := x.resolve(step)
	if !ok {
		return "", false
	}
	if x.root.NamespaceURI() == space && x.root.Space == "" {
		return "", true
	}
	for _, a := range x.root.Attr {
		if a.Space == "xmlns" && a.Value == space {
			return a.Key, true
		}
	}
	prefix, _, _ := strings.Cut(step, ":")
	if x.root.SelectAttr("xmlns:"+prefix) != nil {
		return "", false // the prefix is taken by another namespace
	}
	x.root.CreateAttr("xmlns:"+prefix, space)
	return prefix, true
}

// resolve is the namespace and local name of an inventory name (prefix:local).
func (x *exercise) resolve(name string) (space, local string, ok bool) {
	prefix, local, found := strings.Cut(name, ":")
	if !found {
		return "", "", false
	}
	space, ok = x.namespaces[prefix]
	return space, local, ok
}

// contextElement is the first element an alternative of the context selects; when none does, the first
// alternative that fits the document is made. Of a step's predicate only a first comparison of a child
// path with a literal ([cbc:ChargeIndicator = 'false'], [normalize-space(cbc:ID) = 'AA' or ...]) is
// kept: found elements must meet it, made ones are made to.
func (x *exercise) contextElement(context string) *etree.Element {
	var fits [][]step
	for _, alt := range splitTop(context, '|') {
		alt = strings.TrimSpace(alt)
		anchored := strings.HasPrefix(alt, "/")
		var steps []step
		for _, s := range splitTop(strings.TrimLeft(alt, "/"), '/') {
			st := step{name: strings.TrimSpace(s)}
			if j := strings.IndexByte(s, '['); j >= 0 {
				st.name = strings.TrimSpace(s[:j])
				if m := predicateRE.FindStringSubmatch(s[j:]); m != nil {
					st.path, st.value = m[1], m[2]
				}
			}
			if _, _, ok := x.resolve(st.name); !ok && st.name != "*" {
				steps = nil
				break
			}
			steps = append(steps, st)
		}
		if len(steps) == 0 {
			continue
		}
		if anchored && !x.named(x.root, steps[0].name) {
			continue
		}
		fits = append(fits, steps)
		if steps[len(steps)-1].name == "*" {
			continue // any element: one no earlier rule takes is made below
		}
		var found *etree.Element
		walk(x.root, func(e *etree.Element) bool {
			if found == nil && x.endsWith(e, steps, anchored) {
				found = e
			}
			return found == nil
		})
		if found != nil {
			return found
		}
	}
	if len(fits) == 0 {
		return nil
	}
	steps, at := fits[0], x.root
	if x.named(x.root, steps[0].name) {
		steps = steps[1:]
	}
	for _, st := range steps {
		var next *etree.Element
		for _, c := range at.ChildElements() {
			if st.name != "*" && x.named(c, st.name) && x.meets(c, st) {
				next = c
				break
			}
		}
		if next == nil {
			name := st.name
			if name == "*" {
				name = "cbc:Unexpected"
			}
			if next = x.create(at, name); next == nil {
				return nil
			}
			if attr, ok := strings.CutPrefix(st.path, "@"); ok {
				next.CreateAttr(attr, st.value)
			} else if st.path != "" {
				leaf := next
				for _, s := range strings.Split(st.path, "/") {
					if leaf = x.create(leaf, s); leaf == nil {
						return nil
					}
				}
				leaf.SetText(st.value)
			}
		}
		at = next
	}
	return at
}

// step is a step of a context: an element name and what is kept of its predicate.
type step struct {
	name        string
	path, value string // the predicate: the child path and the literal it equals ("" for none)
}

var predicateRE = regexp.MustCompile(`^\[\s*\(?\s*(?:normalize-space\(\s*)?((?:(?:cbc|cac):\w+/)*(?:cbc|cac):\w+|@\w+)\s*\)?\s*=\s*'([^']*)'`)

// named reports whether e has an inventory name.
func (x *exercise) named(e *etree.Element, name string) bool {
	space, local, ok := x.resolve(name)
	return ok && e.NamespaceURI() == space && e.Tag == local
}

// meets reports whether e meets a step's predicate: an element at its path has its literal as value.
func (x *exercise) meets(e *etree.Element, st step) bool {
	if st.path == "" {
		return true
	}
	if attr, ok := strings.CutPrefix(st.path, "@"); ok {
		return e.SelectAttrValue(attr, "") == st.value
	}
	at := []*etree.Element{e}
	for _, s := range strings.Split(st.path, "/") {
		var next []*etree.Element
		for _, a := range at {
			for _, c := range a.ChildElements() {
				if x.named(c, s) {
					next = append(next, c)
				}
			}
		}
		at = next
	}
	for _, a := range at {
		if strings.TrimSpace(a.Text()) == st.value {
			return true
		}
	}
	return false
}

// endsWith reports whether e and its ancestors are named as the steps and meet their predicates, from
// the document element when anchored.
func (x *exercise) endsWith(e *etree.Element, steps []step, anchored bool) bool {
	for i := len(steps) - 1; i >= 0; i-- {
		if e == nil || !x.named(e, steps[i].name) || !x.meets(e, steps[i]) {
			return false
		}
		e = e.Parent()
		if e != nil && e.Tag == "" { // the document itself
			e = nil
		}
	}
	return !anchored || e == nil
}

// walk visits e and its descendants in document order while visit returns true.
func walk(e *etree.Element, visit func(*etree.Element) bool) bool {
	if !visit(e) {
		return false
	}
	for _, c := range e.ChildElements() {
		if !walk(c, visit) {
			return false
		}
	}
	return true
}

// splitTop splits s at sep outside brackets, parentheses and quotes.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
