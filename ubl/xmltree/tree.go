// Package xmltree parses XML documents with libxml2 (SAX, no DOM, no DTD, no network, bounded size,
// depth and text) into a compact read-only tree made for fast validation: nodes in document order in
// one array, names as integers, text as slices of one string.
package xmltree

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// NodeID is a node's index in its tree; None means no node.
type NodeID int32

// None is the NodeID of no node.
const None NodeID = -1

// Kind tells elements from text.
type Kind uint8

// Node kinds.
const (
	Element Kind = iota
	Text
)

// node is one element or run of character data. Element children and text runs are linked in
// document order; element nodes also link their first and next element child for quick walks.
//
// Whitespace-only text between elements is not kept (it carries no data in UBL); whitespace-only text
// of an element without element children is.
type node struct {
	name        Name // NoName for text
	prefix      uint16
	depth       uint16
	line        int32
	parent      NodeID
	firstChild  NodeID // first child of any kind
	nextSibling NodeID // next sibling of any kind
	firstElem   NodeID
	nextElem    NodeID
	last        NodeID // the last node of its subtree (itself for text and empty elements)
	start, end  int32  // element: its attributes in Tree.attrs; text: its text in Tree.data
}

func (nd *node) kind() Kind {
	if nd.name == NoName {
		return Text
	}
	return Element
}

// Attr is one attribute of an element: its name, and where its value lies in the tree's text (read it
// with Tree.Value). It holds no pointer, so a tree's attributes cost the garbage collector nothing.
type Attr struct {
	Name       Name
	start, end int32
}

// Tree is a parsed document. Its zero value is an empty document.
type Tree struct {
	nodes    []node
	attrs    []Attr
	data     string   // every text and attribute value, sliced
	dataBuf  []byte   // the bytes behind data
	local    []QName  // names not registered, by Name-FirstLocalName
	prefixes []string // prefixes seen, index 0 = none
	Info     Info

	blanksDropped bool // whitespace between elements was left out (see Exact)

	kids      []NodeID // element children grouped by parent, each group in document order
	kidNames  []Name   // their names, for tight scans
	kidsStart []int32  // children of n: kids[kidsStart[n]:kidsStart[n+1]]

	byNameOnce  sync.Once
	byName      []NodeID // elements of the indexed names grouped by name, each group in document order
	byNameAt    []int32  // group g: byName[byNameAt[g]:byNameAt[g+1]]
	byNameGroup []int32  // the groups of names, as they stood when the index was built

	paths PathWriter // the tree's path writer (its buffers are reused with the tree's arrays)
}

// Info is what the parse learnt about the document as a whole.
type Info struct {
	// Encoding is the encoding the document was read in: the one libxml2 converted from (named by a
	// byte-order mark, the first bytes or the declaration), else the declared one; "" when neither.
	Encoding         string
	DeclaredEncoding string // the encoding the XML declaration names ("" when none)
	BOM              bool   // the bytes start with a byte-order mark (UTF-8, UTF-16 or UTF-32)
	// NonURILine is where a namespace name that is not a URI ("urn:a b") is first declared (0: none):
	// libxml2 reports such a name as an error, so xmllint, whose verdict is the official schema
	// verdict, fails the document, while the rules' parser takes any string.
	NonURILine int
	Doctype    bool // a document type declaration (a bare one: see Parse)
	// HugeTextLine is where a text node first grew past 10,000,000 bytes (0: none), the most libxml2's
	// tree builder takes: xmllint, whose verdict is the official schema verdict, refuses the document,
	// while the rules' parser reads it (this parse's own limit is Limits.MaxText).
	HugeTextLine int
	// CDATAIn are the elements a CDATA section is written in, in document order: text to the rules'
	// parser, but libxml2's schema check refuses any CDATA section, even a blank one, where the content
	// is elements only.
	CDATAIn  []NodeID
	Elements int
}

// Trees released (see Release) lend their arrays to the next trees parsed: a validation service parses
// all day, and the garbage collector then has little to collect.
var released sync.Pool

func newTree() *Tree {
	if t, ok := released.Get().(*Tree); ok {
		return t
	}
	return &Tree{}
}

// Release gives the tree's arrays back for reuse. The tree, and every string read from it, must not be
// used afterwards: call it only where neither can have been kept.
func (t *Tree) Release() {
	if cap(t.nodes) > 1<<16 || cap(t.dataBuf) > 1<<20 {
		return // a large document's arrays are left to the garbage collector
	}
	*t = Tree{nodes: t.nodes[:0], attrs: t.attrs[:0], dataBuf: t.dataBuf[:0], kids: t.kids[:0], kidNames: t.kidNames[:0],
		kidsStart: t.kidsStart[:0], byName: t.byName[:0], byNameAt: t.byNameAt[:0],
		paths: PathWriter{buf: t.paths.buf[:0], nodes: t.paths.nodes[:0], ends: t.paths.ends[:0]}}
	released.Put(t)
}

// grown is s with length n, reusing its array when it is large enough; the elements are not cleared.
func grown[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// Root is the document element, or None for an empty tree.
func (t *Tree) Root() NodeID {
	if len(t.nodes) == 0 {
		return None
	}
	return 0
}

// Len is the number of nodes (elements and text runs).
func (t *Tree) Len() int { return len(t.nodes) }

// Kind of a node.
func (t *Tree) Kind(n NodeID) Kind { return t.nodes[n].kind() }

// Name of an element.
func (t *Tree) Name(n NodeID) Name { return t.nodes[n].name }

// QName of a Name as this tree knows it.
func (t *Tree) QName(name Name) QName {
	if name >= FirstLocalName {
		return t.local[name-FirstLocalName]
	}
	return globalQName(name)
}

// Prefix is the namespace prefix an element was written with.
func (t *Tree) Prefix(n NodeID) string { return t.prefixes[t.nodes[n].prefix] }

// Line is the line an element starts on.
func (t *Tree) Line(n NodeID) int { return int(t.nodes[n].line) }

// Parent of a node, None for the root.
func (t *Tree) Parent(n NodeID) NodeID { return t.nodes[n].parent }

// Depth of a node: 0 for the root.
func (t *Tree) Depth(n NodeID) int { return int(t.nodes[n].depth) }

// FirstChild is the first element child of n.
func (t *Tree) FirstChild(n NodeID) NodeID { return t.nodes[n].firstElem }

// NextSibling is the next element sibling of n.
func (t *Tree) NextSibling(n NodeID) NodeID { return t.nodes[n].nextElem }

// FirstContent is the first child of any kind (element or text).
func (t *Tree) FirstContent(n NodeID) NodeID { return t.nodes[n].firstChild }

// NextContent is the next sibling of any kind.
func (t *Tree) NextContent(n NodeID) NodeID { return t.nodes[n].nextSibling }

// Attrs of an element.
func (t *Tree) Attrs(n NodeID) []Attr { return t.attrs[t.nodes[n].start:t.nodes[n].end] }

// Attributes is every attribute in the document, element by element in document order.
func (t *Tree) Attributes() []Attr { return t.attrs }

// Value is an attribute's value.
func (t *Tree) Value(a Attr) string { return t.data[a.start:a.end] }

// Attr returns an attribute's value and whether it is present.
func (t *Tree) Attr(n NodeID, name Name) (string, bool) {
	for _, a := range t.Attrs(n) {
		if a.Name == name {
			return t.Value(a), true
		}
	}
	return "", false
}

// OwnText is the concatenation of an element's direct text children (of a text node: its text). For an
// element without element children it is the string value.
func (t *Tree) OwnText(n NodeID) string {
	nd := &t.nodes[n]
	if nd.kind() == Text {
		return t.data[nd.start:nd.end]
	}
	if c := nd.firstChild; c == None {
		return ""
	} else if cn := &t.nodes[c]; cn.name == NoName && cn.nextSibling == None { // one text child: the usual leaf
		return t.data[cn.start:cn.end]
	}
	var first NodeID = None
	var b []byte
	for c := nd.firstChild; c != None; c = t.nodes[c].nextSibling {
		if t.nodes[c].kind() != Text {
			continue
		}
		switch {
		case first == None:
			first = c
		case b == nil:
			b = append([]byte(t.OwnText(first)), t.OwnText(c)...)
		default:
			b = append(b, t.OwnText(c)...)
		}
	}
	if b != nil {
		return string(b)
	}
	if first == None {
		return ""
	}
	return t.OwnText(first)
}

// HasElementChildren reports whether an element has element children.
func (t *Tree) HasElementChildren(n NodeID) bool { return t.nodes[n].firstElem != None }

// LeafText is the text of an element with one text child and nothing else, the usual leaf (ok false
// for other nodes): its string value, in a call small enough to be inlined.
func (t *Tree) LeafText(n NodeID) (text string, ok bool) {
	if c := t.nodes[n].firstChild; c != None && t.nodes[n].firstElem == None {
		if cn := &t.nodes[c]; cn.nextSibling == None {
			return t.data[cn.start:cn.end], true
		}
	}
	return "", false
}

// Exact reports whether n's StringValue (and OwnText) is the one XPath sees: not when n has element
// children and the parse left whitespace between elements out (see ParseKeepingBlanks).
func (t *Tree) Exact(n NodeID) bool { return !t.blanksDropped || t.nodes[n].firstElem == None }

// StringValue is the XPath string value: all descendant text in document order.
func (t *Tree) StringValue(n NodeID) string {
	nd := &t.nodes[n]
	if nd.kind() == Text {
		return t.data[nd.start:nd.end]
	}
	if nd.firstElem == None {
		if c := nd.firstChild; c == None {
			return ""
		} else if cn := &t.nodes[c]; cn.nextSibling == None { // one text child: the usual leaf
			return t.data[cn.start:cn.end]
		}
		return t.OwnText(n)
	}
	var b strings.Builder
	t.appendText(&b, n)
	return b.String()
}

func (t *Tree) appendText(b *strings.Builder, n NodeID) {
	for c := t.nodes[n].firstChild; c != None; c = t.nodes[c].nextSibling {
		if t.nodes[c].kind() == Text {
			b.WriteString(t.data[t.nodes[c].start:t.nodes[c].end])
		} else {
			t.appendText(b, c)
		}
	}
}

// ChildElements is n's element children in document order, and their names in a parallel slice (so
// that looking for a name scans contiguous memory). The slices belong to the tree: do not modify them.
func (t *Tree) ChildElements(n NodeID) ([]NodeID, []Name) {
	from, to := t.kidsStart[n], t.kidsStart[n+1]
	return t.kids[from:to:to], t.kidNames[from:to:to]
}

// indexKids lists every element's element children, parent by parent (when the tree is built).
func (t *Tree) indexKids() {
	start := grown(t.kidsStart, len(t.nodes)+1)
	kids, names := t.kids[:0], t.kidNames[:0]
	for p := range t.nodes {
		start[p] = int32(len(kids))
		for c := t.nodes[p].firstElem; c != None; c = t.nodes[c].nextElem {
			kids = append(kids, c)
			names = append(names, t.nodes[c].name)
		}
	}
	start[len(t.nodes)] = int32(len(kids))
	t.kids, t.kidNames, t.kidsStart = kids, names, start
}

// Children returns n's element children with the name.
func (t *Tree) Children(n NodeID, name Name) []NodeID {
	var out []NodeID
	for c := t.nodes[n].firstElem; c != None; c = t.nodes[c].nextElem {
		if t.nodes[c].name == name {
			out = append(out, c)
		}
	}
	return out
}

// Child returns n's first element child with the name, or None.
func (t *Tree) Child(n NodeID, name Name) NodeID {
	for c := t.nodes[n].firstElem; c != None; c = t.nodes[c].nextElem {
		if t.nodes[c].name == name {
			return c
		}
	}
	return None
}

// Path is an XPath to the node that names every step with its prefix and position, as validators
// report locations: /Invoice/cac:InvoiceLine[2]/cbc:ID[1].
func (t *Tree) Path(n NodeID) string {
	if n == None {
		return ""
	}
	w := PathWriter{t: t, buf: make([]byte, 0, 256)}
	w.write(n)
	return string(w.buf)
}

// PathWriter writes the Paths of many nodes of one tree. The steps a node shares with the node before
// (their common ancestors) are not written again, which suits findings: they come in document order.
// The paths it returns share their memory, one allocation for about a kilobyte of paths.
type PathWriter struct {
	t     *Tree
	buf   []byte
	nodes []NodeID // the last node and its ancestors, from the document element down
	ends  []int    // the end in buf of the path of each of nodes
	chunk []byte   // where the paths returned are kept: appended to, never changed
}

// NewPathWriter writes paths of t. A tree has one writer: a new one takes the place of the last (the
// paths the last returned stay valid).
func (t *Tree) NewPathWriter() *PathWriter {
	w := &t.paths
	*w = PathWriter{t: t, buf: w.buf[:0], nodes: w.nodes[:0], ends: w.ends[:0]}
	return w
}

// Path is n's Path.
func (w *PathWriter) Path(n NodeID) string {
	if n == None {
		return ""
	}
	w.write(n)
	if len(w.chunk)+len(w.buf) > cap(w.chunk) {
		w.chunk = make([]byte, 0, max(pathChunk, len(w.buf)))
	}
	start := len(w.chunk)
	w.chunk = append(w.chunk, w.buf...) // within the capacity: bytes before start are never written again
	return unsafe.String(&w.chunk[start], len(w.buf))
}

// write leaves n's path in w.buf, reusing the steps it shares with the path written before.
func (w *PathWriter) write(n NodeID) {
	t := w.t
	var stack [32]NodeID
	chain := stack[:0] // n and its ancestors, n first
	for x := n; x != None; x = t.nodes[x].parent {
		chain = append(chain, x)
	}
	same := 0 // how many of the steps from the top the last path shares
	for same < len(w.nodes) && same < len(chain) && w.nodes[same] == chain[len(chain)-1-same] {
		same++
	}
	w.nodes, w.ends = w.nodes[:same], w.ends[:same]
	if same > 0 {
		w.buf = w.buf[:w.ends[same-1]]
	} else {
		w.buf = w.buf[:0]
	}
	for i := len(chain) - 1 - same; i >= 0; i-- {
		w.buf = t.appendStep(w.buf, chain[i])
		w.nodes = append(w.nodes, chain[i])
		w.ends = append(w.ends, len(w.buf))
	}
}

// pathChunk is the size of the blocks PathWriter keeps its paths in: a new block when one is full,
// instead of a growing buffer that copies (and doubles) everything written so far.
const pathChunk = 1024

// appendStep appends n's step: "/text()", or "/" and the prefixed name, with the position among the
// siblings of that name (none for the document element).
func (t *Tree) appendStep(b []byte, n NodeID) []byte {
	nd := &t.nodes[n]
	b = append(b, '/')
	if nd.kind() == Text {
		return append(b, "text()"...)
	}
	if p := t.prefixes[nd.prefix]; p != "" {
		b = append(append(b, p...), ':')
	}
	b = append(b, t.QName(nd.name).Local...)
	if nd.parent == None {
		return b
	}
	ids, names := t.ChildElements(nd.parent)
	pos := 1
	for k, name := range names {
		if ids[k] == n {
			break
		}
		if name == nd.name {
			pos++
		}
	}
	if pos < 10 { // the usual position, without formatting a number
		return append(b, '[', byte('0'+pos), ']')
	}
	return append(strconv.AppendInt(append(b, '['), int64(pos), 10), ']')
}

// SubtreeEnd is one past the last node of n's subtree: n's descendants are the nodes n+1 up to it.
func (t *Tree) SubtreeEnd(n NodeID) NodeID { return t.nodes[n].last + 1 }

// Named is every element with the name, in document order. For names declared with IndexName the
// answer comes from an index built on first use, once per tree; for others, from a scan.
func (t *Tree) Named(name Name) []NodeID {
	t.byNameOnce.Do(t.indexNames)
	if int(name) < len(t.byNameGroup) {
		if g := t.byNameGroup[name]; g > 0 {
			return t.byName[t.byNameAt[g]:t.byNameAt[g+1]]
		}
	}
	var out []NodeID
	for i := range t.nodes {
		if t.nodes[i].name == name {
			out = append(out, NodeID(i))
		}
	}
	return out
}

// NamedWithin is the elements with the name whose IDs lie in [from, to), in document order.
func (t *Tree) NamedWithin(name Name, from, to NodeID) []NodeID {
	all := t.Named(name)
	lo := sort.Search(len(all), func(i int) bool { return all[i] >= from })
	hi := lo + sort.Search(len(all)-lo, func(i int) bool { return all[lo+i] >= to })
	return all[lo:hi]
}

// indexNames groups the elements of the indexed names with a counting sort: two allocations per tree.
func (t *Tree) indexNames() {
	indexed.RLock()
	group, count := indexed.group, indexed.count
	indexed.RUnlock()
	// at[g] counts the elements of group g, then (summed) marks where group g ends; placing the
	// elements from the last one down moves it to where the group starts, which is where group g-1 ends.
	at := grown(t.byNameAt, int(count)+2)
	clear(at)
	for i := range t.nodes {
		if n := t.nodes[i].name; int(n) < len(group) {
			at[group[n]]++
		}
	}
	at[0] = 0 // group 0 holds the names not indexed
	for g := 1; g < len(at); g++ {
		at[g] += at[g-1]
	}
	ids := grown(t.byName, int(at[len(at)-1]))
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if n := t.nodes[i].name; int(n) < len(group) && group[n] > 0 {
			at[group[n]]--
			ids[at[group[n]]] = NodeID(i)
		}
	}
	t.byName, t.byNameAt, t.byNameGroup = ids, at, group
}
