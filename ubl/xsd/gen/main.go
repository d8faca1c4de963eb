// Package gen compiles the official UBL 2.1 schema files into the compact table the xsd package embeds
// (ubl/xsd/ubl21.tbl), so that the product validates structure with no schema file at run time and the
// project carries no copy of the schemas. It reads the three maindoc schemas (Invoice, CreditNote,
// Order) and everything they import, and fails on any construct the validator does not implement.
//
// The command in cmd/ writes the table: go generate ./ubl/xsd.
package gen

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const xsdNS = "http://www.w3.org/2001/XMLSchema"

var maindocs = []string{"maindoc/UBL-Invoice-2.1.xsd", "maindoc/UBL-CreditNote-2.1.xsd", "maindoc/UBL-Order-2.1.xsd"}

// node is a parsed schema element.
type node struct {
	name     xml.Name
	attrs    map[string]string
	children []*node
	ns       map[string]string // prefix → namespace in scope
	schema   *schema
}

func (n *node) attr(k string) string { return n.attrs[k] }

func (n *node) kids(local string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name.Space == xsdNS && c.name.Local == local {
			out = append(out, c)
		}
	}
	return out
}

// schema is one schema document.
type schema struct {
	path         string
	target       string
	qualifiedEl  bool
	qualifiedAtt bool
	root         *node
}

type qname struct{ space, local string }

func (q qname) String() string { return "{" + q.space + "}" + q.local }

// compiler holds every global component of the schema set.
type compiler struct {
	schemas      map[string]*schema
	elements     map[qname]*node
	complexTypes map[qname]*node
	simpleTypes  map[qname]*node
	attributes   map[qname]*node

	// output
	names      []qname
	nameIndex  map[qname]int
	simple     []string // encoded simple types
	simpleIdx  map[string]int
	complex    []string
	complexIdx map[string]int // by key (global type qname or local anonymous id)
	globals    map[qname]int  // element → complex index
}

// Compile reads the schema set under dir and returns the table.
func Compile(dir string) ([]byte, error) {
	c := &compiler{
		schemas: map[string]*schema{}, elements: map[qname]*node{}, complexTypes: map[qname]*node{},
		simpleTypes: map[qname]*node{}, attributes: map[qname]*node{}, nameIndex: map[qname]int{},
		simpleIdx: map[string]int{}, complexIdx: map[string]int{}, globals: map[qname]int{},
	}
	for _, m := range maindocs {
		if err := c.load(filepath.Join(dir, m)); err != nil {
			return nil, err
		}
	}
	// Every global element of the set, in a stable order.
	var keys []qname
	for q := range c.elements {
		keys = append(keys, q)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, q := range keys {
		c.name(q)
	}
	for _, q := range keys {
		t, err := c.elementType(c.elements[q])
		if err != nil {
			return nil, fmt.Errorf("element %s: %w", q, err)
		}
		c.globals[q] = t
	}
	return c.write(), nil
}

func (c *compiler) load(path string) error {
	path = filepath.Clean(path)
	if c.schemas[path] != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	root, err := parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s := &schema{path: path, target: root.attr("targetNamespace"), root: root,
		qualifiedEl: root.attr("elementFormDefault") == "qualified", qualifiedAtt: root.attr("attributeFormDefault") == "qualified"}
	c.schemas[path] = s
	var mark func(n *node)
	mark = func(n *node) {
		n.schema = s
		for _, k := range n.children {
			mark(k)
		}
	}
	mark(root)
	for _, k := range root.children {
		if k.name.Space != xsdNS {
			continue
		}
		q := qname{s.target, k.attr("name")}
		switch k.name.Local {
		case "import", "include":
			if loc := k.attr("schemaLocation"); loc != "" {
				if err := c.load(filepath.Join(filepath.Dir(path), loc)); err != nil {
					return err
				}
			}
		case "element":
			c.elements[q] = k
		case "complexType":
			c.complexTypes[q] = k
		case "simpleType":
			c.simpleTypes[q] = k
		case "attribute":
			c.attributes[q] = k
		case "annotation":
		default:
			return fmt.Errorf("%s: top-level %s is not supported", path, k.name.Local)
		}
	}
	return nil
}

// parse reads a schema document into nodes, keeping the namespace prefixes in scope.
func parse(r io.Reader) (*node, error) {
	d := xml.NewDecoder(r)
	d.Entity = map[string]string{"dsig": "http://www.w3.org/2000/09/xmldsig#"}
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name, attrs: map[string]string{}, ns: map[string]string{}}
			if len(stack) > 0 {
				for k, v := range stack[len(stack)-1].ns {
					n.ns[k] = v
				}
			}
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					n.ns[a.Name.Local] = a.Value
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					n.ns[""] = a.Value
				case a.Name.Space == "":
					n.attrs[a.Name.Local] = a.Value
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// resolve turns a QName attribute value into a qname using the prefixes in scope at n.
func resolve(n *node, v string) qname {
	prefix, local, ok := strings.Cut(v, ":")
	if !ok {
		prefix, local = "", v
	}
	return qname{n.ns[prefix], local}
}

func (c *compiler) name(q qname) int {
	if i, ok := c.nameIndex[q]; ok {
		return i
	}
	c.names = append(c.names, q)
	c.nameIndex[q] = len(c.names) - 1
	return len(c.names) - 1
}

// Built-in simple types the validator implements.
var builtins = map[string]bool{
	"string": true, "normalizedString": true, "token": true, "language": true, "NCName": true, "ID": true,
	"anyURI": true, "base64Binary": true, "hexBinary": true, "boolean": true, "decimal": true, "integer": true,
	"nonNegativeInteger": true, "positiveInteger": true, "int": true, "date": true, "time": true, "dateTime": true,
	"QName": true, "anySimpleType": true, "Name": true, "NMTOKEN": true, "IDREF": true, "double": true,
}

// simpleType returns the index of a simple type: a built-in, or a named or anonymous restriction.
func (c *compiler) simpleType(n *node, q qname) (int, error) {
	if q.space == xsdNS {
		if !builtins[q.local] {
			return 0, fmt.Errorf("built-in type xsd:%s is not supported", q.local)
		}
		return c.addSimple(q.local), nil
	}
	def := c.simpleTypes[q]
	if def == nil {
		return 0, fmt.Errorf("unknown simple type %s", q)
	}
	return c.anonSimple(def)
}

// anonSimple compiles a simpleType element: restriction of a base with enumeration facets only.
func (c *compiler) anonSimple(def *node) (int, error) {
	r := def.kids("restriction")
	if len(r) != 1 {
		return 0, fmt.Errorf("simple type %q: only restriction is supported", def.attr("name"))
	}
	base, err := c.simpleType(r[0], resolve(r[0], r[0].attr("base")))
	if err != nil {
		return 0, err
	}
	enc := c.simple[base]
	var enums []string
	for _, f := range r[0].children {
		switch {
		case f.name.Local == "enumeration":
			enums = append(enums, strconv.Quote(f.attr("value")))
		case f.name.Local == "annotation":
		default:
			return 0, fmt.Errorf("simple type %q: facet %s is not supported", def.attr("name"), f.name.Local)
		}
	}
	if len(enums) > 0 {
		enc += " enum " + strings.Join(enums, " ")
	}
	return c.addSimple(enc), nil
}

func (c *compiler) addSimple(enc string) int {
	if i, ok := c.simpleIdx[enc]; ok {
		return i
	}
	c.simple = append(c.simple, enc)
	c.simpleIdx[enc] = len(c.simple) - 1
	return len(c.simple) - 1
}

// elementType returns the complex-type index of an element declaration.
func (c *compiler) elementType(el *node) (int, error) {
	for _, k := range []string{"substitutionGroup", "nillable", "default", "fixed", "block", "final"} {
		if el.attr(k) != "" {
			return 0, fmt.Errorf("element attribute %s is not supported", k)
		}
	}
	if t := el.attr("type"); t != "" {
		q := resolve(el, t)
		if c.complexTypes[q] != nil {
			return c.complexType(q.String(), c.complexTypes[q])
		}
		st, err := c.simpleType(el, q)
		if err != nil {
			return 0, err
		}
		return c.addComplex("simple:"+strconv.Itoa(st), fmt.Sprintf("%s simple %d", q.local, st))
	}
	if ct := el.kids("complexType"); len(ct) == 1 {
		return c.complexType(fmt.Sprintf("anon:%p", ct[0]), ct[0])
	}
	if st := el.kids("simpleType"); len(st) == 1 {
		i, err := c.anonSimple(st[0])
		if err != nil {
			return 0, err
		}
		return c.addComplex("simple:"+strconv.Itoa(i), fmt.Sprintf("anonymous simple %d", i))
	}
	// No type: xs:anyType.
	return c.addComplex("anyType", "anyType any")
}

func (c *compiler) addComplex(key, enc string) (int, error) {
	if i, ok := c.complexIdx[key]; ok {
		return i, nil
	}
	c.complex = append(c.complex, enc)
	c.complexIdx[key] = len(c.complex) - 1
	return len(c.complex) - 1, nil
}

// complexType compiles a complex type into one line:
//
//	name [abstract] [mixed] simple <s> | content <particle>; attrs <name type use>...; anyattr <wild>
func (c *compiler) complexType(key string, def *node) (int, error) {
	if i, ok := c.complexIdx[key]; ok {
		return i, nil
	}
	// Reserve the index first: content models may refer back to this type.
	i, _ := c.addComplex(key, "")
	name := def.attr("name")
	if name == "" {
		name = "anonymous"
	}
	head := []string{name}
	if def.attr("abstract") == "true" {
		head = append(head, "abstract")
	}
	if def.attr("mixed") == "true" {
		head = append(head, "mixed")
	}
	var body, attrs []string
	var err error
	switch {
	case len(def.kids("simpleContent")) == 1:
		body, attrs, err = c.simpleContent(def.kids("simpleContent")[0])
	case len(def.kids("complexContent")) == 1:
		body, attrs, err = c.complexContent(def.kids("complexContent")[0])
	default:
		body, attrs, err = c.contentOf(def)
	}
	if err != nil {
		return 0, fmt.Errorf("complex type %s: %w", name, err)
	}
	c.complex[i] = strings.Join(append(head, body...), " ") + " ;" + strings.Join(attrs, "")
	return i, nil
}

// contentOf compiles the particle and attributes directly inside a complexType or extension.
func (c *compiler) contentOf(def *node) ([]string, []string, error) {
	var body []string
	for _, k := range def.children {
		switch k.name.Local {
		case "sequence", "choice", "all":
			p, err := c.particle(k)
			if err != nil {
				return nil, nil, err
			}
			body = append(body, "content", p)
		case "group":
			return nil, nil, fmt.Errorf("model groups are not supported")
		}
	}
	attrs, err := c.attributesOf(def)
	return body, attrs, err
}

func (c *compiler) attributesOf(def *node) ([]string, error) {
	var out []string
	for _, k := range def.children {
		switch k.name.Local {
		case "attribute":
			a, err := c.attribute(k)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		case "anyAttribute":
			out = append(out, " anyattr "+wildcard(k))
		case "attributeGroup":
			return nil, fmt.Errorf("attribute groups are not supported")
		}
	}
	return out, nil
}

// attribute compiles one attribute use: " attr <name> <simple> required|optional|prohibited".
func (c *compiler) attribute(a *node) (string, error) {
	for _, k := range []string{"default", "fixed"} {
		if a.attr(k) != "" {
			return "", fmt.Errorf("attribute %s is not supported", k)
		}
	}
	if ref := a.attr("ref"); ref != "" {
		q := resolve(a, ref)
		g := c.attributes[q]
		if g == nil {
			return "", fmt.Errorf("unknown attribute %s", q)
		}
		st, err := c.attrType(g)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(" attr %d %d %s", c.name(q), st, use(a)), nil
	}
	space := ""
	if a.attr("form") == "qualified" || a.attr("form") == "" && a.schema.qualifiedAtt {
		space = a.schema.target
	}
	st, err := c.attrType(a)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(" attr %d %d %s", c.name(qname{space, a.attr("name")}), st, use(a)), nil
}

func (c *compiler) attrType(a *node) (int, error) {
	if t := a.attr("type"); t != "" {
		return c.simpleType(a, resolve(a, t))
	}
	if st := a.kids("simpleType"); len(st) == 1 {
		return c.anonSimple(st[0])
	}
	return c.addSimple("anySimpleType"), nil
}

func use(a *node) string {
	if u := a.attr("use"); u != "" {
		return u
	}
	return "optional"
}

// simpleContent: extension or restriction of a simple type or of another simple-content type.
func (c *compiler) simpleContent(sc *node) ([]string, []string, error) {
	der := append(sc.kids("extension"), sc.kids("restriction")...)
	if len(der) != 1 {
		return nil, nil, fmt.Errorf("simpleContent without one derivation")
	}
	d := der[0]
	base := resolve(d, d.attr("base"))
	own, err := c.attributesOf(d)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range d.children {
		if k.name.Local != "attribute" && k.name.Local != "annotation" && k.name.Local != "anyAttribute" {
			return nil, nil, fmt.Errorf("simpleContent facet %s is not supported", k.name.Local)
		}
	}
	if bt := c.complexTypes[base]; bt != nil {
		bi, err := c.complexType(base.String(), bt)
		if err != nil {
			return nil, nil, err
		}
		line := c.complex[bi]
		_, battrs, _ := strings.Cut(line, ";")
		fields := strings.Fields(line)
		simple := ""
		for i, f := range fields {
			if f == "simple" {
				simple = fields[i+1]
			}
		}
		if simple == "" {
			return nil, nil, fmt.Errorf("%s derives from a type without simple content", base)
		}
		return []string{"simple", simple}, mergeAttrs(battrs, own), nil
	}
	st, err := c.simpleType(d, base)
	if err != nil {
		return nil, nil, err
	}
	return []string{"simple", strconv.Itoa(st)}, own, nil
}

// mergeAttrs applies a derivation's attribute uses over its base's: same name replaces.
func mergeAttrs(base string, own []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range own {
		seen[strings.Fields(a)[1]] = true
	}
	for _, part := range strings.Split(base, " attr ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.HasPrefix(part, "anyattr") {
			out = append(out, " "+part)
			continue
		}
		if !seen[strings.Fields(part)[0]] {
			out = append(out, " attr "+part)
		}
	}
	return append(out, own...)
}

// baseType is the index of the complex type a derivation names as its base.
func (c *compiler) baseType(base qname) (int, error) {
	bt := c.complexTypes[base]
	if bt == nil {
		return 0, fmt.Errorf("unknown base %s", base)
	}
	return c.complexType(base.String(), bt)
}

// complexContent: extension of a complex type (base content, then the extension's) or restriction (the
// restriction's own content; attributes inherited unless redeclared).
func (c *compiler) complexContent(cc *node) ([]string, []string, error) {
	if r := cc.kids("restriction"); len(r) == 1 {
		bi, err := c.baseType(resolve(r[0], r[0].attr("base")))
		if err != nil {
			return nil, nil, err
		}
		_, baseAttrs, _ := strings.Cut(c.complex[bi], ";")
		body, own, err := c.contentOf(r[0])
		if err != nil {
			return nil, nil, err
		}
		return body, mergeAttrs(baseAttrs, own), nil
	}
	ext := cc.kids("extension")
	if len(ext) != 1 {
		return nil, nil, fmt.Errorf("complexContent without one derivation")
	}
	d := ext[0]
	base := resolve(d, d.attr("base"))
	var baseParticle string
	var baseAttrs string
	if base != (qname{xsdNS, "anyType"}) {
		bi, err := c.baseType(base)
		if err != nil {
			return nil, nil, err
		}
		head, attrs, _ := strings.Cut(c.complex[bi], ";")
		baseAttrs = attrs
		if _, p, ok := strings.Cut(head, " content "); ok {
			baseParticle = p
		}
	}
	body, own, err := c.contentOf(d)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case baseParticle != "" && len(body) > 0:
		body = []string{"content", "(seq 1 1 " + baseParticle + " " + body[1] + ")"}
	case baseParticle != "":
		body = []string{"content", baseParticle}
	}
	return body, mergeAttrs(baseAttrs, own), nil
}

// particle compiles a model group or element or wildcard into an s-expression:
//
//	(seq min max p...) (choice min max p...) (el min max name type) (any min max wild)
func (c *compiler) particle(p *node) (string, error) {
	min, max := occurs(p)
	switch p.name.Local {
	case "sequence", "choice", "all":
		kind := map[string]string{"sequence": "seq", "choice": "choice", "all": "all"}[p.name.Local]
		parts := []string{"(" + kind, min, max}
		for _, k := range p.children {
			if k.name.Local == "annotation" {
				continue
			}
			s, err := c.particle(k)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ") + ")", nil
	case "element":
		if ref := p.attr("ref"); ref != "" {
			q := resolve(p, ref)
			if c.elements[q] == nil {
				return "", fmt.Errorf("unknown element %s", q)
			}
			return fmt.Sprintf("(ref %s %s %d)", min, max, c.name(q)), nil
		}
		space := ""
		if p.attr("form") == "qualified" || p.attr("form") == "" && p.schema.qualifiedEl {
			space = p.schema.target
		}
		q := qname{space, p.attr("name")}
		t, err := c.elementType(p)
		if err != nil {
			return "", fmt.Errorf("local element %s: %w", q, err)
		}
		return fmt.Sprintf("(el %s %s %d %d)", min, max, c.name(q), t), nil
	case "any":
		return fmt.Sprintf("(any %s %s %s)", min, max, wildcard(p)), nil
	}
	return "", fmt.Errorf("particle %s is not supported", p.name.Local)
}

func occurs(p *node) (string, string) {
	min, max := p.attr("minOccurs"), p.attr("maxOccurs")
	if min == "" {
		min = "1"
	}
	switch max {
	case "":
		max = "1"
	case "unbounded":
		max = "-1"
	}
	return min, max
}

// wildcard encodes a namespace constraint and processContents: process|ns,ns (##other → "!target").
func wildcard(w *node) string {
	process := w.attr("processContents")
	if process == "" {
		process = "strict"
	}
	var spaces []string
	nsAttr := w.attr("namespace")
	if nsAttr == "" {
		nsAttr = "##any"
	}
	for _, s := range strings.Fields(nsAttr) {
		switch s {
		case "##any":
			spaces = append(spaces, "*")
		case "##other":
			spaces = append(spaces, "!"+w.schema.target)
		case "##targetNamespace":
			spaces = append(spaces, w.schema.target)
		case "##local":
			spaces = append(spaces, "")
		default:
			spaces = append(spaces, s)
		}
	}
	quoted := make([]string, len(spaces))
	for i, s := range spaces {
		quoted[i] = strconv.Quote(s)
	}
	return process + "[" + strings.Join(quoted, ",") + "]"
}

// write renders the table: a header, then the names, simple types, complex types and global elements.
func (c *compiler) write() []byte {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	fmt.Fprintln(w, "# UBL 2.1 structure table, generated by ubl/xsd/gen from the OASIS UBL 2.1 OS xsdrt schemas")
	fmt.Fprintln(w, "# (Invoice, CreditNote, Order and what they import). Regenerate; do not edit.")
	for i, q := range c.names {
		fmt.Fprintf(w, "N %d %s %s\n", i, strconv.Quote(q.space), q.local)
	}
	for i, s := range c.simple {
		fmt.Fprintf(w, "S %d %s\n", i, s)
	}
	for i, s := range c.complex {
		fmt.Fprintf(w, "C %d %s\n", i, s)
	}
	var keys []qname
	for q := range c.globals {
		keys = append(keys, q)
	}
	sort.Slice(keys, func(i, j int) bool { return c.nameIndex[keys[i]] < c.nameIndex[keys[j]] })
	for _, q := range keys {
		fmt.Fprintf(w, "E %d %d\n", c.nameIndex[q], c.globals[q])
	}
	w.Flush()
	return []byte(b.String())
}
