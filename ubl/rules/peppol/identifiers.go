package peppol

import (
	"strings"
)

// The identifier checks the PEPPOL artefacts call u:gln, u:mod11, u:mod97-0208, u:abn, u:checkSEOrgnr,
// u:checkCodiceIPA, u:checkCF and u:checkPIVAseIT, written from their definitions. They take the
// normalised identifier and expect the callers' format checks to have run (as the official tests do).

func digitAt(s string, i int) int {
	if i < 0 || i >= len(s) {
		return 0
	}
	return int(s[i]) - '0'
}

// gln: the GS1 check digit (weights 3 and 1 alternating from the right of the body).
func gln(s string) bool {
	if len(s) < 1 {
		return false
	}
	body := s[:len(s)-1]
	sum := 0
	for i := 0; i < len(body); i++ {
		d := int(body[len(body)-1-i]) - '0'
		w := 1
		if i%2 == 0 {
			w = 3
		}
		sum += d * w
	}
	return (10-sum%10)%10 == digitAt(s, len(s)-1)
}

// mod11: the Norwegian organisation number check (weights 2..7 repeating from the right), value > 0.
func mod11(s string) bool {
	if len(s) < 1 || strings.Trim(s, "0") == "" {
		return false
	}
	body := s[:len(s)-1]
	sum := 0
	for i := 0; i < len(body); i++ {
		sum += (int(body[len(body)-1-i]) - '0') * (i%6 + 2)
	}
	return (11-sum%11)%11 == digitAt(s, len(s)-1)
}

// mod97: the Belgian enterprise number check: 97 minus the first eight digits modulo 97 is the last two.
func mod97(s string) bool {
	if len(s) < 10 {
		return false
	}
	n := 0
	for i := 0; i < 8; i++ {
		n = n*10 + digitAt(s, i)
	}
	return 97-n%97 == digitAt(s, 8)*10+digitAt(s, 9)
}

// abn: the Australian Business Number check (first digit minus one, weights 10,1,3,…,19, modulo 89).
func abn(s string) bool {
	if len(s) < 11 {
		return false
	}
	weights := []int{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19}
	sum := (int(s[0]) - 49) * weights[0]
	for i := 1; i < 11; i++ {
		sum += (int(s[i]) - 48) * weights[i]
	}
	return sum%89 == 0
}

// seOrgnr: the Swedish organisation number check (Luhn over the first nine digits, tenth the check).
func seOrgnr(s string) bool {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return false
	}
	main := s
	if len(main) > 9 {
		main = main[:9]
	}
	sum := 0
	for pos := 1; pos <= len(main); pos++ {
		d := int(main[len(main)-pos]) - '0'
		if pos%2 == 1 {
			d *= 2
			d = d%10 + d/10
		}
		sum += d
	}
	if len(s) < 10 {
		return false
	}
	return (10-sum%10)%10 == digitAt(s, 9)
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z') {
			return false
		}
	}
	return true
}

// castableInteger is "s castable as xs:integer": surrounding blanks, an optional sign, digits.
func castableInteger(s string) bool {
	s = strings.Trim(s, " \t\n\r")
	s = strings.TrimLeft(s, "+-")
	if s == "" || len(s) != len(strings.TrimLeft(s, "+-")) {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// codiceIPA: six letters or digits.
func codiceIPA(s string) bool {
	if len([]rune(s)) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// substr is XPath substring(s, start, length) on an ASCII identifier.
func substr(s string, start, length int) string {
	r := []rune(s)
	from, to := start-1, start-1+length
	from, to = max(from, 0), min(to, len(r))
	if from >= to {
		return ""
	}
	return string(r[from:to])
}

// codiceFiscale: an Italian fiscal code: 16 characters in the person form, or 11 digits.
func codiceFiscale(s string) bool {
	switch len([]rune(s)) {
	case 16:
		return isLetters(substr(s, 1, 6)) && castableInteger(substr(s, 7, 2)) && isLetters(substr(s, 9, 1)) &&
			castableInteger(substr(s, 10, 2)) && castableInteger(substr(s, 15, 1)) && isLetters(substr(s, 16, 1))
	case 11:
		return castableInteger(s)
	}
	return false
}

// partitaIVA: an Italian VAT number, checked only when it starts with IT: eleven digits whose
// alternating-doubled digit sum ends in 0.
func partitaIVA(s string) bool {
	country, code := substr(s, 1, 2), substr(s, 3, len([]rune(s)))
	if country != "IT" && country != "it" {
		return true
	}
	if len([]rune(code)) != 11 || !castableInteger(code) {
		return false
	}
	sum, double := 0, false
	for i := 0; i < len(code); i++ {
		rest := code[i:]
		if !castableInteger(rest) {
			break
		}
		d := int(code[i]) - '0'
		if d < 0 || d > 9 {
			fail("cannot convert %q to xs:integer", string(code[i]))
		}
		if double {
			d = int("0246813579"[d] - '0')
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
