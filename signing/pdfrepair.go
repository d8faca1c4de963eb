package signing

import (
	"bytes"
	"cmp"
	"errors"
	"maps"
	"slices"
)

// Damaged cross-reference tables, common in the PDFs ERPs write (offsets counted before a line-ending
// conversion, a table cut short, a startxref that points nowhere), are rebuilt the way PDF readers do:
// by scanning the file for its objects. A later definition of an object replaces an earlier one, as an
// incremental update would; the trailer is the last one that names a catalog.

// Bounds of a repair against hostile files: each object stream, trailer or object it reads may run to
// the end of the file.
const (
	pdfMaxRepairStreams  = 64      // objects that may be object streams read for the objects they hold
	pdfMaxRepairTrailers = 16      // trailer keywords tried, from the end
	pdfMaxRepairObjects  = 256     // objects read, from the end, looking for the catalog
	pdfMaxLooseStream    = 4 << 20 // how far a stream with a wrong /Length is searched for its end
)

// errEncrypted refuses an encrypted PDF: no cross-reference repair makes it signable.
var errEncrypted = pdfErr("encrypted PDFs are not supported")

// rebuildXref reads a PDF whose cross-reference chain cannot be followed, from its objects.
func rebuildXref(data []byte) (*pdfFile, error) {
	f := &pdfFile{data: data, xref: map[int]xrefEntry{}, objStms: map[int]map[int]any{}, objects: map[int64]any{}, repaired: true, xrefIsTable: true}
	var streams []int // object streams, whose objects count where no direct definition exists
	streamReads := 0
	for off := 0; off < len(data); {
		at := bytes.Index(data[off:], []byte("obj"))
		if at < 0 {
			break
		}
		end := off + at + len("obj")
		if num, gen, start, ok := objectHeader(data, off+at); ok && (end == len(data) || isSpace(data[end]) || isDelimiter(data[end])) {
			if len(f.xref) >= pdfMaxObjects {
				return nil, pdfErr("too many objects")
			}
			f.xref[num] = xrefEntry{kind: 1, offset: int64(start), gen: gen}
			head := data[end:min(len(data), end+256)] // where an object stream names its type
			if streamReads < pdfMaxRepairStreams && bytes.Contains(head, []byte("/ObjStm")) {
				streamReads++
				if st, ok := f.readObjectLoosely(int64(start)).(*pdfStream); ok && st.dict.get("Type") == pdfName("ObjStm") {
					streams = append(streams, num)
				}
			}
		}
		off = end
	}
	for _, num := range streams {
		for n, index := range objectStreamIndex(f, num) {
			if _, direct := f.xref[n]; !direct {
				f.xref[n] = xrefEntry{kind: 2, stream: num, index: index}
			}
		}
	}
	f.trailer = f.lastTrailer()
	if f.trailer.get("Encrypt") != nil {
		return nil, errEncrypted
	}
	if _, ok := f.trailer.get("Root").(pdfRef); !ok {
		return nil, pdfErr("no catalog found in a PDF whose cross-reference table is damaged")
	}
	return f, nil
}

// objectHeader reads the "num gen" before the "obj" at objAt, which must start a line (or the file):
// it gives the object's number and generation and where its header starts.
func objectHeader(data []byte, objAt int) (num, gen, start int, ok bool) {
	i := objAt
	digits := func() (int, bool) {
		for i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
			i--
		}
		end := i
		for i > 0 && data[i-1] >= '0' && data[i-1] <= '9' && end-i < 10 {
			i--
		}
		if i == end {
			return 0, false
		}
		n := 0
		for _, c := range data[i:end] {
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	gen, ok1 := digits()
	num, ok2 := digits()
	lineStart := i == 0 || data[i-1] == '\n' || data[i-1] == '\r'
	return num, gen, i, ok1 && ok2 && lineStart && num < pdfMaxObjects
}

// readObjectLoosely reads the object at off like readObjectAt, but takes a stream whose /Length is
// wrong up to its "endstream" (within pdfMaxLooseStream).
func (f *pdfFile) readObjectLoosely(off int64) any {
	if v, err := f.readObjectAt(off, 0); err == nil {
		return v
	}
	lx := &lexer{data: f.data, pos: int(off), f: f}
	lx.next()
	lx.next()
	if lx.keyword() != "obj" {
		return nil
	}
	d, ok := lx.next().(pdfDict)
	lx.skipSpace()
	if !ok || !bytes.HasPrefix(f.data[lx.pos:], []byte("stream")) {
		return nil
	}
	start := lx.pos + len("stream")
	if start < len(f.data) && f.data[start] == '\r' {
		start++
	}
	if start < len(f.data) && f.data[start] == '\n' {
		start++
	}
	end := bytes.Index(f.data[start:min(len(f.data), start+pdfMaxLooseStream)], []byte("endstream"))
	if end < 0 {
		return nil
	}
	raw := bytes.TrimRight(f.data[start:start+end], "\r\n")
	st := &pdfStream{dict: d.clone(), raw: raw}
	st.dict.set("Length", int64(len(raw)))
	f.objects[off] = st
	return st
}

// objectStreamIndex lists the objects an object stream holds, each with its position in the stream.
func objectStreamIndex(f *pdfFile, num int) map[int]int {
	out := map[int]int{}
	st, ok := f.object(num, 0).(*pdfStream)
	if !ok {
		return out
	}
	data, err := f.decode(st, 0)
	if err != nil {
		return out
	}
	count, _ := st.dict.get("N").(int64)
	lx := &lexer{data: data}
	for i := 0; int64(i) < count && i < pdfMaxObjects; i++ {
		n, ok1 := lx.next().(int64)
		_, ok2 := lx.next().(int64)
		if !ok1 || !ok2 || n < 0 || n >= pdfMaxObjects {
			break
		}
		out[int(n)] = i
	}
	return out
}

// lastTrailer is the last trailer dictionary of the file that names a catalog, or else the dictionary
// of its last cross-reference stream that does, or else a trailer naming the last catalog object.
func (f *pdfFile) lastTrailer() pdfDict {
	for end, tries := len(f.data), 0; end > 0 && tries < pdfMaxRepairTrailers; tries++ {
		at := bytes.LastIndex(f.data[:end], []byte("trailer"))
		if at < 0 {
			break
		}
		lx := &lexer{data: f.data, pos: at + len("trailer")}
		if d, ok := lx.next().(pdfDict); ok && lx.err == nil {
			if _, ok := d.get("Root").(pdfRef); ok {
				return d
			}
		}
		end = at
	}
	var xrefStream, catalog pdfDict
	var xrefAt, catalogAt int64 = -1, -1
	nums := slices.SortedFunc(maps.Keys(f.xref), func(a, b int) int { return cmp.Compare(f.xref[b].offset, f.xref[a].offset) })
	for _, n := range nums[:min(len(nums), pdfMaxRepairObjects)] {
		e := f.xref[n]
		if e.kind != 1 {
			continue
		}
		switch v := f.object(n, 0).(type) {
		case *pdfStream:
			if _, ok := v.dict.get("Root").(pdfRef); ok && v.dict.get("Type") == pdfName("XRef") && e.offset > xrefAt {
				xrefStream, xrefAt = v.dict, e.offset
			}
		case pdfDict:
			if v.get("Type") == pdfName("Catalog") && e.offset > catalogAt {
				catalog, catalogAt = newDict(), e.offset
				catalog.set("Root", pdfRef{n, e.gen})
			}
		}
	}
	if xrefAt >= 0 {
		return xrefStream
	}
	return catalog
}

// isRepairable tells whether a failure to read a PDF may come from its cross-reference table alone.
func isRepairable(err error) bool {
	return errors.Is(err, errPDF) && !errors.Is(err, errEncrypted)
}
