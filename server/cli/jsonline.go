package cli

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"einvoice/ubl"
)

// appendJSONLine appends a file's line of `validate --json`: the bytes encoding/json's Marshal writes for
// jsonLine{file, r}, written directly. Over a folder of small files, reflection made the encoding cost
// half as much as the validation; a test holds the two to the same bytes.
func appendJSONLine(b []byte, file string, r *ubl.Result) []byte {
	b = append(b, `{"file":`...)
	b = appendJSONString(b, file)
	b = append(b, `,"profile":`...)
	b = appendJSONString(b, string(r.Profile))
	b = append(b, `,"root":`...)
	if r.Root == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *r.Root)
	}
	b = append(b, `,"xsd_valid":`...)
	b = strconv.AppendBool(b, r.XSDValid)
	b = append(b, `,"xsd_errors":`...)
	b = strconv.AppendInt(b, int64(r.XSDErrors), 10)
	b = append(b, `,"fatal":`...)
	b = appendCounts(b, r.Fatal)
	b = append(b, `,"warning":`...)
	b = appendCounts(b, r.Warning)
	if r.NoVerdict != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.NoVerdict)
	}
	if len(r.Service) > 0 {
		b = append(b, `,"service":`...)
		b = appendCounts(b, r.Service)
	}
	if len(r.Findings) > 0 {
		b = append(b, `,"findings":[`...)
		for i, f := range r.Findings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"rule":`...)
			b = appendJSONString(b, f.Rule)
			b = append(b, `,"flag":`...)
			b = appendJSONString(b, f.Flag)
			b = append(b, `,"location":`...)
			b = appendJSONString(b, f.Location)
			b = append(b, `,"message":`...)
			b = appendJSONString(b, f.Message)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendCounts appends counts by rule id as encoding/json writes a map: keys sorted, nil as null.
func appendCounts(b []byte, m map[string]int) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var stack [32]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(m[k]), 10)
	}
	return append(b, '}')
}

// plainJSON marks the ASCII bytes a JSON string holds as they are.
var plainJSON = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s quoted as encoding/json quotes strings: <, > and & escaped for HTML, the
// control characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029
// escaped (JavaScript reads them as line ends).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainJSON[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
