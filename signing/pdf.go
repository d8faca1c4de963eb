package signing

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A small PDF reader: just what signing and verifying need. It follows the cross-reference chain
// (tables, streams and hybrids), reads objects (also from object streams) and writes values back. It is
// bounded against hostile files: nesting depth, object counts, decompressed sizes and reference loops;
// each object is read once, however many references lead to it.

// PDF values: nil (null), bool, int64, float64, pdfName, pdfString, pdfArray, pdfDict, pdfRef, *pdfStream.
type (
	pdfName   string
	pdfString []byte
	pdfArray  []any
	pdfRef    struct{ num, gen int }
	pdfDict   struct {
		keys []pdfName
		vals map[pdfName]any
	}
	pdfStream struct {
		dict pdfDict
		raw  []byte // as stored (still encoded)
	}
)

func newDict() pdfDict { return pdfDict{vals: map[pdfName]any{}} }

func (d pdfDict) get(k pdfName) any { return d.vals[k] }

// set adds or replaces a key, keeping the order keys were first written in.
func (d *pdfDict) set(k pdfName, v any) {
	if d.vals == nil {
		d.vals = map[pdfName]any{}
	}
	if _, ok := d.vals[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.vals[k] = v
}

func (d pdfDict) clone() pdfDict {
	c := pdfDict{keys: append([]pdfName(nil), d.keys...), vals: make(map[pdfName]any, len(d.vals))}
	for k, v := range d.vals {
		c.vals[k] = v
	}
	return c
}

// Limits against hostile files.
const (
	pdfMaxDepth        = 64
	pdfMaxObjects      = 1 << 20
	pdfMaxDecompressed = 256 << 20
	pdfMaxXrefSections = 1024
	pdfMaxSignatures   = 64 // each one is checked over the whole file
)

var errPDF = errors.New("the PDF cannot be read")

func pdfErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errPDF, fmt.Sprintf(format, args...))
}

type xrefEntry struct {
	kind   byte // 1: at offset; 2: in object stream
	offset int64
	gen    int // its generation (kind 1), as a repair found it
	stream int // object stream number (kind 2)
	index  int
}

// pdfFile is a parsed PDF: its bytes, the newest entry of every object, and its newest trailer.
type pdfFile struct {
	data        []byte
	xref        map[int]xrefEntry
	trailer     pdfDict
	lastXref    int64
	xrefIsTable bool // the newest cross-reference section is a table (else a stream)
	objStms     map[int]map[int]any
	objects     map[int64]any // what was read at an offset: each object is read once
	inflated    int           // bytes decompressed so far; the whole file may inflate to pdfMaxDecompressed
	repaired    bool          // the cross-reference chain was damaged: xref was rebuilt from the objects (rebuildXref)
}

// parsePDF reads a PDF's cross-reference chain, or rebuilds it from the objects when it is damaged.
func parsePDF(data []byte) (*pdfFile, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\n\r "), []byte("%PDF-")) {
		return nil, pdfErr("no %%PDF- header")
	}
	f, err := followXref(data)
	if isRepairable(err) {
		return rebuildXref(data)
	}
	return f, err
}

// followXref reads the cross-reference chain from the last startxref.
func followXref(data []byte) (*pdfFile, error) {
	tail := data[max(0, len(data)-2048):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return nil, pdfErr("no startxref")
	}
	lx := &lexer{data: tail, pos: i + len("startxref")}
	off, ok := lx.next().(int64)
	if !ok || off < 0 || off >= int64(len(data)) {
		return nil, pdfErr("bad startxref")
	}
	f := &pdfFile{data: data, xref: map[int]xrefEntry{}, lastXref: off, objStms: map[int]map[int]any{}, objects: map[int64]any{}}
	seen := map[int64]bool{}
	first := true
	for off >= 0 {
		if seen[off] || len(seen) >= pdfMaxXrefSections {
			return nil, pdfErr("cross-reference loop")
		}
		seen[off] = true
		trailer, isTable, err := f.readXrefSection(off)
		if err != nil {
			return nil, err
		}
		if first {
			f.trailer, f.xrefIsTable, first = trailer, isTable, false
		}
		if stm, ok := trailer.get("XRefStm").(int64); ok && !seen[stm] {
			seen[stm] = true
			if _, _, err := f.readXrefSection(stm); err != nil {
				return nil, err
			}
		}
		prev, ok := trailer.get("Prev").(int64)
		if !ok {
			break
		}
		off = prev
	}
	if f.trailer.get("Encrypt") != nil {
		return nil, errEncrypted
	}
	return f, nil
}

// readXrefSection reads a table or a stream at off, adding the entries not already known (newer
// sections are read first).
func (f *pdfFile) readXrefSection(off int64) (pdfDict, bool, error) {
	if off < 0 || off >= int64(len(f.data)) {
		return pdfDict{}, false, pdfErr("cross-reference offset out of the file")
	}
	lx := &lexer{data: f.data, pos: int(off)}
	lx.skipSpace()
	if bytes.HasPrefix(f.data[lx.pos:], []byte("xref")) {
		lx.pos += 4
		for {
			lx.skipSpace()
			if bytes.HasPrefix(f.data[lx.pos:], []byte("trailer")) {
				lx.pos += len("trailer")
				d, ok := lx.next().(pdfDict)
				if !ok {
					return pdfDict{}, false, pdfErr("bad trailer")
				}
				return d, true, lx.err
			}
			start, ok1 := lx.next().(int64)
			count, ok2 := lx.next().(int64)
			if !ok1 || !ok2 || start < 0 || count < 0 || start+count > pdfMaxObjects {
				return pdfDict{}, false, pdfErr("bad cross-reference subsection")
			}
			for n := start; n < start+count; n++ {
				o, ok1 := lx.next().(int64)
				_, ok2 := lx.next().(int64)
				flag := lx.keyword()
				if !ok1 || !ok2 || (flag != "n" && flag != "f") {
					return pdfDict{}, false, pdfErr("bad cross-reference entry")
				}
				if _, known := f.xref[int(n)]; !known && flag == "n" {
					f.xref[int(n)] = xrefEntry{kind: 1, offset: o}
				} else if !known {
					f.xref[int(n)] = xrefEntry{}
				}
			}
		}
	}
	obj, err := f.readObjectAt(off, 0)
	if err != nil {
		return pdfDict{}, false, err
	}
	st, ok := obj.(*pdfStream)
	if !ok || st.dict.get("Type") != pdfName("XRef") {
		return pdfDict{}, false, pdfErr("no cross-reference at %d", off)
	}
	data, err := f.decode(st, 0)
	if err != nil {
		return pdfDict{}, false, err
	}
	w, _ := st.dict.get("W").(pdfArray)
	if len(w) != 3 {
		return pdfDict{}, false, pdfErr("bad /W")
	}
	var widths [3]int
	for i, v := range w {
		n, ok := v.(int64)
		if !ok || n < 0 || n > 8 {
			return pdfDict{}, false, pdfErr("bad /W")
		}
		widths[i] = int(n)
	}
	size, _ := st.dict.get("Size").(int64)
	index := pdfArray{int64(0), size}
	if ix, ok := st.dict.get("Index").(pdfArray); ok {
		index = ix
	}
	rowLen := widths[0] + widths[1] + widths[2]
	if rowLen == 0 {
		return pdfDict{}, false, pdfErr("bad /W")
	}
	field := func(b []byte) int64 {
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v
	}
	pos := 0
	for i := 0; i+1 < len(index); i += 2 {
		start, ok1 := index[i].(int64)
		count, ok2 := index[i+1].(int64)
		if !ok1 || !ok2 || start < 0 || count < 0 || start+count > pdfMaxObjects {
			return pdfDict{}, false, pdfErr("bad /Index")
		}
		for n := start; n < start+count; n++ {
			if pos+rowLen > len(data) {
				return pdfDict{}, false, pdfErr("cross-reference stream too short")
			}
			row := data[pos : pos+rowLen]
			pos += rowLen
			kind := int64(1)
			if widths[0] > 0 {
				kind = field(row[:widths[0]])
			}
			a, b := field(row[widths[0]:widths[0]+widths[1]]), field(row[widths[0]+widths[1]:])
			if _, known := f.xref[int(n)]; known {
				continue
			}
			switch kind {
			case 1:
				f.xref[int(n)] = xrefEntry{kind: 1, offset: a}
			case 2:
				f.xref[int(n)] = xrefEntry{kind: 2, stream: int(a), index: int(b)}
			default:
				f.xref[int(n)] = xrefEntry{}
			}
		}
	}
	return st.dict, false, nil
}

// readObjectAt reads "n g obj … endobj" at an offset, depth references deep.
func (f *pdfFile) readObjectAt(off int64, depth int) (any, error) {
	if off < 0 || off >= int64(len(f.data)) {
		return nil, pdfErr("object offset out of the file")
	}
	lx := &lexer{data: f.data, pos: int(off), f: f}
	_, ok1 := lx.next().(int64)
	_, ok2 := lx.next().(int64)
	if !ok1 || !ok2 || lx.keyword() != "obj" {
		return nil, pdfErr("no object at %d", off)
	}
	v := lx.next()
	if d, ok := v.(pdfDict); ok {
		lx.skipSpace()
		if bytes.HasPrefix(f.data[lx.pos:], []byte("stream")) {
			lx.pos += len("stream")
			if lx.pos < len(f.data) && f.data[lx.pos] == '\r' {
				lx.pos++
			}
			if lx.pos < len(f.data) && f.data[lx.pos] == '\n' {
				lx.pos++
			}
			length, ok := f.resolve(d.get("Length"), depth).(int64)
			if !ok || length < 0 || length > int64(len(f.data)-lx.pos) {
				return nil, pdfErr("bad stream length")
			}
			return &pdfStream{dict: d, raw: f.data[lx.pos : int64(lx.pos)+length]}, lx.err
		}
	}
	return v, lx.err
}

// object reads object n (nil when it does not exist).
func (f *pdfFile) object(n, depth int) any {
	e, ok := f.xref[n]
	if !ok || depth > pdfMaxDepth {
		return nil
	}
	switch e.kind {
	case 1:
		if v, read := f.objects[e.offset]; read {
			return v
		}
		v, err := f.readObjectAt(e.offset, depth)
		if err != nil {
			v = nil
		}
		f.objects[e.offset] = v
		return v
	case 2:
		objs, ok := f.objStms[e.stream]
		if !ok {
			objs = f.readObjectStream(e.stream, depth+1)
			f.objStms[e.stream] = objs
		}
		return objs[n]
	}
	return nil
}

// readObjectStream reads the objects an object stream holds.
func (f *pdfFile) readObjectStream(num, depth int) map[int]any {
	out := map[int]any{}
	st, ok := f.object(num, depth).(*pdfStream)
	if !ok {
		return out
	}
	data, err := f.decode(st, depth)
	if err != nil {
		return out
	}
	n, _ := st.dict.get("N").(int64)
	first, _ := st.dict.get("First").(int64)
	if n < 0 || n > pdfMaxObjects || first < 0 || first > int64(len(data)) {
		return out
	}
	lx := &lexer{data: data}
	type pair struct{ num, off int64 }
	pairs := make([]pair, 0, n)
	for i := int64(0); i < n; i++ {
		a, ok1 := lx.next().(int64)
		b, ok2 := lx.next().(int64)
		if !ok1 || !ok2 {
			return out
		}
		pairs = append(pairs, pair{a, b})
	}
	for _, p := range pairs {
		if p.off < 0 || p.off >= int64(len(data))-first {
			continue
		}
		ol := &lexer{data: data, pos: int(first + p.off), f: f}
		out[int(p.num)] = ol.next()
	}
	return out
}

// resolve follows references.
func (f *pdfFile) resolve(v any, depth int) any {
	for i := 0; i < pdfMaxDepth; i++ {
		r, ok := v.(pdfRef)
		if !ok {
			return v
		}
		v = f.object(r.num, depth+1)
	}
	return nil
}

// decode returns a stream's data: unfiltered, or FlateDecode with the PNG predictors. depth is how
// many references deep the stream is.
func (f *pdfFile) decode(st *pdfStream, depth int) ([]byte, error) {
	filter := f.resolve(st.dict.get("Filter"), depth)
	if a, ok := filter.(pdfArray); ok && len(a) == 1 {
		filter = a[0]
	}
	switch filter {
	case nil:
		return st.raw, nil
	case pdfName("FlateDecode"):
	default:
		return nil, pdfErr("unsupported stream filter %v", filter)
	}
	zr, err := zlib.NewReader(bytes.NewReader(st.raw))
	if err != nil {
		return nil, pdfErr("bad compressed stream")
	}
	remaining := pdfMaxDecompressed - f.inflated
	data, err := io.ReadAll(io.LimitReader(zr, int64(remaining)+1))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, pdfErr("bad compressed stream")
	}
	if len(data) > remaining {
		return nil, pdfErr("the streams decompress to more than %d MB", pdfMaxDecompressed>>20)
	}
	f.inflated += len(data)
	parms, _ := f.resolve(st.dict.get("DecodeParms"), depth).(pdfDict)
	predictor, _ := parms.get("Predictor").(int64)
	if predictor < 10 {
		return data, nil
	}
	columns, ok := parms.get("Columns").(int64)
	if !ok {
		columns = 1
	}
	colors, ok := parms.get("Colors").(int64)
	if !ok {
		colors = 1
	}
	bpc, ok := parms.get("BitsPerComponent").(int64)
	if !ok {
		bpc = 8
	}
	if columns < 1 || columns > 1<<20 || colors < 1 || colors > 32 || bpc < 1 || bpc > 16 {
		return nil, pdfErr("bad predictor parameters")
	}
	return unpredictPNG(data, int((columns*colors*bpc+7)/8), int((colors*bpc+7)/8))
}

// unpredictPNG undoes the PNG row filters (each row starts with its filter type).
func unpredictPNG(data []byte, rowLen, bpp int) ([]byte, error) {
	if rowLen <= 0 || rowLen > 1<<20 {
		return nil, pdfErr("bad predictor columns")
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, rowLen)
	for len(data) >= rowLen+1 {
		kind, row := data[0], append([]byte(nil), data[1:rowLen+1]...)
		data = data[rowLen+1:]
		for i := range row {
			var left, up, upLeft byte
			if i >= bpp {
				left, upLeft = row[i-bpp], prev[i-bpp]
			}
			up = prev[i]
			switch kind {
			case 1:
				row[i] += left
			case 2:
				row[i] += up
			case 3:
				row[i] += byte((int(left) + int(up)) / 2)
			case 4:
				row[i] += paeth(left, up, upLeft)
			}
		}
		out = append(out, row...)
		prev = row
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// lexer reads PDF values from bytes.
type lexer struct {
	data  []byte
	pos   int
	depth int
	err   error
	f     *pdfFile
}

func isSpace(c byte) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func isDelimiter(c byte) bool {
	return c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' || c == '/' || c == '%'
}

func (lx *lexer) skipSpace() {
	for lx.pos < len(lx.data) {
		c := lx.data[lx.pos]
		switch {
		case isSpace(c):
			lx.pos++
		case c == '%':
			for lx.pos < len(lx.data) && lx.data[lx.pos] != '\n' && lx.data[lx.pos] != '\r' {
				lx.pos++
			}
		default:
			return
		}
	}
}

// keyword reads a run of regular characters.
func (lx *lexer) keyword() string {
	lx.skipSpace()
	start := lx.pos
	for lx.pos < len(lx.data) && !isSpace(lx.data[lx.pos]) && !isDelimiter(lx.data[lx.pos]) {
		lx.pos++
	}
	return string(lx.data[start:lx.pos])
}

func (lx *lexer) fail(format string, args ...any) any {
	if lx.err == nil {
		lx.err = pdfErr(format, args...)
	}
	lx.pos = len(lx.data)
	return nil
}

// next reads one value; an integer followed by "g R" is a reference.
func (lx *lexer) next() any {
	lx.skipSpace()
	if lx.pos >= len(lx.data) {
		return lx.fail("unexpected end")
	}
	lx.depth++
	defer func() { lx.depth-- }()
	if lx.depth > pdfMaxDepth {
		return lx.fail("nested too deeply")
	}
	c := lx.data[lx.pos]
	switch {
	case c == '/':
		lx.pos++
		start := lx.pos
		for lx.pos < len(lx.data) && !isSpace(lx.data[lx.pos]) && !isDelimiter(lx.data[lx.pos]) {
			lx.pos++
		}
		return pdfName(unescapeName(lx.data[start:lx.pos]))
	case c == '(':
		return lx.literalString()
	case c == '<' && lx.pos+1 < len(lx.data) && lx.data[lx.pos+1] == '<':
		lx.pos += 2
		d := newDict()
		for {
			lx.skipSpace()
			if lx.pos+1 < len(lx.data) && lx.data[lx.pos] == '>' && lx.data[lx.pos+1] == '>' {
				lx.pos += 2
				return d
			}
			k, ok := lx.next().(pdfName)
			if !ok {
				return lx.fail("dictionary key is not a name")
			}
			d.set(k, lx.next())
			if lx.err != nil {
				return nil
			}
		}
	case c == '<':
		lx.pos++
		end := bytes.IndexByte(lx.data[lx.pos:], '>')
		if end < 0 {
			return lx.fail("unterminated hex string")
		}
		hex := lx.data[lx.pos : lx.pos+end]
		lx.pos += end + 1
		return decodeHexString(hex)
	case c == '[':
		lx.pos++
		var a pdfArray
		for {
			lx.skipSpace()
			if lx.pos < len(lx.data) && lx.data[lx.pos] == ']' {
				lx.pos++
				return a
			}
			v := lx.next()
			if lx.err != nil {
				return nil
			}
			a = append(a, v)
		}
	case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
		tok := lx.keyword()
		if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
			save := lx.pos
			if gen, ok := lx.peekInt(); ok && lx.keyword() == "R" && n >= 0 && n < pdfMaxObjects {
				return pdfRef{int(n), int(gen)}
			}
			lx.pos = save
			return n
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return lx.fail("bad number %q", tok)
		}
		return f
	}
	switch kw := lx.keyword(); kw {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	default:
		return lx.fail("unexpected %q", kw)
	}
}

// peekInt reads an unsigned integer token if one comes next.
func (lx *lexer) peekInt() (int64, bool) {
	lx.skipSpace()
	start := lx.pos
	for lx.pos < len(lx.data) && lx.data[lx.pos] >= '0' && lx.data[lx.pos] <= '9' {
		lx.pos++
	}
	if lx.pos == start || lx.pos < len(lx.data) && !isSpace(lx.data[lx.pos]) && !isDelimiter(lx.data[lx.pos]) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lx.data[start:lx.pos]), 10, 64)
	return n, err == nil
}

func (lx *lexer) literalString() any {
	lx.pos++
	var out []byte
	level := 1
	for lx.pos < len(lx.data) {
		c := lx.data[lx.pos]
		lx.pos++
		switch c {
		case '(':
			level++
		case ')':
			level--
			if level == 0 {
				return pdfString(out)
			}
		case '\\':
			if lx.pos >= len(lx.data) {
				break
			}
			e := lx.data[lx.pos]
			lx.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n':
				if e == '\r' && lx.pos < len(lx.data) && lx.data[lx.pos] == '\n' {
					lx.pos++
				}
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for i := 0; i < 2 && lx.pos < len(lx.data) && lx.data[lx.pos] >= '0' && lx.data[lx.pos] <= '7'; i++ {
						v = v*8 + int(lx.data[lx.pos]-'0')
						lx.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return lx.fail("unterminated string")
}

func decodeHexString(h []byte) pdfString {
	var out []byte
	var hi byte
	half := false
	for _, c := range h {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

func unescapeName(b []byte) string {
	if bytes.IndexByte(b, '#') < 0 {
		return string(b)
	}
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

// writeValue writes a value in PDF syntax.
func writeValue(w *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case int:
		w.WriteString(strconv.Itoa(x))
	case float64:
		w.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case pdfName:
		w.WriteByte('/')
		for i := 0; i < len(x); i++ {
			c := x[i]
			if c <= ' ' || c > '~' || isDelimiter(c) || c == '#' {
				fmt.Fprintf(w, "#%02X", c)
			} else {
				w.WriteByte(c)
			}
		}
	case pdfString:
		w.WriteByte('<')
		fmt.Fprintf(w, "%X", []byte(x))
		w.WriteByte('>')
	case pdfArray:
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(' ')
			}
			writeValue(w, e)
		}
		w.WriteByte(']')
	case pdfDict:
		w.WriteString("<<")
		for _, k := range x.keys {
			w.WriteByte(' ')
			writeValue(w, k)
			w.WriteByte(' ')
			writeValue(w, x.vals[k])
		}
		w.WriteString(" >>")
	case pdfRef:
		fmt.Fprintf(w, "%d %d R", x.num, x.gen)
	case rawValue:
		w.WriteString(string(x))
	default:
		panic(fmt.Sprintf("pdf: cannot write %T", v))
	}
}

// rawValue is written as it is (placeholders whose bytes are filled in later).
type rawValue string
