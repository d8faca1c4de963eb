package ciuspt

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"einvoice/ubl/rules"
)

func TestDigitsAndDates(t *testing.T) {
	ref := func(s string, min, max int) bool {
		k := 0
		for _, r := range s {
			if !unicode.IsDigit(r) {
				return false
			}
			k++
		}
		return k >= min && k <= max
	}
	refDate := func(s string) bool {
		p := strings.Split(s, "-")
		return len(p) == 3 && ref(p[0], 4, 4) && ref(p[1], 2, 2) && ref(p[2], 2, 2)
	}
	for _, s := range []string{"", "1", "12", "2024", "٢٠٢٤", "12a", "a1", "1٢", "１２", "2024-01-02", "2024-1-02", "2024-01-02-03", "2024--01", "-2024-01-02", "٢٠٢٤-٠١-٠٢", "2024-01-0x", "2024-01-"} {
		for _, mm := range [][2]int{{1, 1}, {2, 2}, {4, 4}, {0, 3}} {
			if got, want := digits(s, mm[0], mm[1]), ref(s, mm[0], mm[1]); got != want {
				t.Errorf("digits(%q, %v) = %v, want %v", s, mm, got, want)
			}
		}
		if got, want := isDate(s), refDate(s); got != want {
			t.Errorf("isDate(%q) = %v, want %v", s, got, want)
		}
	}
}

// The written-out CustomizationID test agrees with the official regular expression.
func TestCustomizationMatchesTheExpression(t *testing.T) {
	re := rules.Re(`^urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:(.{1,10})$`)
	base := "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:2.1.1"
	cases := []string{base, "", "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:",
		"urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:12345678901", base + "\n", " " + base,
		"urn:cenXeu:en16931:2017#compliant#urn:feapçgov.pt:CIUS-PT:x", "urn:cen\neu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:1",
		"urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:ção\xff", "urn:cen.eu:en16931:2017#compliant#urn:feap.gov.pt:CIUS-PT:\r"}
	for i := range base { // every character changed, dropped or doubled
		cases = append(cases, base[:i]+"#"+base[i+1:], base[:i]+base[i+1:], base[:i+1]+base[i:])
	}
	for _, s := range cases {
		if got, want := customizationMatches(s), re.MatchString(s); got != want {
			t.Errorf("%q: %v, the expression says %v", s, got, want)
		}
	}
}

// A note's count expression is only tried on notes that start with its tag: no note without that
// start may match it.
func TestNoteCountNeedsTheTag(t *testing.T) {
	tags := []noteTag{tagSourceCurrency, tagRate, tagPeriodDesc, tagProgramNumber, tagProgramHash, tagProgramDesc}
	for _, tg := range tags {
		matched := 0
		for _, lead := range []string{"", " ", "\n", "\t", "x", "#", "##", strings.ToLower(tg.open)} {
			for _, rest := range []string{"", "#", "x#", "EUR#", "1.00#", "x", " x #", "x#y#", strings.Repeat("a", 151) + "#"} {
				for _, s := range []string{lead + tg.open + rest, lead + rest, tg.open[:len(tg.open)-1] + rest} {
					if !tg.count.MatchString(s) {
						continue
					}
					matched++
					if !strings.HasPrefix(s, tg.open) {
						t.Errorf("%q matches the count of %s without starting with it", s, tg.open)
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("no sample matched the count of %s: the test proves nothing", tg.open)
		}
	}
}

// fitsLength is the official matches(., '^(.{1,n})$') (with the flag 's' when dotAll) on every string
// of up to five characters from letters, a two-byte letter, blanks and line breaks.
func TestFitsLengthIsTheOfficialPattern(t *testing.T) {
	alphabet := []string{"a", "é", " ", "\n", "\r", "\u20ac"}
	for n := 1; n <= 4; n++ {
		plain, dotAll := rules.Re(fmt.Sprintf(`^(.{1,%d})$`, n)), rules.Re(fmt.Sprintf(`^(.{1,%d})$`, n), "s")
		var walk func(s string, depth int)
		walk = func(s string, depth int) {
			if got, want := fitsLength(s, n, false), plain.MatchString(s); got != want {
				t.Fatalf("fitsLength(%q, %d) = %v, want %v", s, n, got, want)
			}
			if got, want := fitsLength(s, n, true), dotAll.MatchString(s); got != want {
				t.Fatalf("fitsLength(%q, %d, dotAll) = %v, want %v", s, n, got, want)
			}
			if depth < 5 {
				for _, a := range alphabet {
					walk(s+a, depth+1)
				}
			}
		}
		walk("", 0)
	}
}
