package rules

import (
	"math/big"
	"math/bits"

	"einvoice/ubl/xmltree"

	"github.com/shopspring/decimal"
)

// Dec is an xs:decimal: exact, arbitrary precision. Values that fit are held as an int64 coefficient
// and a decimal scale (value = m × 10^-e) and computed without allocation; the others, and every
// quotient, are held by shopspring/decimal.
type Dec struct {
	m   int64
	e   int32 // 0 ≤ e ≤ maxScale when big is nil
	big *decimal.Decimal
}

// maxScale is the largest scale of the small form: powers of ten up to it fit an int64.
const maxScale = 18

var pow10 = func() (p [maxScale + 1]int64) {
	p[0] = 1
	for i := 1; i <= maxScale; i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

func init() { decimal.DivisionPrecision = 20 }

// D is a decimal constant ("1.00").
func D(s string) Dec {
	d, ok := ParseDec(s)
	if !ok {
		panic("rules: bad decimal constant " + s)
	}
	return d
}

// Int is an integer as a decimal.
func Int(i int64) Dec { return Dec{m: i} }

// ParseDec reads the xs:decimal lexical form: surrounding whitespace, optional sign, digits with at
// most one point, at least one digit, no exponent.
func ParseDec(s string) (Dec, bool) {
	s = TrimBlanks(s)
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if body == "" || body == "." || body[0] == '+' || body[0] == '-' {
		return Dec{}, false
	}
	// Trailing zeros of the fraction are dropped ("1.500" is 15 × 10^-1), so that quantities written
	// with many places stay small in products: zeros after the point count only once a digit follows.
	var m uint64
	digits, scale, zeros, dot := 0, 0, 0, false
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch >= '0' && ch <= '9':
			if ch == '0' && (dot || m == 0) {
				if dot {
					zeros++
				}
				continue // leading zeros, or zeros that may end the fraction
			}
			for ; zeros > 0; zeros-- {
				m *= 10
				digits++
				scale++
			}
			m = m*10 + uint64(ch-'0')
			digits++
			if dot {
				scale++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return Dec{}, false
		}
	}
	if digits > maxScale || scale > maxScale {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return Dec{}, false
		}
		return fromBig(d), true
	}
	v := int64(m)
	if s[0] == '-' {
		v = -v
	}
	return Dec{m: v, e: int32(scale)}, true
}

// fromBig holds a shopspring value, in the small form when it fits.
func fromBig(d decimal.Decimal) Dec {
	coef, exp := d.Coefficient(), d.Exponent()
	if coef.Sign() == 0 {
		return Dec{}
	}
	// Only zeros ending the fraction can be dropped, each taking less than 3.33 bits: a coefficient
	// that even so keeps more than 63 bits stays in the big form without trying.
	if exp > 0 || coef.BitLen()-int(-exp)*3322/1000-1 > 63 {
		return Dec{big: &d}
	}
	var q, r big.Int
	for exp < 0 {
		q.QuoRem(coef, bigTen, &r)
		if r.Sign() != 0 {
			break
		}
		coef.Set(&q)
		exp++
	}
	if coef.IsInt64() && -exp <= maxScale {
		return Dec{m: coef.Int64(), e: -exp}
	}
	return Dec{big: &d}
}

var bigTen = big.NewInt(10) // only read

// Decimal is the value as a shopspring decimal, for code outside the rules.
func (a Dec) Decimal() decimal.Decimal { return a.toBig() }

func (a Dec) toBig() decimal.Decimal {
	if a.big != nil {
		return *a.big
	}
	return decimal.New(a.m, -a.e)
}

// align brings a and b to one scale; ok is false when a coefficient would overflow.
func align(a, b Dec) (am, bm int64, e int32, ok bool) {
	if a.big != nil || b.big != nil {
		return 0, 0, 0, false
	}
	am, bm = a.m, b.m
	switch {
	case a.e < b.e:
		am, ok = mulSmall(am, pow10[b.e-a.e])
		return am, bm, b.e, ok
	case b.e < a.e:
		bm, ok = mulSmall(bm, pow10[a.e-b.e])
		return am, bm, a.e, ok
	}
	return am, bm, a.e, true
}

// mulSmall is x × y when the product fits an int64 (and is not its minimum, so negation is safe).
func mulSmall(x, y int64) (int64, bool) {
	neg := (x < 0) != (y < 0)
	ux, uy := abs64(x), abs64(y)
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

func (a Dec) Add(b Dec) Dec {
	if am, bm, e, ok := align(a, b); ok {
		// Two's-complement addition overflowed only if both operands have one sign and the sum the other.
		if r := am + bm; (am >= 0) != (bm >= 0) || (r >= 0) == (am >= 0) {
			return Dec{m: r, e: e}
		}
	}
	return fromBig(a.toBig().Add(b.toBig()))
}

func (a Dec) Sub(b Dec) Dec { return a.Add(b.Neg()) }

func (a Dec) Mul(b Dec) Dec {
	if a.big == nil && b.big == nil && a.e+b.e <= maxScale {
		if m, ok := mulSmall(a.m, b.m); ok {
			return Dec{m: m, e: a.e + b.e}
		}
	}
	return fromBig(a.toBig().Mul(b.toBig()))
}

func (a Dec) Neg() Dec {
	if a.big != nil {
		n := a.big.Neg()
		return Dec{big: &n}
	}
	if a.m == -1<<63 {
		return fromBig(a.toBig().Neg())
	}
	return Dec{m: -a.m, e: a.e}
}

func (a Dec) Cmp(b Dec) int {
	if am, bm, _, ok := align(a, b); ok {
		switch {
		case am < bm:
			return -1
		case am > bm:
			return 1
		}
		return 0
	}
	return a.toBig().Cmp(b.toBig())
}

func (a Dec) Equal(b Dec) bool  { return a.Cmp(b) == 0 }
func (a Dec) Less(b Dec) bool   { return a.Cmp(b) < 0 }
func (a Dec) LessEq(b Dec) bool { return a.Cmp(b) <= 0 }
func (a Dec) IsZero() bool      { return a.Sign() == 0 }
func (a Dec) String() string    { return a.toBig().String() }
func (a Dec) Float() float64    { return a.toBig().InexactFloat64() }

func (a Dec) Sign() int {
	switch {
	case a.big != nil:
		return a.big.Sign()
	case a.m < 0:
		return -1
	case a.m > 0:
		return 1
	}
	return 0
}

// Div is decimal division (to 20 places); division by zero is a dynamic error, as in XPath.
func (a Dec) Div(b Dec) Dec {
	if b.IsZero() {
		dynamicError("decimal division by zero")
	}
	if q, ok := divSmall(a, b); ok {
		return q
	}
	return fromBig(a.toBig().DivRound(b.toBig(), 20))
}

// divSmall is a ÷ b, b not zero, when both are in the small form and the quotient is exact at a scale
// the small form holds (as 1.5 ÷ 100 or 10 ÷ 4, not 1 ÷ 3).
func divSmall(a, b Dec) (Dec, bool) {
	if a.big != nil || b.big != nil {
		return Dec{}, false
	}
	neg := (a.m < 0) != (b.m < 0)
	// b = ub × 10^-eb with ub free of trailing zeros, and a ÷ b = (ua ÷ ub) × 10^(eb - a.e).
	ua, ub, eb := abs64(a.m), abs64(b.m), b.e
	for ub%10 == 0 {
		ub, eb = ub/10, eb-1
	}
	if ua%ub == 0 { // the usual case (b is 1, 100, 0.5…): the quotient is ua ÷ ub at scale a.e - eb
		q, s := ua/ub, a.e-eb
		for ; s < 0; s++ {
			if q > (1<<63-1)/10 {
				return Dec{}, false
			}
			q *= 10
		}
		return smallQuotient(q, s, neg)
	}
	// The quotient at scale s is ua × 10^(s + eb - a.e) ÷ ub. A quotient exact at some scale is exact
	// at every larger one, so the largest scale that neither overflows nor passes maxScale decides.
	for s := min(int32(maxScale), maxScale-eb+a.e); s >= 0 && s >= a.e-eb; s-- {
		hi, lo := bits.Mul64(ua, uint64(pow10[s+eb-a.e]))
		if hi >= ub {
			continue // the quotient would not fit 64 bits
		}
		q, r := bits.Div64(hi, lo, ub)
		if r != 0 {
			return Dec{}, false
		}
		return smallQuotient(q, s, neg)
	}
	return Dec{}, false
}

// smallQuotient is ±q × 10^-s in the small form at its smallest scale (which keeps products small).
func smallQuotient(q uint64, s int32, neg bool) (Dec, bool) {
	for q != 0 && q%10 == 0 && s > 0 {
		q, s = q/10, s-1
	}
	if q > 1<<63-1 || s > maxScale {
		return Dec{}, false
	}
	if neg {
		return Dec{m: -int64(q), e: s}, true
	}
	return Dec{m: int64(q), e: s}, true
}

// Round is XPath round(): to the nearest integer, halves towards positive infinity.
func (a Dec) Round() Dec { return a.roundTo(0) }

// Round2 is round(x * 100) div 100, the rounding to cents the rules write out.
func (a Dec) Round2() Dec { return a.roundTo(2) }

// roundTo rounds to the given number of places, halves towards positive infinity.
func (a Dec) roundTo(places int32) Dec {
	if a.big == nil && a.e <= places {
		return a
	}
	if a.big == nil && a.m > -1<<62 && a.m < 1<<62 {
		unit := pow10[a.e-places]
		return Dec{m: floorDiv(2*a.m+unit, 2*unit), e: places}
	}
	half := decimal.New(5, -places-1)
	return fromBig(a.toBig().Add(half).Shift(places).Floor().Shift(-places))
}

func floorDiv(x, y int64) int64 {
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q--
	}
	return q
}

// Abs is the absolute value.
func (a Dec) Abs() Dec {
	if a.Sign() < 0 {
		return a.Neg()
	}
	return a
}

// Within reports |a - b| <= tol.
func (a Dec) Within(b, tol Dec) bool { return a.Sub(b).Abs().LessEq(tol) }

// Dec casts a node's value to xs:decimal; an invalid value is a dynamic error.
func (c *Ctx) Dec(n xmltree.NodeID) Dec {
	s := c.Str(n)
	d, ok := ParseDec(s)
	if !ok {
		dynamicError("cannot convert %q to xs:decimal", s)
	}
	return d
}

// DecOf is xs:decimal(p): false for an empty sequence, a dynamic error for more than one node or an
// invalid value.
func (c *Ctx) DecOf(n xmltree.NodeID, p *Path) (Dec, bool) {
	x := c.One(n, p)
	if x == xmltree.None {
		return Dec{}, false
	}
	return c.Dec(x), true
}

// Sum is sum(p/xs:decimal(.)): 0 for no node.
func (c *Ctx) Sum(n xmltree.NodeID, p *Path) Dec {
	total := Dec{}
	for _, x := range c.selectNodes(n, p) {
		total = total.Add(c.Dec(x))
	}
	return total
}

// SumWhere sums xs:decimal over the nodes p selects that satisfy keep.
func (c *Ctx) SumWhere(n xmltree.NodeID, p *Path, keep func(xmltree.NodeID) bool) Dec {
	total := Dec{}
	for _, x := range c.selectNodes(n, p) {
		if keep(x) {
			total = total.Add(c.Dec(x))
		}
	}
	return total
}
