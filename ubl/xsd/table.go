// Package xsd validates the structure of UBL 2.1 documents (Invoice, CreditNote, Order) exactly as the
// official OASIS schemas do under libxml2: element names and namespaces, order and cardinality,
// attributes, and the lexical form of values. The schemas themselves are not carried: gen/ compiles
// them into ubl21.tbl, which is embedded and loaded at start-up. Loading also registers every name of
// the schema set with xmltree, so that parsing gives known elements their global numbers.
package xsd

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"einvoice/ubl/xmltree"
)

//go:generate go run ./gen/cmd -xsd ../../../shared/conformance/ubl-2.1/xsdrt -out ubl21.tbl

//go:embed ubl21.tbl
var tableText string

// builtin is a built-in XSD simple type.
type builtin uint8

const (
	bString builtin = iota
	bNormalizedString
	bToken
	bLanguage
	bNCName
	bName
	bNMTOKEN
	bID
	bIDREF
	bAnyURI
	bBase64
	bHex
	bBoolean
	bDecimal
	bInteger
	bNonNegativeInteger
	bPositiveInteger
	bInt
	bDouble
	bDate
	bTime
	bDateTime
	bQName
	bAnySimple
)

var builtinNames = map[string]builtin{
	"string": bString, "normalizedString": bNormalizedString, "token": bToken, "language": bLanguage,
	"NCName": bNCName, "Name": bName, "NMTOKEN": bNMTOKEN, "ID": bID, "IDREF": bIDREF, "anyURI": bAnyURI,
	"base64Binary": bBase64, "hexBinary": bHex, "boolean": bBoolean, "decimal": bDecimal, "integer": bInteger,
	"nonNegativeInteger": bNonNegativeInteger, "positiveInteger": bPositiveInteger, "int": bInt, "double": bDouble,
	"date": bDate, "time": bTime, "dateTime": bDateTime, "QName": bQName, "anySimpleType": bAnySimple,
}

type simpleType struct {
	name string
	base builtin
	enum []string
}

type attrUse struct {
	name xmltree.Name
	typ  int
	use  string // required, optional, prohibited
}

type particleKind uint8

const (
	pSeq particleKind = iota
	pChoice
	pAll
	pRef // a global element
	pEl  // a local element
	pAny
)

type wildcard struct {
	process string   // strict, lax, skip
	spaces  []string // "*" any, "!ns" not ns (nor absent), "" absent, else a namespace
}

type particle struct {
	kind     particleKind
	min, max int // max -1: unbounded
	name     xmltree.Name
	typ      int // pEl: the local element's type; pRef: the global element's type
	wild     wildcard
	items    []*particle
}

type complexType struct {
	name     string
	abstract bool
	mixed    bool
	simple   int // simple content type, -1 for element content
	content  *particle
	attrs    []attrUse
	required []xmltree.Name // the attributes whose use is required
	anyAttr  *wildcard
}

// schemaSet is the loaded table.
type schemaSet struct {
	simple   []simpleType
	complex  []complexType
	global   map[xmltree.Name]int // element → complex type
	names    []xmltree.Name       // table name index → registered Name
	elements []xmltree.Name       // the document elements: Invoice, CreditNote, Order

	particles []particle // the block newParticle takes from
}

var set = mustLoad(tableText)

// Namespaces of the document elements.
const (
	NSInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	NSCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	NSOrder      = "urn:oasis:names:specification:ubl:schema:xsd:Order-2"
	nsXSI        = "http://www.w3.org/2001/XMLSchema-instance"
)

func mustLoad(text string) *schemaSet {
	s, err := load(text)
	if err != nil {
		panic("xsd: embedded table: " + err.Error())
	}
	return s
}

func load(text string) (*schemaSet, error) {
	s := &schemaSet{
		names:   make([]xmltree.Name, 0, strings.Count(text, "\nN ")),
		simple:  make([]simpleType, 0, strings.Count(text, "\nS ")),
		complex: make([]complexType, 0, strings.Count(text, "\nC ")),
		global:  make(map[xmltree.Name]int, strings.Count(text, "\nE ")),
	}
	line := 0
	for l := range strings.Lines(text) {
		line++
		l = strings.TrimRight(l, "\r\n")
		if l == "" || l[0] == '#' {
			continue
		}
		kind, rest, _ := strings.Cut(l, " ")
		_, rest, _ = strings.Cut(rest, " ") // the index: lines come in order
		var err error
		switch kind {
		case "N":
			var space string
			space, rest, err = unquote(rest)
			s.names = append(s.names, xmltree.Register(space, strings.TrimSpace(rest)))
		case "S":
			err = s.addSimple(rest)
		case "C":
			err = s.addComplex(rest)
		case "E": // the name's index, not a record index, then the type
			name, typ := word(l[2:])
			s.global[s.names[atoi(name)]] = atoi(strings.TrimSpace(typ))
		default:
			err = fmt.Errorf("unknown record %q", kind)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	// References to global elements take the element's type now, so matching needs no lookup.
	var resolve func(p *particle)
	resolve = func(p *particle) {
		if p.kind == pRef {
			p.typ = s.global[p.name]
		}
		for _, item := range p.items {
			resolve(item)
		}
	}
	for i := range s.complex {
		if s.complex[i].content != nil {
			resolve(s.complex[i].content)
		}
	}
	for _, space := range []string{NSInvoice, NSCreditNote, NSOrder} {
		local := space[strings.LastIndex(space, ":")+1 : len(space)-2]
		n, ok := xmltree.Lookup(space, local)
		if !ok {
			return nil, fmt.Errorf("document element %s missing", local)
		}
		s.elements = append(s.elements, n)
	}
	return s, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// unquote reads a Go-quoted string at the start of s.
func unquote(s string) (string, string, error) {
	s = strings.TrimLeft(s, " ")
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", err
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err
}

func (s *schemaSet) addSimple(rest string) error {
	name, enumPart, hasEnum := strings.Cut(rest, " enum ")
	b, ok := builtinNames[strings.TrimSpace(name)]
	if !ok {
		return fmt.Errorf("unknown built-in %q", name)
	}
	st := simpleType{name: "xs:" + strings.TrimSpace(name), base: b}
	for hasEnum && strings.TrimSpace(enumPart) != "" {
		v, r, err := unquote(enumPart)
		if err != nil {
			return err
		}
		st.enum = append(st.enum, v)
		enumPart = r
	}
	s.simple = append(s.simple, st)
	return nil
}

func (s *schemaSet) addComplex(rest string) error {
	head, attrs, _ := strings.Cut(rest, ";")
	ct := complexType{simple: -1}
	ct.name, head = word(head)
	for head != "" {
		var w string
		switch w, head = word(head); w {
		case "abstract":
			ct.abstract = true
		case "mixed":
			ct.mixed = true
		case "simple":
			w, head = word(head)
			ct.simple = atoi(w)
		case "any": // anyType
			ct.mixed = true
			ct.content = &particle{kind: pAny, min: 0, max: -1, wild: wildcard{process: "lax", spaces: []string{"*"}}}
			ct.anyAttr = &wildcard{process: "lax", spaces: []string{"*"}}
		case "content":
			p, _, err := s.parseParticle(head)
			if err != nil {
				return err
			}
			ct.content, head = p, ""
		}
	}
	ct.attrs = make([]attrUse, 0, strings.Count(attrs, "attr "))
	for attrs != "" {
		var w string
		switch w, attrs = word(attrs); w {
		case "attr":
			var name, typ, use string
			name, attrs = word(attrs)
			typ, attrs = word(attrs)
			use, attrs = word(attrs)
			ct.attrs = append(ct.attrs, attrUse{name: s.names[atoi(name)], typ: atoi(typ), use: use})
			if use == "required" {
				ct.required = append(ct.required, s.names[atoi(name)])
			}
		case "anyattr":
			w, attrs = word(attrs)
			wc, err := parseWildcard(w)
			if err != nil {
				return err
			}
			ct.anyAttr = &wc
		}
	}
	s.complex = append(s.complex, ct)
	return nil
}

// word is the first space-separated word of s and what follows it.
func word(s string) (w, rest string) {
	s = strings.TrimLeft(s, " ")
	w, rest, _ = strings.Cut(s, " ")
	return w, rest
}

// newParticle allocates particles a block at a time: the table has thousands, all kept.
func (s *schemaSet) newParticle() *particle {
	if len(s.particles) == cap(s.particles) {
		s.particles = make([]particle, 0, 512)
	}
	s.particles = append(s.particles, particle{})
	return &s.particles[len(s.particles)-1]
}

var groupKinds = map[string]particleKind{"seq": pSeq, "choice": pChoice, "all": pAll}

// particleWord is the first word of t, which ends at a space or a ")", and what follows it.
func particleWord(t string) (w, rest string) {
	t = strings.TrimLeft(t, " ")
	i := strings.IndexAny(t, " )")
	if i < 0 {
		return t, ""
	}
	return t[:i], t[i:]
}

// parseParticle reads one s-expression particle and returns the rest of the text.
func (s *schemaSet) parseParticle(t string) (*particle, string, error) {
	t = strings.TrimLeft(t, " ")
	if !strings.HasPrefix(t, "(") {
		return nil, "", fmt.Errorf("particle expected at %q", t)
	}
	t = t[1:]
	next := func() string { // the next word of the particle
		var w string
		w, t = particleWord(t)
		return w
	}
	p := s.newParticle()
	kind := next()
	p.min, p.max = atoi(next()), atoi(next())
	switch kind {
	case "seq", "choice", "all":
		p.kind = groupKinds[kind]
		for {
			t = strings.TrimLeft(t, " ")
			if strings.HasPrefix(t, ")") {
				break
			}
			item, rest, err := s.parseParticle(t)
			if err != nil {
				return nil, "", err
			}
			p.items = append(p.items, item)
			t = rest
		}
	case "ref":
		p.kind, p.name = pRef, s.names[atoi(next())]
	case "el":
		p.kind, p.name = pEl, s.names[atoi(next())]
		p.typ = atoi(next())
	case "any":
		p.kind = pAny
		w, err := parseWildcard(next())
		if err != nil {
			return nil, "", err
		}
		p.wild = w
	default:
		return nil, "", fmt.Errorf("unknown particle %q", kind)
	}
	t = strings.TrimLeft(t, " ")
	if !strings.HasPrefix(t, ")") {
		return nil, "", fmt.Errorf("unclosed particle at %q", t)
	}
	return p, t[1:], nil
}

// parseWildcard reads process["ns",...].
func parseWildcard(w string) (wildcard, error) {
	process, list, ok := strings.Cut(w, "[")
	if !ok {
		return wildcard{}, fmt.Errorf("bad wildcard %q", w)
	}
	out := wildcard{process: process}
	list = strings.TrimSuffix(list, "]")
	for list != "" {
		v, rest, err := unquote(list)
		if err != nil {
			return wildcard{}, err
		}
		out.spaces = append(out.spaces, v)
		list = strings.TrimPrefix(rest, ",")
	}
	return out, nil
}

// allows reports whether the wildcard admits a namespace.
func (w *wildcard) allows(space string) bool {
	for _, s := range w.spaces {
		switch {
		case s == "*":
			return true
		case strings.HasPrefix(s, "!"):
			if space != s[1:] && space != "" {
				return true
			}
		case s == space:
			return true
		}
	}
	return false
}
