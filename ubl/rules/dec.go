package rules

import (
	"strings"

	"einvoice/ubl/xmltree"

	"github.com/shopspring/decimal"
)

// Dec is an xs:decimal: exact, arbitrary precision.
type Dec struct{ d decimal.Decimal }

func init() { decimal.DivisionPrecision = 20 }

// D is a decimal constant ("1.00").
func D(s string) Dec { return Dec{decimal.RequireFromString(s)} }

// Int is an integer as a decimal.
func Int(i int64) Dec { return Dec{decimal.NewFromInt(i)} }

// ParseDec reads the xs:decimal lexical form: surrounding whitespace, optional sign, digits with at
// most one point, at least one digit, no exponent.
func ParseDec(s string) (Dec, bool) {
	s = strings.Trim(s, " \t\n\r")
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || body == "." {
		return Dec{}, false
	}
	dot := false
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch >= '0' && ch <= '9':
		case ch == '.' && !dot:
			dot = true
		default:
			return Dec{}, false
		}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Dec{}, false
	}
	return Dec{d}, true
}

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

func (a Dec) Add(b Dec) Dec     { return Dec{a.d.Add(b.d)} }
func (a Dec) Sub(b Dec) Dec     { return Dec{a.d.Sub(b.d)} }
func (a Dec) Mul(b Dec) Dec     { return Dec{a.d.Mul(b.d)} }
func (a Dec) Neg() Dec          { return Dec{a.d.Neg()} }
func (a Dec) Cmp(b Dec) int     { return a.d.Cmp(b.d) }
func (a Dec) Equal(b Dec) bool  { return a.d.Equal(b.d) }
func (a Dec) Less(b Dec) bool   { return a.d.LessThan(b.d) }
func (a Dec) LessEq(b Dec) bool { return a.d.LessThanOrEqual(b.d) }
func (a Dec) IsZero() bool      { return a.d.IsZero() }
func (a Dec) Sign() int         { return a.d.Sign() }
func (a Dec) String() string    { return a.d.String() }
func (a Dec) Float() float64    { return a.d.InexactFloat64() }

// Div is decimal division; division by zero is a dynamic error, as in XPath.
func (a Dec) Div(b Dec) Dec {
	if b.d.IsZero() {
		dynamicError("decimal division by zero")
	}
	return Dec{a.d.DivRound(b.d, 20)}
}

// Round is XPath round(): to the nearest integer, halves towards positive infinity.
func (a Dec) Round() Dec { return Dec{a.d.Add(decimal.NewFromFloat(0.5)).Floor()} }

// Round2 is round(x * 100) div 100, the rounding to cents the rules write out.
func (a Dec) Round2() Dec { return Dec{a.d.Shift(2).Add(decimal.NewFromFloat(0.5)).Floor().Shift(-2)} }

// Abs is the absolute value.
func (a Dec) Abs() Dec { return Dec{a.d.Abs()} }

// Within reports |a - b| <= tol.
func (a Dec) Within(b, tol Dec) bool { return a.Sub(b).Abs().LessEq(tol) }
