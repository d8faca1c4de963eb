package xsd

import (
	"slices"
	"strings"
)

// check tests a value against the simple type's lexical space the way libxml2 does, and returns what
// is wrong ("" when valid). Element content and attribute values differ in one respect: libxml2
// applies the whitespace facet to attribute values before checking them, while the text of a
// simple-content element reaches the date and time checks as written.
func (st *simpleType) check(value string, element bool, v *validator) string {
	if st.enum != nil {
		if !slices.Contains(st.enum, collapse(value)) {
			return "'" + value + "' is not one of the allowed values"
		}
		return ""
	}
	ok := true
	switch st.base {
	case bString, bNormalizedString, bAnySimple:
	case bToken:
	case bLanguage:
		ok = validLanguage(collapse(value))
	case bNCName, bName, bNMTOKEN, bIDREF, bQName:
		ok = validNCName(collapse(value)) || st.base != bNCName && value != ""
	case bID:
		id := collapse(value)
		ok = validNCName(id)
		if ok {
			if v.ids == nil {
				v.ids = map[string]bool{}
			}
			if v.ids[id] {
				return "the ID '" + id + "' is used twice"
			}
			v.ids[id] = true
		}
	case bAnyURI:
		ok = anyURI(value)
	case bBase64:
		ok = base64Lexical(value)
	case bHex:
		ok = hexLexical(trimBlank(value))
	case bBoolean:
		switch trimBlank(value) {
		case "true", "false", "1", "0":
		default:
			ok = false
		}
	case bDecimal:
		ok = decimalLexical(trimBlank(value))
	case bInteger, bNonNegativeInteger, bPositiveInteger, bInt:
		ok = integerLexical(trimBlank(value), st.base)
	case bDouble:
		ok = doubleLexical(trimBlank(value))
	case bDate, bTime, bDateTime:
		if !element {
			value = collapse(value)
		}
		ok = dateLexical(value, st.base)
	}
	if !ok {
		return "'" + value + "' is not a valid " + st.name
	}
	return ""
}

// trimBlank removes the blanks libxml2 skips around numbers and booleans.
func trimBlank(s string) string {
	for len(s) > 0 && isBlank(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isBlank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// collapse applies the XSD "collapse" whitespace facet.
func collapse(s string) string {
	blanks := false
	for i := 0; i < len(s) && !blanks; i++ {
		blanks = isBlank(s[i])
	}
	if !blanks {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }), " ")
}

// anyURI: libxml2 collapses the value, replaces characters a URI may not hold with '_', and parses what
// is left as a URI reference.
func anyURI(value string) bool {
	value = collapse(value)
	if value == "" {
		return true
	}
	b := []byte(value)
	for i, c := range b {
		if c < 32 || c >= 127 || strings.IndexByte(" <>\"{}|\\^`'", c) >= 0 {
			b[i] = '_'
		}
	}
	return validURI(string(b))
}

// base64Values is each byte's value in the base64 alphabet: 0 to 63, base64Pad for "=", -1 for a byte
// outside it.
var base64Values = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = int8(i)
	}
	t['='] = base64Pad
	return t
}()

const base64Pad = 64

// base64Lexical follows libxml2: characters outside the alphabet are ignored; data may not follow the
// padding; the count must complete a quantum; and the bits padding covers must be zero. An embedded
// attachment is the longest value of many documents, so the data before any padding or other byte is
// counted eight bytes at a time.
func base64Lexical(s string) bool {
	data, i := 0, 0
	for i < len(s) {
		if i+8 <= len(s) {
			// Alphabet values have neither of the top two bits set; "=" (64) and -1 have one.
			v := base64Values[s[i]] | base64Values[s[i+1]] | base64Values[s[i+2]] | base64Values[s[i+3]] |
				base64Values[s[i+4]] | base64Values[s[i+5]] | base64Values[s[i+6]] | base64Values[s[i+7]]
			if v&^63 == 0 {
				data, i = data+8, i+8
				continue
			}
		}
		d := base64Values[s[i]]
		if d == base64Pad {
			break
		}
		if d >= 0 {
			data++
		}
		i++
	}
	pad := 0
	for ; i < len(s); i++ {
		switch d := base64Values[s[i]]; {
		case d == base64Pad:
			pad++
		case d >= 0:
			return false
		}
	}
	last := func() int8 {
		for j := len(s) - 1; j >= 0; j-- {
			if d := base64Values[s[j]]; d >= 0 && d < base64Pad {
				return d
			}
		}
		return 0
	}
	switch pad {
	case 0:
		return data%4 == 0
	case 1:
		return data%4 == 3 && last()&^0x3c == 0
	case 2:
		return data%4 == 2 && last()&^0x30 == 0
	}
	return false
}

func hexLexical(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// decimalLexical follows libxml2: optional sign, digits with at most one point, at least one digit
// (or leading zeros), and no more than 24 digits after the leading zeros.
func decimalLexical(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	leadingZeros := false
	for len(s) > 0 && s[0] == '0' {
		s, leadingZeros = s[1:], true
	}
	digits := 0
	i := 0
	for i < len(s) && digits < 24 {
		c := s[i]
		if c >= '0' && c <= '9' {
			i++
			digits++
			continue
		}
		if c == '.' {
			i++
			for i < len(s) && digits < 24 && s[i] >= '0' && s[i] <= '9' {
				i++
				digits++
			}
			if digits == 0 && !leadingZeros {
				return false
			}
		}
		break
	}
	return i == len(s)
}

func integerLexical(s string, b builtin) bool {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return false
	}
	zero := true
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		if s[i] != '0' {
			zero = false
		}
	}
	switch b {
	case bNonNegativeInteger:
		return !neg || zero
	case bPositiveInteger:
		return !neg && !zero
	case bInt:
		t := strings.TrimLeft(s, "0")
		return len(t) < 10 || len(t) == 10 && (t < "2147483647" || t == "2147483647" || neg && t == "2147483648")
	}
	// xs:integer has no bound. libxml2 (xmllint) stops at 24 digits; the official validator, on the JDK's
	// Xerces, does not, and certificate serial numbers in signatures (ds:X509SerialNumber) are often
	// longer: 20 octets are 49 digits.
	return true
}

func doubleLexical(s string) bool {
	switch s {
	case "INF", "-INF", "NaN":
		return true
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || s[0] == '+' || s[0] == '-' {
		return false
	}
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}

// dateLexical checks xs:date, xs:time and xs:dateTime values, with their value constraints (month,
// day of month, leap years, hour, minute, second, time zone within ±14:00).
func dateLexical(s string, b builtin) bool {
	p := dateParser{s: s}
	switch b {
	case bDate:
		return p.date() && p.zone() && p.end()
	case bTime:
		return p.time() && p.zone() && p.end()
	default:
		return p.date() && p.lit('T') && p.time() && p.zone() && p.end()
	}
}

type dateParser struct {
	s string
	i int
}

func (p *dateParser) end() bool { return p.i == len(p.s) }

func (p *dateParser) lit(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// digits reads exactly n digits.
func (p *dateParser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for k := 0; k < n; k++ {
		c := p.s[p.i+k]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

func (p *dateParser) date() bool {
	neg := p.lit('-')
	start := p.i
	year := 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		year = year*10 + int(p.s[p.i]-'0')
		if year > 1e9 {
			return false
		}
		p.i++
	}
	n := p.i - start
	if n < 4 || n > 4 && p.s[start] == '0' || year == 0 {
		return false
	}
	if !p.lit('-') {
		return false
	}
	month, ok := p.digits(2)
	if !ok || month < 1 || month > 12 || !p.lit('-') {
		return false
	}
	day, ok := p.digits(2)
	if !ok || day < 1 {
		return false
	}
	if neg {
		year = -year + 1 // proleptic Gregorian: year -1 is leap like year 0
	}
	return day <= daysIn(year, month)
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func (p *dateParser) time() bool {
	h, ok := p.digits(2)
	if !ok || !p.lit(':') {
		return false
	}
	m, ok := p.digits(2)
	if !ok || !p.lit(':') {
		return false
	}
	sec, ok := p.digits(2)
	if !ok {
		return false
	}
	frac := false
	if p.lit('.') {
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == start {
			return false
		}
		frac = strings.Trim(p.s[start:p.i], "0") != ""
	}
	if h == 24 {
		return m == 0 && sec == 0 && !frac
	}
	return h <= 23 && m <= 59 && sec <= 59
}

func (p *dateParser) zone() bool {
	if p.i == len(p.s) {
		return true
	}
	if p.lit('Z') {
		return true
	}
	if !p.lit('+') && !p.lit('-') {
		return false
	}
	h, ok := p.digits(2)
	if !ok || !p.lit(':') {
		return false
	}
	m, ok := p.digits(2)
	return ok && m <= 59 && (h < 14 || h == 14 && m == 0)
}

// validLanguage is xs:language's pattern, [a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*, which is what libxml2's
// schema validator checks (not its stricter xml:lang check: "G" is a valid xs:language).
func validLanguage(s string) bool {
	for i, part := range strings.Split(s, "-") {
		if len(part) < 1 || len(part) > 8 {
			return false
		}
		for _, c := range []byte(part) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
				return false
			}
		}
	}
	return true
}
