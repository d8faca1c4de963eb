package signing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// PAdES baseline B-B signatures of PDFs: an incremental update adds a signature field on the first
// page and the signature dictionary (/SubFilter /ETSI.CAdES.detached, the signing time in /M) whose
// /Contents is a detached CMS over every byte of the file but the /Contents value itself.

// PDFOptions describe a PDF signature.
type PDFOptions struct {
	Reason   string // /Reason, shown by readers
	Location string
}

// SignPDF adds a PAdES B-B signature to a PDF as an incremental update, at time now. A PDF whose
// cross-reference table is damaged is read from its objects (rebuildXref), and the update's
// cross-reference section then lists every object, so that it no longer depends on the damaged one.
func SignPDF(pdf []byte, seal *Seal, now time.Time, opts PDFOptions) ([]byte, error) {
	f, err := parsePDF(pdf)
	if err != nil {
		return nil, err
	}
	rootRef, root, pageRef, page, size, err := f.signingBase()
	if err != nil && !f.repaired && isRepairable(err) { // a table that reads but points to the wrong places
		if f, err = rebuildXref(pdf); err == nil {
			rootRef, root, pageRef, page, size, err = f.signingBase()
		}
	}
	if err != nil {
		return nil, err
	}
	next := size
	sigRef := pdfRef{next, 0}
	widgetRef := pdfRef{next + 1, 0}
	next += 2

	var certLen int
	for _, c := range seal.certificates() {
		certLen += len(c.Raw)
	}
	contentsLen := 2 * (certLen + 4096) // hex digits reserved for the CMS
	sig := newDict()
	sig.set("Type", pdfName("Sig"))
	sig.set("Filter", pdfName("Adobe.PPKLite"))
	sig.set("SubFilter", pdfName("ETSI.CAdES.detached"))
	sig.set("ByteRange", rawValue("[0 0000000000 0000000000 0000000000]"))
	sig.set("Contents", rawValue("<"+string(bytes.Repeat([]byte("0"), contentsLen))+">"))
	sig.set("M", pdfString(pdfDate(now)))
	sig.set("Name", pdfString(seal.Certificate.Subject.CommonName))
	if opts.Reason != "" {
		sig.set("Reason", pdfString(opts.Reason))
	}
	if opts.Location != "" {
		sig.set("Location", pdfString(opts.Location))
	}
	widget := newDict()
	widget.set("Type", pdfName("Annot"))
	widget.set("Subtype", pdfName("Widget"))
	widget.set("FT", pdfName("Sig"))
	widget.set("T", pdfString(fmt.Sprintf("Signature%d", sigRef.num)))
	widget.set("V", sigRef)
	widget.set("F", int64(132)) // print, locked
	widget.set("Rect", pdfArray{int64(0), int64(0), int64(0), int64(0)})
	widget.set("P", pageRef)

	updates := map[int]any{sigRef.num: sig, widgetRef.num: widget}
	// The page lists the widget among its annotations.
	switch annots := page.get("Annots").(type) {
	case pdfRef:
		arr, _ := f.resolve(annots, 0).(pdfArray)
		updates[annots.num] = append(append(pdfArray{}, arr...), widgetRef)
	case pdfArray:
		p := page.clone()
		p.set("Annots", append(append(pdfArray{}, annots...), widgetRef))
		updates[pageRef.num] = p
	default:
		p := page.clone()
		p.set("Annots", pdfArray{widgetRef})
		updates[pageRef.num] = p
	}
	// The catalog's form lists the field and says the document has signatures.
	addField := func(form pdfDict) pdfDict {
		form = form.clone()
		fields, _ := f.resolve(form.get("Fields"), 0).(pdfArray)
		form.set("Fields", append(append(pdfArray{}, fields...), widgetRef))
		form.set("SigFlags", int64(3))
		return form
	}
	switch form := root.get("AcroForm").(type) {
	case pdfRef:
		d, _ := f.resolve(form, 0).(pdfDict)
		updates[form.num] = addField(d)
	default:
		d, _ := form.(pdfDict)
		r := root.clone()
		r.set("AcroForm", addField(d))
		updates[rootRef.num] = r
	}

	var out bytes.Buffer
	out.Write(pdf)
	if len(pdf) > 0 && pdf[len(pdf)-1] != '\n' {
		out.WriteByte('\n')
	}
	entries := map[int]xrefEntry{}
	if f.repaired { // the update's section is complete: every object, and the head of the free list
		maps.Copy(entries, f.xref)
		entries[0] = xrefEntry{gen: 65535}
	}
	for _, n := range slices.Sorted(maps.Keys(updates)) {
		entries[n] = xrefEntry{kind: 1, offset: int64(out.Len())}
		fmt.Fprintf(&out, "%d 0 obj\n", n)
		writeValue(&out, updates[n])
		out.WriteString("\nendobj\n")
	}
	trailer := newDict()
	trailer.set("Size", int64(next))
	trailer.set("Root", rootRef)
	for _, k := range []pdfName{"Info", "ID"} {
		if v := f.trailer.get(k); v != nil {
			trailer.set(k, v)
		}
	}
	if !f.repaired {
		trailer.set("Prev", f.lastXref)
	}
	writeXref(&out, f.xrefIsTable, entries, trailer, &next)

	signed := out.Bytes()
	return fillSignature(signed, seal)
}

// signingBase reads what a signature changes: the catalog, the first page, and the number of the
// first new object.
func (f *pdfFile) signingBase() (rootRef pdfRef, root pdfDict, pageRef pdfRef, page pdfDict, size int, err error) {
	rootRef, ok := f.trailer.get("Root").(pdfRef)
	if !ok {
		return rootRef, root, pageRef, page, 0, pdfErr("no /Root")
	}
	if root, ok = f.resolve(rootRef, 0).(pdfDict); !ok {
		return rootRef, root, pageRef, page, 0, pdfErr("no catalog")
	}
	if pageRef, page, err = f.firstPage(root); err != nil {
		return rootRef, root, pageRef, page, 0, err
	}
	n, _ := f.trailer.get("Size").(int64)
	if f.repaired {
		for num := range f.xref {
			n = max(n, int64(num)+1)
		}
	}
	if n <= 0 || n > pdfMaxObjects {
		return rootRef, root, pageRef, page, 0, pdfErr("no /Size")
	}
	return rootRef, root, pageRef, page, int(n), nil
}

// firstPage finds the first page of the page tree.
func (f *pdfFile) firstPage(root pdfDict) (pdfRef, pdfDict, error) {
	node := root.get("Pages")
	for depth := 0; depth < pdfMaxDepth; depth++ {
		ref, ok := node.(pdfRef)
		if !ok {
			return pdfRef{}, pdfDict{}, pdfErr("bad page tree")
		}
		d, ok := f.resolve(ref, 0).(pdfDict)
		if !ok {
			return pdfRef{}, pdfDict{}, pdfErr("bad page tree")
		}
		if d.get("Type") == pdfName("Page") {
			return ref, d, nil
		}
		kids, _ := f.resolve(d.get("Kids"), 0).(pdfArray)
		if len(kids) == 0 {
			return pdfRef{}, pdfDict{}, pdfErr("the PDF has no page")
		}
		node = kids[0]
	}
	return pdfRef{}, pdfDict{}, pdfErr("page tree too deep")
}

// writeXref writes the update's cross-reference section in the form the file already uses: a table
// with a trailer, or a cross-reference stream (which then is one more object). Entries in object
// streams need a stream.
func writeXref(out *bytes.Buffer, table bool, entries map[int]xrefEntry, trailer pdfDict, next *int) {
	for _, e := range entries {
		table = table && e.kind != 2
	}
	xrefNum := *next // with a stream: its object number
	if !table {
		*next++
		entries[xrefNum] = xrefEntry{kind: 1, offset: int64(out.Len())}
	}
	nums := slices.Sorted(maps.Keys(entries))
	// runs calls row for each entry, after head for each run of consecutive numbers.
	runs := func(head func(first, count int), row func(e xrefEntry)) {
		for i := 0; i < len(nums); {
			j := i
			for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
				j++
			}
			head(nums[i], j-i+1)
			for k := i; k <= j; k++ {
				row(entries[nums[k]])
			}
			i = j + 1
		}
	}
	if !table {
		trailer.set("Size", int64(*next))
		var rows bytes.Buffer
		var index pdfArray
		runs(func(first, count int) { index = append(index, int64(first), int64(count)) }, func(e xrefEntry) {
			a, b := e.offset, e.gen // kind 1: offset and generation; kind 0: next free and generation
			if e.kind == 2 {
				a, b = int64(e.stream), e.index
			}
			rows.Write([]byte{e.kind, byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a), byte(b >> 8), byte(b)})
		})
		d := trailer.clone()
		d.set("Type", pdfName("XRef"))
		d.set("W", pdfArray{int64(1), int64(4), int64(2)})
		d.set("Index", index)
		d.set("Length", int64(rows.Len()))
		fmt.Fprintf(out, "%d 0 obj\n", xrefNum)
		writeValue(out, d)
		out.WriteString("\nstream\n")
		out.Write(rows.Bytes())
		out.WriteString("\nendstream\nendobj\n")
		fmt.Fprintf(out, "startxref\n%d\n%%%%EOF\n", entries[xrefNum].offset)
		return
	}
	start := out.Len()
	out.WriteString("xref\n")
	runs(func(first, count int) { fmt.Fprintf(out, "%d %d\n", first, count) }, func(e xrefEntry) {
		kind := "n"
		if e.kind == 0 {
			kind = "f"
		}
		fmt.Fprintf(out, "%010d %05d %s \n", e.offset, e.gen, kind)
	})
	out.WriteString("trailer\n")
	writeValue(out, trailer)
	fmt.Fprintf(out, "\nstartxref\n%d\n%%%%EOF\n", start)
}

// fillSignature writes the byte range and the CMS into the placeholders.
func fillSignature(pdf []byte, seal *Seal) ([]byte, error) {
	brAt := bytes.LastIndex(pdf, []byte("/ByteRange [0 0000000000 0000000000 0000000000]"))
	if brAt < 0 {
		return nil, pdfErr("signature placeholder lost")
	}
	cAt := bytes.Index(pdf[brAt:], []byte("/Contents <"))
	if cAt < 0 {
		return nil, pdfErr("signature placeholder lost")
	}
	start := brAt + cAt + len("/Contents ")
	end := start + bytes.IndexByte(pdf[start:], '>') + 1
	byteRange := fmt.Sprintf("[0 %010d %010d %010d]", start, end, len(pdf)-end)
	copy(pdf[brAt+len("/ByteRange "):], byteRange)
	h := sha256.New()
	h.Write(pdf[:start])
	h.Write(pdf[end:])
	cms, err := signCMS(seal, h.Sum(nil))
	if err != nil {
		return nil, err
	}
	hexCMS := hex.EncodeToString(cms)
	if len(hexCMS) > end-start-2 {
		return nil, fmt.Errorf("the signature (%d bytes) does not fit the space reserved for it", len(cms))
	}
	copy(pdf[start+1:], hexCMS)
	return pdf, nil
}

// pdfDate writes a time as a PDF date string.
func pdfDate(t time.Time) string {
	return "D:" + t.UTC().Format("20060102150405") + "+00'00'"
}

// VerifyPDF checks every signature of a PDF's form: the byte range (from the start, leaving out only
// the signature's own /Contents), the CMS over those bytes and the signer's key. ErrNoSignature when
// the PDF has none.
func VerifyPDF(pdf []byte) ([]SignatureInfo, error) {
	f, err := parsePDF(pdf)
	if err != nil {
		return nil, invalid("%v", err)
	}
	root, _ := f.resolve(f.trailer.get("Root"), 0).(pdfDict)
	form, _ := f.resolve(root.get("AcroForm"), 0).(pdfDict)
	var sigs []pdfDict
	walked := map[pdfRef]bool{} // a field tree that shares or loops back to a field is walked once
	var walk func(fields pdfArray, depth int)
	walk = func(fields pdfArray, depth int) {
		if depth > pdfMaxDepth {
			return
		}
		for _, fv := range fields {
			if ref, ok := fv.(pdfRef); ok {
				if walked[ref] {
					continue
				}
				walked[ref] = true
			}
			field, ok := f.resolve(fv, 0).(pdfDict)
			if !ok {
				continue
			}
			if v, ok := f.resolve(field.get("V"), 0).(pdfDict); ok && field.get("FT") == pdfName("Sig") && v.get("Contents") != nil {
				sigs = append(sigs, v)
			}
			if kids, ok := f.resolve(field.get("Kids"), 0).(pdfArray); ok {
				walk(kids, depth+1)
			}
		}
	}
	fields, _ := f.resolve(form.get("Fields"), 0).(pdfArray)
	walk(fields, 0)
	if len(sigs) == 0 {
		return nil, ErrNoSignature
	}
	if len(sigs) > pdfMaxSignatures {
		return nil, invalid("more than %d signatures", pdfMaxSignatures)
	}
	var out []SignatureInfo
	for i, s := range sigs {
		info, err := verifyPDFSignature(pdf, f, s)
		if err != nil {
			return nil, fmt.Errorf("PDF signature %d: %w", i+1, err)
		}
		out = append(out, info)
	}
	return out, nil
}

func verifyPDFSignature(pdf []byte, f *pdfFile, s pdfDict) (SignatureInfo, error) {
	subFilter, _ := f.resolve(s.get("SubFilter"), 0).(pdfName)
	kind := map[pdfName]string{"ETSI.CAdES.detached": "PAdES", "adbe.pkcs7.detached": "PKCS#7"}[subFilter]
	if kind == "" {
		return SignatureInfo{}, invalid("unsupported signature format %v", s.get("SubFilter"))
	}
	br, _ := f.resolve(s.get("ByteRange"), 0).(pdfArray)
	contents, _ := f.resolve(s.get("Contents"), 0).(pdfString)
	if len(br) != 4 || len(contents) == 0 {
		return SignatureInfo{}, invalid("malformed signature dictionary")
	}
	var r [4]int64
	for i, v := range br {
		n, ok := v.(int64)
		if !ok || n < 0 {
			return SignatureInfo{}, invalid("malformed byte range")
		}
		r[i] = n
	}
	n := int64(len(pdf))
	if r[0] != 0 || r[1] >= n || r[2] < r[1]+2 || r[2] > n || r[3] > n-r[2] || pdf[r[1]] != '<' || pdf[r[2]-1] != '>' {
		return SignatureInfo{}, invalid("the byte range does not leave out exactly the signature")
	}
	// The gap must be this signature's /Contents and nothing else.
	if !bytes.Equal(decodeHexString(pdf[r[1]+1:r[2]-1]), contents) {
		return SignatureInfo{}, invalid("the byte range leaves out something else than the signature")
	}
	signed := append(append([]byte{}, pdf[:r[1]]...), pdf[r[2]:r[2]+r[3]]...)
	cms, err := verifyCMS(contents, signed) // the DER ends before the zeros that pad the reserved space
	if err != nil {
		return SignatureInfo{}, err
	}
	covered := "the whole file"
	if r[2]+r[3] < n {
		covered = "the file up to byte " + strconv.FormatInt(r[2]+r[3], 10) + " of " + strconv.FormatInt(n, 10)
	}
	c := cms.signer
	return SignatureInfo{Kind: kind, Signer: DisplayName(c.Subject), Issuer: DisplayName(c.Issuer), Serial: c.SerialNumber.String(), Covered: covered}, nil
}
