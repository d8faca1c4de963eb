package xmltree

/*
#cgo pkg-config: libxml-2.0
#include "sax.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"
)

func init() { C.einv_init() }

// Limits bound what a parse may take.
type Limits struct {
	MaxBytes int // largest document
	MaxDepth int // deepest element nesting
	MaxText  int // longest run of character data in one node
}

// DefaultLimits suit e-invoices with embedded attachments.
var DefaultLimits = Limits{MaxBytes: 64 << 20, MaxDepth: 128, MaxText: 48 << 20}

// ErrorKind classifies why a document could not be parsed.
type ErrorKind string

// Kinds of parse errors.
const (
	NotWellFormed ErrorKind = "not-well-formed"
	TooLarge      ErrorKind = "too-large"
	TooDeep       ErrorKind = "too-deep"
	TextTooLong   ErrorKind = "text-too-long"
	DoctypeFound  ErrorKind = "doctype"
	Empty         ErrorKind = "empty"
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

// Parse reads a document. A document that is not well-formed (including namespace errors), declares a
// DOCTYPE, or passes a limit is an *Error; a well-formed one is a *Tree.
func Parse(data []byte, lim Limits) (*Tree, error) {
	if len(data) == 0 {
		return nil, &Error{Kind: Empty, Message: "the document is empty"}
	}
	if len(data) > lim.MaxBytes {
		return nil, &Error{Kind: TooLarge, Message: fmt.Sprintf("the document has %d bytes; at most %d are accepted", len(data), lim.MaxBytes)}
	}
	var r C.einv_result
	C.einv_parse((*C.char)(unsafe.Pointer(&data[0])), C.int(len(data)), C.long(lim.MaxText), &r)
	defer C.einv_free(&r)
	switch {
	case r.oom != 0:
		return nil, errors.New("xmltree: out of memory")
	case r.stopped == C.EINV_STOP_DOCTYPE:
		return nil, &Error{Kind: DoctypeFound, Message: "a DOCTYPE is not allowed in an e-invoice document"}
	case r.stopped == C.EINV_STOP_TEXT:
		return nil, &Error{Kind: TextTooLong, Message: fmt.Sprintf("a text node is longer than %d bytes", lim.MaxText)}
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
	}
	events := C.GoStringN((*C.char)(unsafe.Pointer(r.buf)), C.int(r.len))
	t, err := build(events, lim)
	if err != nil {
		return nil, err
	}
	t.Info.Encoding = C.GoString(&r.encoding[0])
	t.Info.BOM = bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	return t, nil
}

// build turns the event stream into a tree.
func build(ev string, lim Limits) (*Tree, error) {
	t := &Tree{data: ev, prefixes: []string{""}, nodes: make([]node, 0, len(ev)/48+8)}
	registry.RLock()
	defer registry.RUnlock()

	pos := 0
	u32 := func() int {
		v := uint32(ev[pos]) | uint32(ev[pos+1])<<8 | uint32(ev[pos+2])<<16 | uint32(ev[pos+3])<<24
		pos += 4
		return int(v)
	}
	str := func() (string, int) {
		n := u32()
		s, start := ev[pos:pos+n], pos
		pos += n
		return s, start
	}
	// names are the document's names by the numbers the event stream gives them.
	type docName struct {
		name   Name
		prefix uint16
	}
	names := make([]docName, 0, 128)
	type open struct{ id, lastChild, lastElem NodeID }
	stack := make([]open, 0, 32)
	link := func(id NodeID, isElem bool) {
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		p := &t.nodes[top.id]
		if top.lastChild == None {
			p.firstChild = id
		} else {
			t.nodes[top.lastChild].nextSibling = id
		}
		top.lastChild = id
		if isElem {
			if top.lastElem == None {
				p.firstElem = id
			} else {
				t.nodes[top.lastElem].nextElem = id
			}
			top.lastElem = id
		}
	}
	for pos < len(ev) {
		op := ev[pos]
		pos++
		switch op {
		case C.EINV_NAME:
			space, _ := str()
			prefix, _ := str()
			local, _ := str()
			names = append(names, docName{t.intern(space, local), t.prefixOf(prefix)})
		case C.EINV_START:
			line := u32()
			name := names[u32()]
			if len(stack) >= lim.MaxDepth {
				return nil, &Error{Kind: TooDeep, Line: line, Message: fmt.Sprintf("elements are nested deeper than %d levels", lim.MaxDepth)}
			}
			parent := None
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				parent = top.id
				// Whitespace-only text before the first element child carries nothing: drop it.
				if top.lastElem == None && top.lastChild == NodeID(len(t.nodes)-1) && top.lastChild != top.id &&
					isSpace(t.data[t.nodes[top.lastChild].start:t.nodes[top.lastChild].end]) {
					t.nodes = t.nodes[:len(t.nodes)-1]
					t.nodes[top.id].firstChild, top.lastChild = None, None
				}
			}
			id := NodeID(len(t.nodes))
			nd := node{name: name.name, prefix: name.prefix, line: int32(line), parent: parent,
				firstChild: None, nextSibling: None, firstElem: None, nextElem: None, depth: uint16(len(stack))}
			nattrs := u32()
			nd.start = int32(len(t.attrs))
			for i := 0; i < nattrs; i++ {
				aname := names[u32()]
				value, _ := str()
				t.attrs = append(t.attrs, Attr{Name: aname.name, Value: value})
			}
			nd.end = int32(len(t.attrs))
			t.nodes = append(t.nodes, nd)
			link(id, true)
			stack = append(stack, open{id, None, None})
			t.Info.Elements++
		case C.EINV_END:
			t.nodes[stack[len(stack)-1].id].last = NodeID(len(t.nodes) - 1)
			stack = stack[:len(stack)-1]
		case C.EINV_TEXT:
			text, start := str()
			if len(stack) == 0 {
				continue // text outside the document element (not possible in well-formed XML)
			}
			top := &stack[len(stack)-1]
			if top.lastElem != None && isSpace(text) {
				continue // whitespace between elements
			}
			id := NodeID(len(t.nodes))
			t.nodes = append(t.nodes, node{parent: top.id, firstChild: None, nextSibling: None,
				firstElem: None, nextElem: None, last: id, start: int32(start), end: int32(pos), depth: uint16(len(stack))})
			link(id, false)
		default:
			return nil, fmt.Errorf("xmltree: bad event %d at %d", op, pos-1)
		}
	}
	if len(t.nodes) == 0 {
		return nil, &Error{Kind: Empty, Message: "the document has no element"}
	}
	return t, nil
}

// intern numbers a name: its global number when registered, else one of this tree's own. The caller
// holds the registry's read lock. Names come grouped by namespace, so the namespace's table is kept
// from one call to the next.
func (t *Tree) intern(space, local string) Name {
	if space != t.lastSpace || t.lastLocals == nil {
		t.lastSpace, t.lastLocals = space, registry.index[space]
	}
	if n, ok := t.lastLocals[local]; ok {
		return n
	}
	for i, q := range t.local {
		if q.Space == space && q.Local == local {
			return FirstLocalName + Name(i)
		}
	}
	t.local = append(t.local, QName{space, local})
	return FirstLocalName + Name(len(t.local)-1)
}

func (t *Tree) prefixOf(p string) uint16 {
	for i, q := range t.prefixes {
		if q == p {
			return uint16(i)
		}
	}
	t.prefixes = append(t.prefixes, p)
	return uint16(len(t.prefixes) - 1)
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
