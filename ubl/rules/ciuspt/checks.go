package ciuspt

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"einvoice/ubl/codelists"
	"einvoice/ubl/rules"
)

// The check kinds of the datatype pattern. Each returns an assert on the context element's value.

// label is the element a context path ends at, for messages.
func label(path string) string {
	path = path[strings.LastIndex(path, "/")+1:]
	return path[strings.Index(path, ":")+1:]
}

// fitsLength: 1 to n characters, none of them a line break (XPath "." matches neither \n nor \r), or
// any characters when dotAll.
func fitsLength(s string, n int, dotAll bool) bool {
	// Characters are at most bytes: only a value of more than n bytes needs counting.
	if s == "" || len(s) > n && utf8.RuneCountInString(s) > n {
		return false
	}
	return dotAll || strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') < 0
}

func length(id, elem string, n int) *rules.Assert {
	return fatal(id, func(c *ctx, x node) bool { return fitsLength(c.Str(x), n, false) },
		fmt.Sprintf("%s shall have 1 to %d characters.", elem, n), fmt.Sprintf("%s deve ter entre 1 e %d caracteres.", elem, n))
}

// digits reports whether s is k decimal digits (any script, as XPath's \d), min <= k <= max.
func digits(s string, min, max int) bool {
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 { // another script: count by character
			k = 0
			for _, r := range s {
				if !unicode.IsDigit(r) {
					return false
				}
				k++
			}
			break
		}
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		k++
	}
	return k >= min && k <= max
}

// isDate: four, two and two digits separated by hyphens.
func isDate(s string) bool {
	y, rest, ok1 := strings.Cut(s, "-")
	m, d, ok2 := strings.Cut(rest, "-")
	return ok1 && ok2 && digits(y, 4, 4) && digits(m, 2, 2) && !strings.Contains(d, "-") && digits(d, 2, 2)
}

func date(id, elem string) *rules.Assert {
	return fatal(id, func(c *ctx, x node) bool { return isDate(c.Str(x)) },
		elem+" shall be a date written YYYY-MM-DD.", elem+" deve ser uma data no formato AAAA-MM-DD.")
}

// isNumber: an optional minus (when neg), 1 to intMax digits, a point, fracMin to fracMax digits.
func isNumber(s string, neg bool, intMax, fracMin, fracMax int) bool {
	if neg {
		s = strings.TrimPrefix(s, "-")
	}
	i, f, ok := strings.Cut(s, ".")
	return ok && digits(i, 1, intMax) && digits(f, fracMin, fracMax)
}

func number(id, elem string, neg bool, intMax, fracMin, fracMax int) *rules.Assert {
	form := fmt.Sprintf("%d integer digits at most and %d", intMax, fracMin)
	formPT := fmt.Sprintf("no máximo %d dígitos inteiros e %d", intMax, fracMin)
	if fracMax != fracMin {
		form += fmt.Sprintf(" to %d", fracMax)
		formPT += fmt.Sprintf(" a %d", fracMax)
	}
	sign, signPT := "", ""
	if neg {
		sign, signPT = " (a minus sign allowed)", " (sinal negativo permitido)"
	}
	return fatal(id, func(c *ctx, x node) bool { return isNumber(c.Str(x), neg, intMax, fracMin, fracMax) },
		fmt.Sprintf("%s shall be written with %s decimals%s.", elem, form, sign),
		fmt.Sprintf("%s deve ser escrito com %s casas decimais%s.", elem, formPT, signPT))
}

var (
	currencyIDName    = rules.MustName("currencyID")
	pDocCurrencyCodes = P("//inv:Invoice/cbc:DocumentCurrencyCode | //cn:CreditNote/cbc:DocumentCurrencyCode")
	pTaxCurrencyCodes = P("//inv:Invoice/cbc:TaxCurrencyCode | //cn:CreditNote/cbc:TaxCurrencyCode")
)

// currencyIs: normalize-space(@currencyID) = one of the codes p selects.
func currencyIs(c *ctx, x node, p *rules.Path) bool {
	v, _ := c.Attr(x, currencyIDName)
	v = rules.Norm(v)
	return c.Any(x, p, func(code node) bool { return c.Str(code) == v })
}

func currency(id, elem string) *rules.Assert {
	return fatal(id, func(c *ctx, x node) bool { return currencyIs(c, x, pDocCurrencyCodes) },
		elem+" shall be in the invoice currency (BT-5).", elem+" deve estar na moeda da fatura (BT-5).")
}

// inList: the normalised value has no space and is a code of the (space-padded) list.
func inList(v string, l *codelists.List) bool {
	v = rules.Norm(v)
	return !strings.Contains(v, " ") && l.Padded(v)
}

func code(id, elem, list string) *rules.Assert {
	l := codelists.Get(list)
	return fatal(id, func(c *ctx, x node) bool { return inList(c.Str(x), l) },
		elem+" shall be a code of "+l.Name+".", elem+" deve ser um código da lista "+l.Name+".")
}

func attrCode(id, elem, attr, list string) *rules.Assert {
	l, a := codelists.Get(list), rules.MustName(attr)
	return fatal(id, func(c *ctx, x node) bool { v, _ := c.Attr(x, a); return inList(v, l) },
		"The "+attr+" of "+elem+" shall be a code of "+l.Name+".", "O atributo "+attr+" de "+elem+" deve ser um código da lista "+l.Name+".")
}

// attrCodeIfPresent is the report form: an attribute given that is not a code of the list.
func attrCodeIfPresent(id, elem, attr, list string) *rules.Assert {
	l, a := codelists.Get(list), rules.MustName(attr)
	return fatalR(id, func(c *ctx, x node) bool {
		v, ok := c.Attr(x, a)
		return ok && !inList(v, l)
	}, "The "+attr+" of "+elem+", when given, shall be a code of "+l.Name+".", "O atributo "+attr+" de "+elem+", quando indicado, deve ser um código da lista "+l.Name+".")
}

// attrLengthIfPresent: an attribute given that is not 1 to n characters.
func attrLengthIfPresent(id, elem, attr string, n int) *rules.Assert {
	a := rules.MustName(attr)
	return fatalR(id, func(c *ctx, x node) bool {
		v, ok := c.Attr(x, a)
		return ok && !fitsLength(v, n, false)
	}, fmt.Sprintf("The %s of %s, when given, shall have 1 to %d characters.", attr, elem, n),
		fmt.Sprintf("O atributo %s de %s, quando indicado, deve ter entre 1 e %d caracteres.", attr, elem, n))
}

// countryPrefix (VAT identifiers): the first two characters are a country code. XPath's
// substring(s, 0, 3) takes the characters at positions 1 and 2.
func countryPrefix(id, elem string) *rules.Assert {
	l := codelists.Get("countries")
	return fatal(id, func(c *ctx, x node) bool {
		v := []rune(rules.Norm(c.Str(x)))
		if len(v) > 2 {
			v = v[:2]
		}
		p := string(v)
		return !strings.Contains(p, " ") && l.Padded(p)
	}, elem+" shall start with a country code.", elem+" deve começar pelo código do país.")
}

// percentInRange is the report: a well-formed percentage below 0 or above 100.
func percentInRange(id, elem string) *rules.Assert {
	return fatalR(id, func(c *ctx, x node) bool {
		s := c.Str(x)
		if !isNumber(s, false, 3, 2, 2) {
			return false
		}
		d := c.Dec(x)
		return d.Sign() < 0 || rules.Int(100).Less(d)
	}, elem+" shall be between 0.00 and 100.00.", elem+" deve estar entre 0,00 e 100,00.")
}

// codeSuffixed is the comma-list form: a value of the pattern whose "value," occurs in the list text.
func codeSuffixed(id, elem, list string, form func(string) bool) *rules.Assert {
	l := codelists.Get(list)
	return fatal(id, func(c *ctx, x node) bool {
		s := c.Str(x)
		return form(s) && l.Suffixed(rules.Norm(s))
	}, elem+" shall be a code of "+l.Name+".", elem+" deve ser um código da lista "+l.Name+".")
}

// upperAlnum: 2 or 3 upper-case letters or ASCII digits.
func upperAlnum(s string) bool {
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// taxCurrency is DT-CIUS-PT-098.2/.3 and 104.2/.3: VAT amounts are in the VAT accounting currency
// (BT-6) when there is one, else in the invoice currency.
func taxCurrency(id, elem string, withTaxCurrency bool) *rules.Assert {
	if withTaxCurrency {
		return fatalR(id, func(c *ctx, x node) bool {
			return c.Exists(x, pTaxCurrencyCodes) && notAmongCodes(c, x, pTaxCurrencyCodes)
		}, elem+" shall be in the VAT accounting currency (BT-6).", elem+" deve estar na moeda de contabilização do IVA (BT-6).")
	}
	return fatalR(id, func(c *ctx, x node) bool {
		return !c.Exists(x, pTaxCurrencyCodes) && notAmongCodes(c, x, pDocCurrencyCodes)
	}, elem+" shall be in the invoice currency (BT-5).", elem+" deve estar na moeda da fatura (BT-5).")
}

// notAmongCodes is the general comparison normalize-space(@currencyID) != $codes: some code differs.
func notAmongCodes(c *ctx, x node, p *rules.Path) bool {
	v, _ := c.Attr(x, currencyIDName)
	v = rules.Norm(v)
	return c.Any(x, p, func(code node) bool { return c.Str(code) != v })
}
