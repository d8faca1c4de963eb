package rules

import (
	"math"
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

// UntypedCmp answers as Saxon 9.9 does (each case was put to it: `java net.sf.saxon.Query
// -qs:"xs:untypedAtomic('-0.00') = 0"`), including where XPath's own rules would answer otherwise.
func TestUntypedCmpIsSaxons(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		s, op   string
		x       float64
		integer bool
		want    bool
	}{
		{"-0.00", "=", 0, true, false},
		{"-0.00", "<", 0, true, true},
		{"-0.00", "<=", 0, true, true},
		{"-0.00", ">", 0, true, false},
		{"-0.00", ">=", 0, true, false},
		{"-0.00", "!=", 0, true, true},
		{"-0.00", "=", math.Copysign(0, -1), false, true},
		{"-0", "=", 0, true, true},
		{"-0", "<", 0, true, false},
		{"-0", "=", math.Copysign(0, -1), false, true},
		{"-0000", "=", 0, true, true},
		{" -0 ", "=", 0, true, true},
		{"-0E0", "=", 0, true, false},
		{"-0.", "=", 0, true, false},
		{"+0.00", "=", 0, true, true},
		{"0.00", ">", math.Copysign(0, -1), false, true},
		{"0", "=", math.Copysign(0, -1), false, false},
		{"NaN", ">", 0, true, true},
		{"NaN", ">=", 0, true, true},
		{"NaN", "<=", 0, true, false},
		{"NaN", "=", 0, true, false},
		{"NaN", "!=", 0, true, true},
		{"NaN", "=", nan, false, false},
		{"NaN", ">=", nan, false, false},
		{"NaN", "!=", nan, false, true},
		{"INF", ">", 0, true, true},
		{"-INF", "<", 0, true, true},
		{"-1.5", "<", -1, true, true},
		{"12.50", "=", 12.5, false, true},
		{"23", ">", 0, true, true},
	} {
		if got := UntypedCmp(c.s, c.op, c.x, c.integer); got != c.want {
			t.Errorf("%q %s %v (integer %v) = %v, Saxon says %v", c.s, c.op, c.x, c.integer, got, c.want)
		}
	}
	// A value that is no number stops the evaluation, as the cast does.
	defer func() {
		if _, ok := recover().(*DynamicError); !ok {
			t.Error(`"abc" > 0 did not stop the evaluation`)
		}
	}()
	UntypedCmp("abc", ">", 0, true)
}

// round() gives negative zero from -0.5 up to zero.
func TestRoundDoubleKeepsNegativeZero(t *testing.T) {
	for _, f := range []float64{-0.5, -0.4, math.Copysign(0, -1)} {
		if r := RoundDouble(f); r != 0 || !math.Signbit(r) {
			t.Errorf("round(%v) = %v, want -0", f, r)
		}
	}
	if r := RoundDouble(-0.6); r != -1 {
		t.Errorf("round(-0.6) = %v", r)
	}
	if r := RoundDouble(0.4); r != 0 || math.Signbit(r) {
		t.Errorf("round(0.4) = %v, want 0", r)
	}
}
