// Package taxid checks tax identifiers: the Portuguese NIF (número de identificação fiscal) with its
// modulus-11 check digit, and the shape of tax IDs with an ISO 3166 country prefix.
package taxid

import (
	"errors"
	"strings"
)

// Errors returned by ValidNIF.
var (
	ErrNIFLength     = errors.New("a Portuguese NIF has exactly 9 digits")
	ErrNIFPrefix     = errors.New("the NIF starts with a digit no Portuguese tax ID starts with")
	ErrNIFCheckDigit = errors.New("the NIF check digit is wrong")
)

// ValidNIF checks a Portuguese NIF: 9 digits, a first digit (or pair) in use, and the modulus-11 check
// digit: 11 minus the weighted sum (weights 9..2) modulo 11, with 10 and 11 written as 0.
func ValidNIF(nif string) error {
	if len(nif) != 9 {
		return ErrNIFLength
	}
	for _, c := range nif {
		if c < '0' || c > '9' {
			return ErrNIFLength
		}
	}
	if !strings.ContainsRune("1235689", rune(nif[0])) && !strings.Contains(" 45 70 71 72 74 75 77 79 ", " "+nif[:2]+" ") {
		return ErrNIFPrefix
	}
	if CheckDigit(nif[:8]) != nif[8] {
		return ErrNIFCheckDigit
	}
	return nil
}

// CheckDigit computes the NIF check digit of the first eight digits.
func CheckDigit(first8 string) byte {
	sum := 0
	for i := 0; i < 8; i++ {
		sum += int(first8[i]-'0') * (9 - i)
	}
	d := 11 - sum%11
	if d >= 10 {
		d = 0
	}
	return byte('0' + d)
}

// Split separates an optional two-letter country prefix from a tax ID ("PT123456789" → "PT",
// "123456789"). Without a prefix the country is empty.
func Split(id string) (country, number string) {
	id = strings.ToUpper(strings.TrimSpace(id))
	if len(id) > 2 && id[0] >= 'A' && id[0] <= 'Z' && id[1] >= 'A' && id[1] <= 'Z' {
		return id[:2], id[2:]
	}
	return "", id
}

// ValidCountry reports whether c looks like an ISO 3166-1 alpha-2 code (two upper-case letters).
func ValidCountry(c string) bool {
	return len(c) == 2 && c[0] >= 'A' && c[0] <= 'Z' && c[1] >= 'A' && c[1] <= 'Z'
}
