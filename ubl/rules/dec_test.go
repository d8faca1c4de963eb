package rules

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// The small form must compute exactly what arbitrary precision does, across the int64 boundaries.
func TestDecAgreesWithArbitraryPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []string{"0", "-0.00", "1", "-1", "0.5", "-0.5", "0.005", "-0.005", "0.015", "-0.015", "123.456",
		"999999999999999999", "-999999999999999999", "9223372036854775807", "0.000000000000000001",
		"4611686018427387904", "12345678901234567890.123", "+7.10", "000123.4500",
		"1.000000000000000000000", "10.50000000", "-0.0000100", "0123456789012.01234560", "0.0", "-.500", "500.000",
		"18446744073709551615", "18446744073709551616", "-9223372036854775808", "99999999999999999999999999999999999999",
		"-99999999999999999999999999999999999999", "999999999999999999999999999999999999999",
		"0.00000000000000000000000000000000000001", "0.000000000000000000000000000000000000001",
		"340282366920938463463374607431768211455", "170141183460469231731687303715884105728",
		"18446744073709551616.5", "0123456789012.01234567", "-0123456789012.012"}
	for i := 0; i < 400; i++ {
		digits := rng.IntN(40) + 1 // across the 64-bit and 128-bit coefficients and past them
		v := strconv.FormatInt(rng.Int64N(9)+1, 10)
		for len(v) < digits {
			v += strconv.FormatInt(rng.Int64N(1e18), 10)
		}
		v = v[:digits]
		if p := rng.IntN(len(v) + 1); p < len(v) {
			v = v[:p] + "." + v[p:]
			if p == 0 {
				v = "0" + v
			}
		}
		if rng.IntN(2) == 0 {
			v = "-" + v
		}
		values = append(values, v)
	}
	ref := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	check := func(op string, got Dec, want decimal.Decimal) {
		t.Helper()
		if !got.toBig().Equal(want) {
			t.Fatalf("%s = %s, want %s", op, got, want)
		}
	}
	for i, x := range values {
		a, ok := ParseDec(x)
		if !ok {
			t.Fatalf("ParseDec(%q) failed", x)
		}
		check(x, a, ref(x))
		check("round2 "+x, a.Round2(), ref(x).Add(decimal.RequireFromString("0.005")).Shift(2).Floor().Shift(-2))
		check("round "+x, a.Round(), ref(x).Add(decimal.RequireFromString("0.5")).Floor())
		for _, y := range values[max(0, i-25):i] {
			b, _ := ParseDec(y)
			check(x+" + "+y, a.Add(b), ref(x).Add(ref(y)))
			check(x+" - "+y, a.Sub(b), ref(x).Sub(ref(y)))
			check(x+" * "+y, a.Mul(b), ref(x).Mul(ref(y)))
			if got, want := a.Cmp(b), ref(x).Cmp(ref(y)); got != want {
				t.Fatalf("cmp(%s, %s) = %d, want %d", x, y, got, want)
			}
			if !b.IsZero() {
				check(x+" / "+y, a.Div(b), ref(x).DivRound(ref(y), 20))
			}
		}
	}
}

// Divisions that come out exact take the small form's own path: they must equal arbitrary precision too.
func TestDecDivisionAgreesWithArbitraryPrecision(t *testing.T) {
	dividends := []string{"0", "1", "-1", "23.00", "-150.5", "12345.6789", "0.000000000000000001", "999999999999999999",
		"-9223372036854775807", "9223372036854775.807", "100", "3", "0.3", "1024"}
	divisors := []string{"1", "-1", "100", "0.01", "4", "-8", "0.25", "1000", "0.001", "3", "7", "2.5", "1.000",
		"0.000000000000000001", "999999999999999999", "1024", "-0.5", "2.50", "400", "0.0200", "-3000"}
	for _, x := range dividends {
		for _, y := range divisors {
			got := D(x).Div(D(y))
			want := decimal.RequireFromString(x).DivRound(decimal.RequireFromString(y), 20)
			if !got.toBig().Equal(want) {
				t.Errorf("%s / %s = %s, want %s", x, y, got, want)
			}
		}
	}
	if q, ok := divSmall(D("23"), D("100")); !ok || q.e != 2 {
		t.Errorf("23 / 100 = %+v, want the small form at scale 2", q)
	}
}

func TestParseDecRejectsBadForms(t *testing.T) {
	for _, s := range []string{"", ".", "+-1", "1e5", "1.2.3", "--1", "1,5", "NaN", " "} {
		if _, ok := ParseDec(s); ok {
			t.Errorf("ParseDec(%q) accepted", s)
		}
	}
}

func BenchmarkDecLineArithmetic(b *testing.B) {
	qty, price, lea := D("3.000"), D("12.3456"), D("37.04")
	for b.Loop() {
		v := qty.Mul(price).Round2().Add(D("1.50")).Sub(D("1.50"))
		if !v.Within(lea, D("1.00")) {
			b.Fatal("outside")
		}
	}
}

// Trailing zeros of a fraction do not widen the small form: values written with many places multiply
// without leaving it.
func TestParseDecDropsTrailingZeros(t *testing.T) {
	for s, want := range map[string]Dec{"95.00000000": Int(95), "10.50": {m: u128{lo: 105}, e: 1},
		"-0.0100": {m: u128{lo: 1}, e: 2, neg: true}, "100": Int(100), "0.000": {}, "-0.00": {},
		"007.070": {m: u128{lo: 707}, e: 2}} {
		if got, ok := ParseDec(s); !ok || got != want {
			t.Errorf("ParseDec(%q) = %+v, want %+v", s, got, want)
		}
	}
	if p := D("1.0000000000").Mul(D("2.0000000000")); p.big != nil || !p.Equal(D("2")) {
		t.Errorf("product %+v", p)
	}
}
