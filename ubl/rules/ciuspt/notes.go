package ciuspt

import (
	"fmt"
	"strings"

	"einvoice/ubl/codelists"
	"einvoice/ubl/rules"
)

// CIUS-PT carries data EN16931 has no place for in document notes (BT-22) written "#TAG#value#", and
// indexed ones "#TAG-nnn#value#" that belong together by their index (a withholding tax has a
// description, an amount and a type; an ATM payment an entity, a reference, an amount and a
// description). These are the checks of those tags.

// before and after are XPath substring-before and substring-after: "" when s has no sep.
func before(s, sep string) string {
	if b, _, ok := strings.Cut(s, sep); ok {
		return b
	}
	return ""
}

func after(s, sep string) string {
	if _, a, ok := strings.Cut(s, sep); ok {
		return a
	}
	return ""
}

// tagValue is normalize-space(substring-before(substring-after(s, open), '#')).
func tagValue(s, open string) string { return rules.Norm(before(after(s, open), "#")) }

// startsWith is starts-with(normalize-space(.), prefix) for a prefix without blanks: the leading blanks
// are all normalize-space changes within such a prefix.
func startsWith(c *ctx, x node, prefix string) bool {
	return strings.HasPrefix(rules.TrimLeftBlanks(c.Str(x)), prefix)
}

var pRootNotes = P("../cbc:Note")

// noteSet is the notes beside a note (its parent's cbc:Note children: the document's notes), with
// their texts, worked out once per document: the tag checks of every tagged note look at all of them.
type noteSet struct {
	parent node
	text   []string       // string(.) of each note
	norm   []string       // normalize-space(.) of each note
	counts map[string]int // well-formed notes by tag (see countNotes)
}

var noteSetSlot = rules.NewSlot()

// notesBeside is the noteSet of x's parent.
func notesBeside(c *ctx, x node) *noteSet {
	set := rules.DocSlot(c, noteSetSlot, func() *noteSet { return &noteSet{parent: -2} }) // -2: no parent yet
	if parent := c.Tree().Parent(x); set.parent != parent {
		notes := c.Nodes(x, pRootNotes)
		*set = noteSet{parent: parent, text: make([]string, len(notes)), norm: make([]string, len(notes)), counts: map[string]int{}}
		for i, n := range notes {
			set.text[i] = c.Str(n)
			set.norm[i] = rules.Norm(set.text[i])
		}
	}
	return set
}

// countNotes counts the document's notes that are well-formed notes of tag t (the official "let"
// counts). The expression is tried only on notes that start with the tag, as it requires.
func countNotes(c *ctx, x node, t noteTag) int {
	set := notesBeside(c, x)
	k, ok := set.counts[t.open]
	if !ok {
		for _, s := range set.text {
			if strings.HasPrefix(s, t.open) && t.count.MatchString(s) {
				k++
			}
		}
		set.counts[t.open] = k
	}
	return k
}

// noteTag is a plain tag: its value check, the whole-note form, and the count of well-formed notes.
type noteTag struct {
	open  string // "#SOURCECURRENCYCODE#"
	form  interface{ MatchString(string) bool }
	count interface{ MatchString(string) bool }
}

func tag(name, valueForm, countForm string) noteTag {
	return noteTag{
		open:  "#" + name + "#",
		form:  rules.Re(`^(#(` + name + `)#(` + valueForm + `)#)$`),
		count: rules.Re(`^(#(` + name + `)#(` + countForm + `)#)$`),
	}
}

var (
	tagSourceCurrency = tag("SOURCECURRENCYCODE", ".+", ".{1,}")
	tagRate           = tag("CALCULATIONRATE", ".+", ".{1,}")
	tagPeriodDesc     = tag("DESCRIPTION@INVOICEPERIOD", ".{1,150}", ".{1,150}")
	tagProgramNumber  = tag("NUMBER@ATCERTIFIEDPROGRAM", ".+", ".{1,}")
	tagProgramHash    = tag("HASHCODE@ATCERTIFIEDPROGRAM", ".+", ".{1,}")
	tagProgramDesc    = tag("DESCRIPTION@ATCERTIFIEDPROGRAM", ".+", ".{1,}")
	reAdditionalProp  = rules.Re(`^(#(ADDITIONALPROPERTY)#(.{1,50})#(.{1,50})#)$`)
	reRate            = rules.Re(`^(\d{1,9}\.\d{2,5})$`)
	reTagAmount       = rules.Re(`^([0-9]{1,13}.[0-9]{2})$`)
)

func (t noteTag) starts(c *ctx, x node) bool  { return startsWith(c, x, t.open) }
func (t noteTag) value(c *ctx, x node) string { return tagValue(c.Str(x), t.open) }
func (t noteTag) notes(c *ctx, x node) int    { return countNotes(c, x, t) }

// plainTagAsserts are the value (.1), form (.2) and count (.3/.4 or .3) checks of a plain tag.
func valueCheck(id string, t noteTag, ok func(string) bool, what, whatPT string) rules.OnPrefix {
	return onTag(t.open, fatalR(id, func(c *ctx, x node) bool { return t.starts(c, x) && !ok(t.value(c, x)) },
		fmt.Sprintf("The value of note %s shall be %s.", t.open, what), fmt.Sprintf("O valor da nota %s deve ser %s.", t.open, whatPT)))
}

func formCheck(id string, t noteTag) rules.OnPrefix {
	return onTag(t.open, fatalR(id, func(c *ctx, x node) bool { return t.starts(c, x) && !t.form.MatchString(c.Str(x)) },
		fmt.Sprintf("Note %s shall be written %svalue#.", t.open, t.open), fmt.Sprintf("A nota %s deve ser escrita %svalor#.", t.open, t.open)))
}

func atMostOnce(id string, t noteTag) rules.OnPrefix {
	return onTag(t.open, fatalR(id, func(c *ctx, x node) bool { return t.starts(c, x) && t.notes(c, x) > 1 },
		fmt.Sprintf("Note %s shall occur only once.", t.open), fmt.Sprintf("A nota %s só pode ocorrer uma vez.", t.open)))
}

// requires: a note with one of the tags in when needs a well-formed note of tag t.
func requires(id string, t noteTag, when ...noteTag) rules.OnPrefix {
	opens := make([]string, len(when))
	for i, w := range when {
		opens[i] = w.open
	}
	return rules.OnPrefix{Prefixes: opens, Assert: fatalR(id, func(c *ctx, x node) bool {
		found := false
		for _, w := range when {
			found = found || w.starts(c, x)
		}
		return found && t.notes(c, x) < 1
	}, fmt.Sprintf("This note needs a note %s.", t.open), fmt.Sprintf("Esta nota exige uma nota %s.", t.open))}
}

// onTag is a check that can only fire on a note that starts with tag.
func onTag(tag string, a *rules.Assert) rules.OnPrefix {
	return rules.OnPrefix{Assert: a, Prefixes: []string{tag}}
}

// indexed is a "#TAG-nnn#value#" tag and its companions of the same index.
type indexed struct {
	name string
	pre  string // "#TAG-"
	form interface{ MatchString(string) bool }
}

func idxTag(name string) indexed {
	return indexed{name: name, pre: "#" + name + "-", form: rules.Re(`^(#(` + name + `)-([0-9]{3})#(.+)#)$`)}
}

var (
	tagWHDesc   = idxTag("WITHHOLDINGTAXDESCRIPTION@WITHHOLDINGTAX")
	tagWHAmount = idxTag("WITHHOLDINGTAXAMOUNT@WITHHOLDINGTAX")
	tagWHType   = idxTag("WITHHOLDINGTAXTYPE@WITHHOLDINGTAX")
	tagATMEnt   = idxTag("ENTITY@ATMPAYMENT")
	tagATMRef   = idxTag("REFERENCE@ATMPAYMENT")
	tagATMAmt   = idxTag("AMOUNT@ATMPAYMENT")
	tagATMDesc  = idxTag("DESCRIPTION@ATMPAYMENT")
)

func (t indexed) prefix() string { return t.pre }

// key is "#TAG-nnn#" for the note's index.
func (t indexed) key(s string) string { return t.prefix() + tagValue(s, t.prefix()) + "#" }

// indexedAsserts are the checks of an indexed tag: form (.1), value (.2), no duplicate note (.3), and a
// companion of the same index for each other tag of its group (.4, .5, .6).
func indexedAsserts(n int, t indexed, value func(string) bool, what, whatPT string, companions ...indexed) []rules.OnPrefix {
	id := func(k int) string { return fmt.Sprintf("DT-CIUS-PT-020_%d.%d", n, k) }
	out := []*rules.Assert{
		fatalR(id(1), func(c *ctx, x node) bool { return startsWith(c, x, t.prefix()) && !t.form.MatchString(c.Str(x)) },
			"Note "+t.prefix()+"nnn shall be written "+t.prefix()+"nnn#value#.", "A nota "+t.prefix()+"nnn deve ser escrita "+t.prefix()+"nnn#valor#."),
		fatalR(id(2), func(c *ctx, x node) bool {
			s := c.Str(x)
			return startsWith(c, x, t.prefix()) && !value(tagValue(s, t.key(s)))
		}, "The value of note "+t.prefix()+"nnn shall be "+what+".", "O valor da nota "+t.prefix()+"nnn deve ser "+whatPT+"."),
		fatalR(id(3), func(c *ctx, x node) bool {
			s := c.Str(x)
			if !startsWith(c, x, t.pre) || !startsWith(c, x, t.key(s)) {
				return false
			}
			same := 0
			for _, other := range notesBeside(c, x).text {
				if other == s {
					same++
				}
			}
			return same > 1
		}, "Note "+t.prefix()+"nnn shall not be repeated.", "A nota "+t.prefix()+"nnn não pode ser repetida."),
	}
	for k, comp := range companions {
		comp := comp
		out = append(out, fatalR(id(4+k), func(c *ctx, x node) bool {
			s := c.Str(x)
			if !startsWith(c, x, t.pre) || !startsWith(c, x, t.key(s)) {
				return false
			}
			want := comp.prefix() + tagValue(s, t.prefix()) + "#"
			for _, other := range notesBeside(c, x).norm {
				if strings.HasPrefix(other, want) {
					return false
				}
			}
			return true
		}, "Note "+t.prefix()+"nnn needs a note "+comp.prefix()+"nnn with the same index.",
			"A nota "+t.prefix()+"nnn exige uma nota "+comp.prefix()+"nnn com o mesmo índice."))
	}
	checks := make([]rules.OnPrefix, len(out))
	for i, a := range out {
		checks[i] = onTag(t.pre, a)
	}
	return checks
}

// noteAsserts are the checks of the document notes (BT-22), in the official order.
func noteAsserts() []*rules.Assert {
	currencies := codelists.Get("currencies")
	whTypes := codelists.Get("withholding-types")
	len20 := func(s string) bool { return fitsLength(s, 20, false) }
	len50 := func(s string) bool { return fitsLength(s, 50, false) }
	len150 := func(s string) bool { return fitsLength(s, 150, false) }
	length := fatal("DT-CIUS-PT-020", func(c *ctx, x node) bool { return fitsLength(c.Str(x), 500, true) },
		"A note (BT-22) shall have 1 to 500 characters.", "Uma nota (BT-22) deve ter entre 1 e 500 caracteres.")
	const additional = "#ADDITIONALPROPERTY#"
	out := []rules.OnPrefix{
		valueCheck("DT-CIUS-PT-020_2.1", tagSourceCurrency, func(v string) bool { return inList(v, currencies) }, "a currency code", "um código de moeda"),
		formCheck("DT-CIUS-PT-020_2.2", tagSourceCurrency),
		requires("DT-CIUS-PT-020_2.3", tagSourceCurrency, tagRate),
		atMostOnce("DT-CIUS-PT-020_2.4", tagSourceCurrency),
		valueCheck("DT-CIUS-PT-020_3.1", tagRate, reRate.MatchString, "a rate with up to 9 integer and 2 to 5 decimal digits", "uma taxa com até 9 dígitos inteiros e 2 a 5 decimais"),
		formCheck("DT-CIUS-PT-020_3.2", tagRate),
		requires("DT-CIUS-PT-020_3.3", tagRate, tagSourceCurrency),
		atMostOnce("DT-CIUS-PT-020_3.4", tagRate),
		valueCheck("DT-CIUS-PT-020_4.1", tagPeriodDesc, len150, "1 to 150 characters", "de 1 a 150 caracteres"),
		formCheck("DT-CIUS-PT-020_4.2", tagPeriodDesc),
		atMostOnce("DT-CIUS-PT-020_4.3", tagPeriodDesc),
		onTag(additional, fatalR("DT-CIUS-PT-020_5.1", func(c *ctx, x node) bool {
			return startsWith(c, x, additional) && !len50(tagValue(c.Str(x), additional))
		}, "The name in note #ADDITIONALPROPERTY# shall have 1 to 50 characters.", "O nome na nota #ADDITIONALPROPERTY# deve ter entre 1 e 50 caracteres.")),
		onTag(additional, fatalR("DT-CIUS-PT-020_5.2", func(c *ctx, x node) bool {
			s := c.Str(x)
			return startsWith(c, x, additional) && !len50(rules.Norm(before(after(after(s, additional), "#"), "#")))
		}, "The value in note #ADDITIONALPROPERTY# shall have 1 to 50 characters.", "O valor na nota #ADDITIONALPROPERTY# deve ter entre 1 e 50 caracteres.")),
		onTag(additional, fatalR("DT-CIUS-PT-020_5.3", func(c *ctx, x node) bool {
			return startsWith(c, x, additional) && !reAdditionalProp.MatchString(c.Str(x))
		}, "Note #ADDITIONALPROPERTY# shall be written #ADDITIONALPROPERTY#name#value#.", "A nota #ADDITIONALPROPERTY# deve ser escrita #ADDITIONALPROPERTY#nome#valor#.")),
		valueCheck("DT-CIUS-PT-020_6.1", tagProgramNumber, len20, "1 to 20 characters", "de 1 a 20 caracteres"),
		formCheck("DT-CIUS-PT-020_6.2", tagProgramNumber),
		requires("DT-CIUS-PT-020_6.3", tagProgramNumber, tagProgramHash, tagProgramDesc),
		atMostOnce("DT-CIUS-PT-020_6.4", tagProgramNumber),
		valueCheck("DT-CIUS-PT-020_7.1", tagProgramHash, len20, "1 to 20 characters", "de 1 a 20 caracteres"),
		formCheck("DT-CIUS-PT-020_7.2", tagProgramHash),
		requires("DT-CIUS-PT-020_7.3", tagProgramHash, tagProgramNumber, tagProgramDesc),
		atMostOnce("DT-CIUS-PT-020_7.4", tagProgramHash),
		valueCheck("DT-CIUS-PT-020_8.1", tagProgramDesc, len150, "1 to 150 characters", "de 1 a 150 caracteres"),
		formCheck("DT-CIUS-PT-020_8.2", tagProgramDesc),
		atMostOnce("DT-CIUS-PT-020_8.3", tagProgramDesc),
	}
	out = append(out, indexedAsserts(9, tagWHDesc, len150, "1 to 150 characters", "de 1 a 150 caracteres", tagWHType, tagWHAmount)...)
	out = append(out, indexedAsserts(10, tagWHAmount, reTagAmount.MatchString, "an amount with 2 decimals", "um valor com 2 casas decimais", tagWHType, tagWHDesc)...)
	out = append(out, indexedAsserts(11, tagWHType, whTypes.Suffixed, "a withholding tax type (IRF)", "um tipo de retenção (IRF)", tagWHDesc, tagWHAmount)...)
	out = append(out, indexedAsserts(12, tagATMEnt, len20, "1 to 20 characters", "de 1 a 20 caracteres", tagATMRef, tagATMAmt)...)
	out = append(out, indexedAsserts(13, tagATMRef, len20, "1 to 20 characters", "de 1 a 20 caracteres", tagATMEnt, tagATMAmt)...)
	out = append(out, indexedAsserts(14, tagATMAmt, reTagAmount.MatchString, "an amount with 2 decimals", "um valor com 2 casas decimais", tagATMEnt, tagATMRef)...)
	out = append(out, indexedAsserts(15, tagATMDesc, len150, "1 to 150 characters", "de 1 a 150 caracteres", tagATMEnt, tagATMRef, tagATMAmt)...)
	// Every check but the length is of a tag: a note is checked only by the checks of the tag it starts with.
	return []*rules.Assert{length, rules.NewByPrefix(out...)}
}

var (
	reBillingRef      = rules.Re(`^(#(ID@INVOICEDOCUMENTREFERENCE@BILLINGREFERENCE)-([0-9]{3})#)$`)
	reLineCommitment  = rules.Re(`^(#(LINEID@COMMITMENTLINEREFERENCE)#)$`)
	pRootOfProperty   = P("../../../..")
	pAllPropertyNames = P("cac:InvoiceLine/cac:Item/cac:AdditionalItemProperty/cbc:Name")
	pAllCNPropNames   = P("cac:CreditNoteLine/cac:Item/cac:AdditionalItemProperty/cbc:Name")
	pRootLinesOf      = P("cac:InvoiceLine")
	pRootCNLinesOf    = P("cac:CreditNoteLine")
)

// itemPropertyAsserts are the checks of item attribute names (BT-160), which CIUS-PT also uses to carry
// tagged line data.
func itemPropertyAsserts() []*rules.Assert {
	// perLine: the tag occurs on at most as many attributes as there are lines.
	perLine := func(id, open string, re interface{ MatchString(string) bool }) rules.OnPrefix {
		return onTag(open, fatalR(id, func(c *ctx, x node) bool {
			if !startsWith(c, x, open) {
				return false
			}
			// The same for every attribute of the document: counted once (a tag on every line would
			// otherwise make the check quadratic).
			type perDoc struct {
				id   string
				root node
			}
			root := c.First(x, pRootOfProperty)
			return rules.Doc(c, perDoc{id, root}, func() bool {
				tagged := 0
				for _, p := range [](*rules.Path){pAllPropertyNames, pAllCNPropNames} {
					for _, n := range c.Nodes(root, p) {
						if re.MatchString(c.Str(n)) {
							tagged++
						}
					}
				}
				return tagged > c.Count(root, pRootLinesOf)+c.Count(root, pRootCNLinesOf)
			})
		}, "Item attribute "+open+" shall occur at most once per line.", "O atributo "+open+" só pode ocorrer uma vez por linha."))
	}
	const billingRef = "#ID@INVOICEDOCUMENTREFERENCE@BILLINGREFERENCE-"
	return []*rules.Assert{
		length("DT-CIUS-PT-139", "Name", 200),
		rules.NewByPrefix( // every check but the length is of a tag
			onTag(billingRef, fatalR("DT-CIUS-PT-139_1", func(c *ctx, x node) bool {
				return startsWith(c, x, billingRef) && !reBillingRef.MatchString(c.Str(x))
			}, "Item attribute "+billingRef+"nnn# shall be written with a three-digit index.",
				"O atributo "+billingRef+"nnn# deve ter um índice de três dígitos.")),
			perLine("DT-CIUS-PT-139_2", "#TAXEXEMPTIONREASONCODE@CLASSIFIEDTAXCATEGORY#", reExemptionCode),
			perLine("DT-CIUS-PT-139_3", "#TAXEXEMPTIONREASON@CLASSIFIEDTAXCATEGORY#", reExemptionText),
			perLine("DT-CIUS-PT-139_5", "#LINEID@COMMITMENTLINEREFERENCE#", reLineCommitment)),
	}
}
