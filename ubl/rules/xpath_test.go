package rules

import (
	"strings"
	"testing"
)

// Norm is normalize-space on every string of up to six characters from blanks, letters and a non-ASCII
// character, and returns an already normal value unchanged.
func TestNormIsNormalizeSpace(t *testing.T) {
	alphabet := []string{" ", "\t", "\n", "\r", "a", "é", "\u00a0"}
	ref := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }), " ")
	}
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		if got, want := Norm(s), ref(s); got != want {
			t.Fatalf("Norm(%q) = %q, want %q", s, got, want)
		}
		if depth < 6 {
			for _, a := range alphabet {
				walk(s+a, depth+1)
			}
		}
	}
	walk("", 0)
}
