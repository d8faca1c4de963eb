package xmltree

/*
#cgo pkg-config: libxml-2.0
#cgo CFLAGS: -O3
#include <stdlib.h>
#include "sax.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

func init() {
	C.einv_init()
	// The C side writes nodes and attributes in the layouts of node and Attr: check that they agree.
	var size, attrSize C.size_t
	var offsets [15]C.size_t
	C.einv_layout(&size, &attrSize, &offsets[0])
	var n node
	var a Attr
	want := [15]uintptr{unsafe.Offsetof(n.name), unsafe.Offsetof(n.prefix), unsafe.Offsetof(n.depth), unsafe.Offsetof(n.line),
		unsafe.Offsetof(n.parent), unsafe.Offsetof(n.firstChild), unsafe.Offsetof(n.nextSibling), unsafe.Offsetof(n.firstElem),
		unsafe.Offsetof(n.nextElem), unsafe.Offsetof(n.last), unsafe.Offsetof(n.start), unsafe.Offsetof(n.end),
		unsafe.Offsetof(a.Name), unsafe.Offsetof(a.start), unsafe.Offsetof(a.end)}
	for i, o := range want {
		if uintptr(offsets[i]) != o || uintptr(size) != unsafe.Sizeof(n) || uintptr(attrSize) != unsafe.Sizeof(a) {
			panic("xmltree: the C and Go node layouts differ")
		}
	}
}

// Limits bound what a parse may take.
type Limits struct {
	MaxBytes int // largest document
	MaxDepth int // deepest element nesting
	MaxText  int // longest run of character data in one node
}

// DefaultLimits suit e-invoices with embedded attachments.
var DefaultLimits = Limits{MaxBytes: 64 << 20, MaxDepth: 128, MaxText: 48 << 20}

// Attributes, whatever the limits. libxml2 checks that no attribute of a tag is written twice by
// comparing each with every one before it: a tag with n attributes (namespace declarations included)
// costs it n²/2 comparisons. An element may have at most MaxAttributes attributes and
// MaxNamespaceDeclarations namespace declarations (xmlns and xmlns:prefix attributes), and the elements
// with more than CrowdedElement attributes and declarations may have at most MaxCrowdedAttributes in
// all: far more than any e-invoice has (a UBL element has a handful, a document element a few dozen
// declarations), and little enough that libxml2 reads them in milliseconds. A document with an element
// past the first two is refused before libxml2 reads its first element.
const (
	MaxAttributes            = 1000
	MaxNamespaceDeclarations = 1000
	CrowdedElement           = 64
	MaxCrowdedAttributes     = 10_000
)

// MaxNameBytes bounds the distinct names of a document, whatever the limits: element, attribute and
// processing-instruction names as written, namespace prefixes and names, and the names of a document
// type declaration take at most about this many bytes (libxml2 keeps them in blocks, and stops at the
// first block that would pass it). A UBL invoice has a few kilobytes of them; libxml2 (before 2.12)
// takes time quadratic in the number of distinct names it holds.
const MaxNameBytes = 64 << 10

// ErrorKind classifies why a document could not be parsed.
type ErrorKind string

// Kinds of parse errors.
const (
	NotWellFormed ErrorKind = "not-well-formed"
	TooLarge      ErrorKind = "too-large"
	TooDeep       ErrorKind = "too-deep"
	TextTooLong   ErrorKind = "text-too-long"
	DoctypeFound  ErrorKind = "doctype"
	// TooManyAttributes: an element past MaxAttributes, or crowded elements past MaxCrowdedAttributes;
	// TooManyNamespaces: an element past MaxNamespaceDeclarations; TooManyNames: past MaxNameBytes.
	TooManyAttributes ErrorKind = "too-many-attributes"
	TooManyNamespaces ErrorKind = "too-many-namespaces"
	TooManyNames      ErrorKind = "too-many-names"
	Empty             ErrorKind = "empty"
)

// Error is a document that could not be parsed.
type Error struct {
	Kind    ErrorKind
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

// Parse reads a document. A document that is not well-formed (including namespace errors), has a
// DOCTYPE that names an external DTD or declares entities or attribute defaults, or passes a limit
// (those of lim, and the attributes and names every document is held to) is an *Error; a well-formed one is a *Tree (a bare DOCTYPE, read as the official tools read it, is noted in
// Info.Doctype). Whitespace between elements is left out of the tree (Tree.Exact tells where that
// matters).
func Parse(data []byte, lim Limits) (*Tree, error) { return parse(data, lim, false) }

// ParseKeepingBlanks is Parse with every whitespace run between elements kept as a text node: the
// tree XPath sees, for the rare document where an element with element children is read as text.
func ParseKeepingBlanks(data []byte, lim Limits) (*Tree, error) { return parse(data, lim, true) }

func parse(data []byte, lim Limits, keepBlanks bool) (*Tree, error) {
	if len(data) == 0 {
		return nil, &Error{Kind: Empty, Message: "the document is empty"}
	}
	if len(data) > lim.MaxBytes {
		return nil, &Error{Kind: TooLarge, Message: fmt.Sprintf("the document has %d bytes; at most %d are accepted", len(data), lim.MaxBytes)}
	}
	p, err := takeParser()
	if err != nil {
		return nil, err
	}
	t, err := p.parse(data, lim, keepBlanks)
	if pe, ok := err.(*Error); ok && pe.Kind == TooManyNames && p.parses > 1 {
		// A parser kept from earlier documents holds their names too: a fresh one reads the document
		// again, so that the verdict depends on the document alone.
		p.free()
		if p, err = newParser(); err != nil {
			return nil, err
		}
		t, err = p.parse(data, lim, keepBlanks)
	}
	if err != nil || len(p.seen) > maxKeptNames || p.result.kept_bytes > maxKeptBytes {
		// After a failure the parser's state is not worth trusting; a parser that learnt too many names,
		// or whose buffers grew for a large document, costs memory as long as it is kept.
		p.free()
	} else {
		giveBack(p)
	}
	return t, err
}

// parser is a libxml2 parser kept between documents, with what the Go side knows of its name numbers.
type parser struct {
	c           *C.einv_parser
	result      *C.einv_result // what the last parse gave, in C memory (a Go local would escape to the heap)
	seen        []seenName     // by the C side's name number - 1
	names       []docName      // the same, resolved against the registry as it stood at registered names
	registered  int
	local       []QName // names nobody registered, by Name-FirstLocalName (shared with the trees, only appended to)
	localIndex  map[QName]Name
	prefixes    []string // prefixes seen, index 0 = none (shared with the trees, only appended to)
	prefixIndex map[string]uint16
	parses      int // documents it has read
}

type seenName struct {
	QName
	prefix string
}

type docName struct {
	name   Name
	prefix uint16
}

// Parsers kept for reuse, and how many names a parser may know, and how many bytes its buffers may
// hold, before it is dropped instead.
var (
	parsers        = make(chan *parser, 16)
	errOutOfMemory = errors.New("xmltree: out of memory")
)

const (
	maxKeptNames = 8192
	maxKeptBytes = 8 << 20
)

func takeParser() (*parser, error) {
	select {
	case p := <-parsers:
		return p, nil
	default:
		return newParser()
	}
}

func newParser() (*parser, error) {
	c := C.einv_parser_new()
	r := (*C.einv_result)(C.calloc(1, C.sizeof_einv_result))
	if c == nil || r == nil {
		C.einv_parser_free(c)
		C.free(unsafe.Pointer(r))
		return nil, errOutOfMemory
	}
	return &parser{c: c, result: r, prefixes: []string{""}, prefixIndex: map[string]uint16{"": 0}, localIndex: map[QName]Name{}}, nil
}

func giveBack(p *parser) {
	select {
	case parsers <- p:
	default:
		p.free()
	}
}

func (p *parser) free() {
	C.einv_parser_free(p.c)
	C.free(unsafe.Pointer(p.result))
}

// readOnly has libxml2 read a document as parse does, with handlers that do nothing, and reports whether
// it is well-formed: libxml2's own share of a parse, which BenchmarkLibxml2Alone measures.
func (p *parser) readOnly(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	return C.einv_read_only(p.c, (*C.char)(unsafe.Pointer(&data[0])), C.int(len(data))) != 0
}

func (p *parser) parse(data []byte, lim Limits, keepBlanks bool) (*Tree, error) {
	r := p.result
	keep := C.int(0)
	if keepBlanks {
		keep = 1
	}
	p.parses++
	C.einv_parse(p.c, (*C.char)(unsafe.Pointer(&data[0])), C.int(len(data)), C.einv_limits{max_text: C.long(lim.MaxText),
		max_depth: C.int(lim.MaxDepth), max_attributes: MaxAttributes, max_namespaces: MaxNamespaceDeclarations,
		crowded: CrowdedElement, max_crowded: MaxCrowdedAttributes, max_name_bytes: MaxNameBytes}, keep, r)
	switch {
	case r.stopped == C.EINV_STOP_OOM:
		return nil, errOutOfMemory
	case r.stopped == C.EINV_STOP_DOCTYPE:
		return nil, &Error{Kind: DoctypeFound, Message: "a DOCTYPE naming an external DTD or declaring entities or attribute defaults is not allowed in an e-invoice document"}
	case r.stopped == C.EINV_STOP_TEXT:
		return nil, &Error{Kind: TextTooLong, Message: fmt.Sprintf("a text node is longer than %d bytes", lim.MaxText)}
	case r.stopped == C.EINV_STOP_DEEP:
		return nil, &Error{Kind: TooDeep, Line: int(r.stop_line), Message: fmt.Sprintf("elements are nested deeper than %d levels", lim.MaxDepth)}
	case r.stopped == C.EINV_STOP_ATTRIBUTES:
		return nil, &Error{Kind: TooManyAttributes, Line: int(r.stop_line), Message: fmt.Sprintf("an element has more than %d attributes", MaxAttributes)}
	case r.stopped == C.EINV_STOP_NAMESPACES:
		return nil, &Error{Kind: TooManyNamespaces, Line: int(r.stop_line), Message: fmt.Sprintf("an element declares more than %d namespaces", MaxNamespaceDeclarations)}
	case r.stopped == C.EINV_STOP_NAMES:
		return nil, &Error{Kind: TooManyNames, Message: fmt.Sprintf("the document's distinct names take more than about %d bytes", MaxNameBytes)}
	case r.stopped == C.EINV_STOP_CROWDED:
		return nil, &Error{Kind: TooManyAttributes, Line: int(r.stop_line), Message: fmt.Sprintf(
			"the elements with more than %d attributes (namespace declarations included) have more than %d in all", CrowdedElement, MaxCrowdedAttributes)}
	case r.well_formed == 0 || r.errors > 0:
		msg := C.GoString(&r.first_error[0])
		if msg == "" {
			msg = "the document is not well-formed XML"
		}
		kind := NotWellFormed
		if r.first_error_code == 1 { // XML_ERR_INTERNAL_ERROR: libxml2's depth limit and the like
			kind = TooDeep
		}
		return nil, &Error{Kind: kind, Line: int(r.first_error_line), Message: msg}
	case r.nodes_len == 0:
		return nil, &Error{Kind: Empty, Message: "the document has no element"}
	}
	if err := p.learn(C.GoBytes(unsafe.Pointer(r.new_names), C.int(r.new_names_len))); err != nil {
		return nil, err
	}
	if len(p.names) != int(r.names_total) {
		panic("xmltree: the C and Go name numbers differ")
	}
	t := newTree()
	t.local, t.prefixes = p.local, p.prefixes
	t.dataBuf = append(t.dataBuf[:0], unsafe.Slice((*byte)(unsafe.Pointer(r.data)), r.data_len)...)
	t.data = unsafe.String(unsafe.SliceData(t.dataBuf), len(t.dataBuf))
	t.nodes = append(t.nodes[:0], unsafe.Slice((*node)(unsafe.Pointer(r.nodes)), r.nodes_len)...)
	for i := range t.nodes {
		if nd := &t.nodes[i]; nd.name != NoName {
			dn := p.names[nd.name-1]
			nd.name, nd.prefix = dn.name, dn.prefix
		}
	}
	t.attrs = append(t.attrs[:0], unsafe.Slice((*Attr)(unsafe.Pointer(r.attrs)), r.attrs_len)...)
	for i := range t.attrs {
		t.attrs[i].Name = p.names[t.attrs[i].Name-1].name
	}
	t.indexKids()
	t.Info = Info{Encoding: encodingName(&r.encoding), DeclaredEncoding: encodingName(&r.declared_encoding), BOM: hasByteOrderMark(data), Elements: int(r.elements),
		NonURILine: int(r.non_uri_line), Doctype: r.doctype != 0, HugeTextLine: int(r.huge_text_line)}
	if r.cdata_in_len > 0 {
		t.Info.CDATAIn = slices.Clone(unsafe.Slice((*NodeID)(unsafe.Pointer(r.cdata_in)), r.cdata_in_len))
	}
	t.blanksDropped = r.blanks_dropped > 0
	return t, nil
}

// learn reads the names the C side numbered for the first time in this parse (each as namespace,
// prefix and local name, every part a length and its bytes) and resolves them; when names were
// registered since the parser last resolved, every name is resolved again.
func (p *parser) learn(records []byte) error {
	part := func() string {
		n := int(records[0]) | int(records[1])<<8 | int(records[2])<<16 | int(records[3])<<24
		s := string(records[4 : 4+n])
		records = records[4+n:]
		return s
	}
	for len(records) > 0 {
		space, prefix, local := part(), part(), part()
		p.seen = append(p.seen, seenName{QName{space, local}, prefix})
	}
	registry.RLock()
	defer registry.RUnlock()
	if p.registered != len(registry.names) {
		p.names, p.registered = p.names[:0], len(registry.names)
	}
	for _, s := range p.seen[len(p.names):] {
		n, ok := registry.index[s.Space][s.Local]
		if !ok {
			if n, ok = p.localIndex[s.QName]; !ok {
				p.local = append(p.local, s.QName)
				n = FirstLocalName + Name(len(p.local)-1)
				p.localIndex[s.QName] = n
			}
		}
		prefix, ok := p.prefixIndex[s.prefix]
		if !ok {
			if len(p.prefixes) > 0xFFFF {
				return &Error{Kind: TooLarge, Message: "the document uses more namespace prefixes than accepted"}
			}
			prefix = uint16(len(p.prefixes))
			p.prefixes = append(p.prefixes, s.prefix)
			p.prefixIndex[s.prefix] = prefix
		}
		p.names = append(p.names, docName{n, prefix})
	}
	return nil
}

// hasByteOrderMark reports whether a document starts with the byte-order mark of UTF-8, UTF-16 or
// UTF-32, in either byte order.
func hasByteOrderMark(data []byte) bool {
	for _, mark := range [][]byte{{0xEF, 0xBB, 0xBF}, {0xFE, 0xFF}, {0xFF, 0xFE}, {0x00, 0x00, 0xFE, 0xFF}} {
		if bytes.HasPrefix(data, mark) {
			return true
		}
	}
	return false
}

// encodingName reads an encoding name the front end wrote ("" for none), the usual "UTF-8" without
// allocating.
func encodingName(name *[32]C.char) string {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&name[0])), len(name))
	if end := bytes.IndexByte(b, 0); end >= 0 {
		b = b[:end]
	}
	if string(b) == "UTF-8" {
		return "UTF-8"
	}
	return string(b)
}
