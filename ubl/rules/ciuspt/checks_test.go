package ciuspt

import (
	"strings"
	"testing"
	"unicode"
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
