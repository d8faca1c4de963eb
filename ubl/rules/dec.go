package rules

import (
	"encoding/binary"
	"math/big"
	"math/bits"

	"einvoice/ubl/xmltree"

	"github.com/shopspring/decimal"
)

// Dec is an xs:decimal: exact, arbitrary precision. Values whose coefficient fits 128 bits (38
// digits) are held as a sign, that coefficient and a decimal scale (value = ±m × 10^-e) and computed
// without allocation; the others, and inexact quotients, are held by shopspring/decimal.
type Dec struct {
	m   u128
	e   int32 // 0 ≤ e ≤ maxScale when big is nil
	neg bool  // never set for zero
	big *decimal.Decimal
}

// maxScale is the largest scale of the small form: powers of ten up to it fit 128 bits.
const maxScale = 38

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

var pow10 = func() (p [maxScale + 1]u128) {
	p[0] = u128{lo: 1}
	for i := 1; i <= maxScale; i++ {
		p[i], _ = p[i-1].mul(u128{lo: 10})
	}
	return
}()

func (x u128) isZero() bool { return x.hi == 0 && x.lo == 0 }

func (x u128) cmp(y u128) int {
	switch {
	case x.hi < y.hi || x.hi == y.hi && x.lo < y.lo:
		return -1
	case x == y:
		return 0
	}
	return 1
}

// add is x + y; ok is false when the sum passes 128 bits.
func (x u128) add(y u128) (u128, bool) {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	hi, over := bits.Add64(x.hi, y.hi, carry)
	return u128{hi, lo}, over == 0
}

// sub is x - y for x ≥ y.
func (x u128) sub(y u128) u128 {
	lo, borrow := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, borrow)
	return u128{hi, lo}
}

// mul is x × y; ok is false when the product passes 128 bits.
func (x u128) mul(y u128) (u128, bool) {
	if x.hi != 0 && y.hi != 0 {
		return u128{}, false
	}
	hi, lo := bits.Mul64(x.lo, y.lo)
	c1hi, c1 := bits.Mul64(x.hi, y.lo)
	c2hi, c2 := bits.Mul64(x.lo, y.hi)
	if c1hi != 0 || c2hi != 0 {
		return u128{}, false
	}
	hi, over1 := bits.Add64(hi, c1, 0)
	hi, over2 := bits.Add64(hi, c2, 0)
	return u128{hi, lo}, over1 == 0 && over2 == 0
}

// times10plus is x × 10 + d, for x and d small enough that it fits.
func (x u128) times10plus(d uint64) u128 {
	hi, lo := bits.Mul64(x.lo, 10)
	lo, carry := bits.Add64(lo, d, 0)
	return u128{x.hi*10 + hi + carry, lo}
}

// divSmall is x ÷ d and its remainder, d not zero.
func (x u128) divSmall(d uint64) (u128, uint64) {
	qhi, r := x.hi/d, x.hi%d
	qlo, r := bits.Div64(r, x.lo, d)
	return u128{qhi, qlo}, r
}

func (x u128) bigInt() *big.Int {
	b := new(big.Int).SetUint64(x.hi)
	return b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(x.lo))
}

// small is ±m × 10^-e in the small form (zero without a sign).
func small(m u128, e int32, neg bool) Dec { return Dec{m: m, e: e, neg: neg && !m.isZero()} }

// divPlaces is the number of places a quotient is given to.
const divPlaces = 20

func init() { decimal.DivisionPrecision = divPlaces }

// D is a decimal constant ("1.00").
func D(s string) Dec {
	d, ok := ParseDec(s)
	if !ok {
		panic("rules: bad decimal constant " + s)
	}
	return d
}

// Int is an integer as a decimal.
func Int(i int64) Dec {
	if i < 0 {
		return small(u128{lo: uint64(-i)}, 0, true) // -i is right in two's complement even for the minimum
	}
	return small(u128{lo: uint64(i)}, 0, false)
}

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
	var m u128
	digits, scale, zeros, dot := 0, 0, 0, false
	push := func(d uint64) { // at most maxScale digits: no overflow
		m = m.times10plus(d)
		digits++
	}
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch >= '0' && ch <= '9':
			if ch == '0' && (dot || digits == 0) {
				if dot {
					zeros++
				}
				continue // leading zeros, or zeros that may end the fraction
			}
			if digits+zeros+1 > maxScale {
				return parseBig(s)
			}
			for ; zeros > 0; zeros-- {
				push(0)
				scale++
			}
			push(uint64(ch - '0'))
			if dot {
				scale++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return Dec{}, false
		}
	}
	return small(m, int32(scale), s[0] == '-'), true
}

// parseBig reads a well-formed value with more digits than the small form holds.
func parseBig(s string) (Dec, bool) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Dec{}, false
	}
	return fromBig(d), true
}

// fromBig holds a shopspring value, in the small form when it fits.
func fromBig(d decimal.Decimal) Dec {
	coef, exp := d.Coefficient(), d.Exponent()
	if coef.Sign() == 0 {
		return Dec{}
	}
	// Only zeros ending the fraction can be dropped, each taking less than 3.33 bits: a coefficient
	// that even so keeps more than 128 bits stays in the big form without trying.
	if exp > 0 || coef.BitLen()-int(-exp)*3322/1000-1 > 128 {
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
	neg := coef.Sign() < 0
	coef.Abs(coef)
	if coef.BitLen() <= 128 && -exp <= maxScale {
		var b [16]byte
		coef.FillBytes(b[:])
		return small(u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}, -exp, neg)
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
	if a.m.hi == 0 && a.m.lo < 1<<63 {
		m := int64(a.m.lo)
		if a.neg {
			m = -m
		}
		return decimal.New(m, -a.e)
	}
	b := a.m.bigInt()
	if a.neg {
		b.Neg(b)
	}
	return decimal.NewFromBigInt(b, -a.e)
}

// align brings the coefficients of a and b to one scale; ok is false when one would pass 128 bits.
func align(a, b Dec) (am, bm u128, e int32, ok bool) {
	if a.big != nil || b.big != nil {
		return u128{}, u128{}, 0, false
	}
	switch {
	case a.e < b.e:
		am, ok = a.m.mul(pow10[b.e-a.e])
		return am, b.m, b.e, ok
	case b.e < a.e:
		bm, ok = b.m.mul(pow10[a.e-b.e])
		return a.m, bm, a.e, ok
	}
	return a.m, b.m, a.e, true
}

func (a Dec) Add(b Dec) Dec {
	if am, bm, e, ok := align(a, b); ok {
		if a.neg == b.neg {
			if sum, ok := am.add(bm); ok {
				return small(sum, e, a.neg)
			}
		} else if am.cmp(bm) >= 0 {
			return small(am.sub(bm), e, a.neg)
		} else {
			return small(bm.sub(am), e, b.neg)
		}
	}
	return fromBig(a.toBig().Add(b.toBig()))
}

func (a Dec) Sub(b Dec) Dec { return a.Add(b.Neg()) }

func (a Dec) Mul(b Dec) Dec {
	if a.big == nil && b.big == nil && a.e+b.e <= maxScale {
		if m, ok := a.m.mul(b.m); ok {
			return small(m, a.e+b.e, a.neg != b.neg)
		}
	}
	return fromBig(a.toBig().Mul(b.toBig()))
}

func (a Dec) Neg() Dec {
	if a.big != nil {
		n := a.big.Neg()
		return Dec{big: &n}
	}
	return small(a.m, a.e, !a.neg)
}

func (a Dec) Cmp(b Dec) int {
	if am, bm, _, ok := align(a, b); ok {
		switch {
		case a.neg != b.neg: // (zero has no sign)
			if a.neg {
				return -1
			}
			return 1
		case a.neg:
			return bm.cmp(am)
		}
		return am.cmp(bm)
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
	case a.neg:
		return -1
	case !a.m.isZero():
		return 1
	}
	return 0
}

// Div is decimal division (to divPlaces places); division by zero is a dynamic error, as in XPath.
func (a Dec) Div(b Dec) Dec {
	if b.IsZero() {
		dynamicError("decimal division by zero")
	}
	if q, ok := divSmall(a, b); ok {
		return q
	}
	return fromBig(a.toBig().DivRound(b.toBig(), divPlaces))
}

// maxScale64 is the largest scale whose power of ten fits 64 bits.
const maxScale64 = 19

// divSmall is a ÷ b, b not zero, when both coefficients fit 64 bits and the quotient is exact at a
// scale the small form holds (as 1.5 ÷ 100 or 10 ÷ 4, not 1 ÷ 3).
func divSmall(a, b Dec) (Dec, bool) {
	if a.big != nil || b.big != nil || a.m.hi != 0 || b.m.hi != 0 {
		return Dec{}, false
	}
	neg := a.neg != b.neg
	// b = ub × 10^-eb with ub free of trailing zeros, and a ÷ b = (ua ÷ ub) × 10^(eb - a.e).
	ua, ub, eb := a.m.lo, b.m.lo, b.e
	for ub%10 == 0 {
		ub, eb = ub/10, eb-1
	}
	if ua%ub == 0 { // the usual case (b is 1, 100, 0.5…): the quotient is ua ÷ ub at scale a.e - eb
		q, s := u128{lo: ua / ub}, a.e-eb
		for ; s < 0; s++ {
			var ok bool
			if q, ok = q.mul(u128{lo: 10}); !ok {
				return Dec{}, false
			}
		}
		return smallQuotient(q, s, neg)
	}
	// The quotient at scale s is ua × 10^(s + eb - a.e) ÷ ub. A quotient exact at some scale is exact
	// at every larger one, so the largest scale that neither overflows nor passes the powers of ten
	// that fit 64 bits decides.
	for s := min(int32(maxScale64), maxScale64-eb+a.e); s >= 0 && s >= a.e-eb; s-- {
		hi, lo := bits.Mul64(ua, pow10[s+eb-a.e].lo)
		if hi >= ub {
			continue // the quotient would not fit 64 bits
		}
		q, r := bits.Div64(hi, lo, ub)
		if r != 0 {
			return Dec{}, false
		}
		return smallQuotient(u128{lo: q}, s, neg)
	}
	return Dec{}, false
}

// smallQuotient is ±q × 10^-s in the small form at its smallest scale (which keeps products small), when
// that scale is within the places of a division.
func smallQuotient(q u128, s int32, neg bool) (Dec, bool) {
	for !q.isZero() && s > 0 {
		d, r := q.divSmall(10)
		if r != 0 {
			break
		}
		q, s = d, s-1
	}
	if s > divPlaces {
		return Dec{}, false // past the places of a division: DivRound decides
	}
	return small(q, s, neg), true
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
	if a.big == nil && a.e-places <= maxScale64 {
		unit := pow10[a.e-places].lo
		q, r := a.m.divSmall(unit)
		// Up by one unit when the dropped part is more than half a unit, or exactly half and positive.
		if r > unit-r || r == unit-r && !a.neg {
			q, _ = q.add(u128{lo: 1}) // q < 2^128 / 10: no overflow
		}
		return small(q, places, a.neg)
	}
	half := decimal.New(5, -places-1)
	return fromBig(a.toBig().Add(half).Shift(places).Floor().Shift(-places))
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

// DecOfEach is parents/xs:decimal(child) as an operand of arithmetic: each parent's child cast on its
// own, and the whole empty (false), one value, or a dynamic error for more.
func (c *Ctx) DecOfEach(n xmltree.NodeID, parents, child *Path) (Dec, bool) {
	var v Dec
	found := false
	for _, p := range c.selectNodes(n, parents) {
		x, ok := c.DecOf(p, child)
		if !ok {
			continue
		}
		if found {
			dynamicError("a sequence of more than one item is not allowed as an operand of arithmetic")
		}
		v, found = x, true
	}
	return v, found
}

// Sum is sum(p/xs:decimal(.)): every node p selects cast on its own, 0 for none.
func (c *Ctx) Sum(n xmltree.NodeID, p *Path) Dec {
	total := Dec{}
	for _, x := range c.selectNodes(n, p) {
		total = total.Add(c.Dec(x))
	}
	return total
}

// SumEach is sum(parents/xs:decimal(child)), the form every official sum takes: each parent's child is
// cast on its own, so a parent without one adds nothing and a parent with two is a dynamic error (the
// cast of a sequence of two), whatever the other parents hold.
func (c *Ctx) SumEach(n xmltree.NodeID, parents, child *Path) Dec {
	return c.SumEachWhere(n, parents, nil, child)
}

// SumEachWhere is SumEach over the parents that satisfy keep (nil: all), as a predicate on the parent
// step filters them before their child is cast.
func (c *Ctx) SumEachWhere(n xmltree.NodeID, parents *Path, keep func(xmltree.NodeID) bool, child *Path) Dec {
	total := Dec{}
	for _, x := range c.selectNodes(n, parents) {
		if keep != nil && !keep(x) {
			continue
		}
		if v, ok := c.DecOf(x, child); ok {
			total = total.Add(v)
		}
	}
	return total
}
