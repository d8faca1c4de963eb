// Package ubl reads and checks UBL 2.1 documents (Invoice, CreditNote, Order): parsing (xmltree),
// structure against the official schemas (xsd), and the business rules of a profile (rules/ciuspt for
// CIUS-PT 2.1.2, rules/peppol for PEPPOL BIS Ordering 3 T01), with findings as the official validators
// report them.
package ubl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"einvoice/ubl/rules"
	"einvoice/ubl/rules/ciuspt"
	"einvoice/ubl/rules/peppol"
	"einvoice/ubl/xmltree"
	"einvoice/ubl/xsd"
)

// Profile names a rule set.
type Profile string

// Profiles.
const (
	Auto        Profile = "auto"
	CIUSPT      Profile = "cius-pt"
	PeppolOrder Profile = "peppol-order"
)

var ruleSets = map[Profile]*rules.Set{CIUSPT: ciuspt.Set, PeppolOrder: peppol.Set}

// ParseProfile reads a profile name.
func ParseProfile(s string) (Profile, bool) {
	switch p := Profile(s); p {
	case Auto, CIUSPT, PeppolOrder:
		return p, true
	}
	return "", false
}

// Finding is one problem found in a document.
type Finding struct {
	Rule     string `json:"rule"`
	Flag     string `json:"flag"` // fatal or warning
	Location string `json:"location"`
	Message  string `json:"message"`
}

// Result is the verdict on one document.
type Result struct {
	Profile   Profile        `json:"profile"`
	Root      *string        `json:"root"`
	XSDValid  bool           `json:"xsd_valid"`
	XSDErrors int            `json:"xsd_errors"`
	Fatal     map[string]int `json:"fatal"`
	Warning   map[string]int `json:"warning"`
	// NoVerdict is set when the rules could not be evaluated (the document cannot be parsed, or a rule
	// meets a value the official XSLT would stop on): the document is refused without rule ids.
	NoVerdict string `json:"error,omitempty"`
	// Service holds the service's own findings (not official rule ids), such as a non-UTF-8 encoding.
	Service  map[string]int `json:"service,omitempty"`
	Findings []Finding      `json:"findings,omitempty"`
}

// Rejected reports whether the document must be refused: not parseable, structurally invalid, any
// fatal finding of the rules or the service, or no verdict.
func (r *Result) Rejected() bool {
	return !r.XSDValid || len(r.Fatal) > 0 || len(r.Service) > 0 || r.NoVerdict != ""
}

// FirstFatal is the first finding that rejects the document, if any.
func (r *Result) FirstFatal() (Finding, bool) {
	for _, f := range r.Findings {
		if f.Flag == "fatal" {
			return f, true
		}
	}
	return Finding{}, false
}

// Service finding ids.
const (
	RuleBOM      = "EINV-ENC-01" // a byte-order mark before the XML declaration
	RuleEncoding = "EINV-ENC-02" // an encoding other than UTF-8
	RuleParse    = "EINV-XML-01" // not well-formed, or refused by the parser's limits
	RuleDoctype  = "EINV-XML-02" // a document type declaration (a bare one: the official verdict is given)
	RuleSchema   = "EINV-XSD-01" // not valid against the UBL 2.1 schema
	RuleRules    = "EINV-RUL-01" // the rules could not give a verdict
)

// ErrStopped is the error of a validation stopped because its context was done (a request's deadline
// passed) before the verdict: it wraps the context's error too (errors.Is matches both).
var ErrStopped = errors.New("ubl: validation stopped before its verdict")

// Validate parses and checks a document with a profile (Auto picks it from the document element) and
// writes messages in lang ("pt" or "en").
func Validate(data []byte, profile Profile, lang string) *Result {
	r, t, _ := validate(context.Background(), data, profile, lang)
	if t != nil {
		t.Release() // nothing in the result refers to the tree
	}
	return r
}

// Check validates a document and, when it is accepted, reads its model from the same parse. Once ctx is
// done it stops, between stages and within the schema check and the rules, with an error matching
// ErrStopped. (Parsing, bounded by the document's size, runs to its end.)
func Check(ctx context.Context, data []byte, profile Profile, lang string) (*Result, *Document, error) {
	r, t, err := validate(ctx, data, profile, lang)
	if err == nil {
		err = stopped(ctx)
	}
	if err != nil {
		if t != nil {
			t.Release()
		}
		return nil, nil, err
	}
	if r.Rejected() || t == nil {
		return r, nil, nil
	}
	d, err := Read(t)
	return r, d, err
}

// stopped is the validation's error once ctx is done, else nil.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrStopped, err)
	}
	return nil
}

// findingsBetweenChecks is how many findings are written between two looks at the context: a
// document can fire an assert on each of millions of elements.
const findingsBetweenChecks = 4096

// validate runs the stages. Its error is only ever a stop (see Check); the result is then partial.
func validate(ctx context.Context, data []byte, profile Profile, lang string) (*Result, *xmltree.Tree, error) {
	r := &Result{Profile: profile}
	defer func() {
		if r.Fatal == nil { // no rule ran: the counts are empty, not absent
			r.Fatal, r.Warning = map[string]int{}, map[string]int{}
		}
	}()
	if err := stopped(ctx); err != nil {
		return r, nil, err
	}
	t, err := xmltree.Parse(data, xmltree.DefaultLimits)
	if err != nil {
		r.NoVerdict = err.Error()
		r.XSDErrors = 1
		loc := ""
		var pe *xmltree.Error
		if errors.As(err, &pe) && pe.Line > 0 {
			loc = "line " + itoa(pe.Line)
		}
		r.Findings = append(r.Findings, Finding{Rule: RuleParse, Flag: "fatal", Location: loc, Message: "[" + RuleParse + "]-" +
			inLang(lang, "O documento não é XML bem formado ou excede os limites aceites: ", "The document is not well-formed XML or passes the accepted limits: ") + err.Error()})
		return r, nil, nil
	}
	if err := stopped(ctx); err != nil {
		return r, t, err
	}
	root := rootName(t)
	r.Root = &root
	r.service(t, lang)

	paths := t.NewPathWriter()
	errs, err := xsd.ValidateContext(ctx, t)
	if err != nil {
		return r, t, stopped(ctx)
	}
	r.XSDValid, r.XSDErrors = len(errs) == 0, len(errs)
	for _, e := range errs {
		r.Findings = append(r.Findings, Finding{Rule: RuleSchema, Flag: "fatal", Location: paths.Path(e.Node), Message: "[" + RuleSchema + "]-" +
			inLang(lang, "Não conforme com o esquema UBL 2.1: ", "Not valid against the UBL 2.1 schema: ") + e.Message})
	}

	if profile == Auto {
		profile = autoProfile(t)
		r.Profile = profile
	}
	if !officialParserReads(t.Info.DeclaredEncoding, t.Info.Encoding) {
		r.noVerdict(lang, "the official rules' parser does not read a document declared as "+t.Info.DeclaredEncoding)
		return r, t, nil
	}
	set := ruleSets[profile]
	if set == nil {
		return r, t, nil
	}
	findings, err := set.RunContext(ctx, t)
	if errors.Is(err, rules.ErrBlanksNeeded) { // an element with element children read as text: rare
		var full *xmltree.Tree
		if full, err = xmltree.ParseKeepingBlanks(data, xmltree.DefaultLimits); err == nil {
			defer full.Release()
			paths = full.NewPathWriter()
			findings, err = set.RunContext(ctx, full)
		}
	}
	if err := stopped(ctx); err != nil {
		return r, t, err
	}
	if err != nil {
		r.noVerdict(lang, err.Error())
		return r, t, nil
	}
	r.Fatal, r.Warning = countByID(findings)
	r.Findings = slices.Grow(r.Findings, len(findings))
	lastNode, lastPath := xmltree.None, ""
	for i, f := range findings {
		if i%findingsBetweenChecks == findingsBetweenChecks-1 {
			if err := stopped(ctx); err != nil {
				return r, t, err
			}
		}
		if f.Node != lastNode { // a rule's findings come together, on one node
			lastNode, lastPath = f.Node, paths.Path(f.Node)
		}
		r.Findings = append(r.Findings, Finding{Rule: f.Assert.ID, Flag: f.Assert.Flag.String(), Location: lastPath, Message: f.Assert.Message(lang)})
	}
	return r, t, nil
}

// noVerdict records why the rules give no verdict, as the official validator gives none.
func (r *Result) noVerdict(lang, why string) {
	r.NoVerdict = why
	r.Findings = append(r.Findings, Finding{Rule: RuleRules, Flag: "fatal", Message: "[" + RuleRules + "]-" +
		inLang(lang, "As regras não podem ser avaliadas, como no validador oficial: ", "The rules cannot be evaluated, as in the official validator: ") + why})
}

// countByID counts the findings of each rule id, fatal and warning apart. An assert often fires many
// times (once per line, say): findings are tallied by assert first, and each map is made at its size
// and written once per assert. A finding's tally is looked for from the newest back: the search is
// bounded by how many distinct asserts fired (the rule set's size at worst), not by the number of
// findings, and an assert firing element after element is found among the last few.
func countByID(findings []rules.Finding) (fatal, warning map[string]int) {
	type tally struct {
		assert *rules.Assert
		n      int
	}
	var kept [32]tally
	tallies := kept[:0]
	nFatal := 0
	for _, f := range findings {
		i := len(tallies) - 1
		for i >= 0 && tallies[i].assert != f.Assert {
			i--
		}
		if i < 0 {
			tallies = append(tallies, tally{f.Assert, 0})
			i = len(tallies) - 1
			if f.Assert.Flag == rules.Fatal {
				nFatal++
			}
		}
		tallies[i].n++
	}
	fatal, warning = make(map[string]int, nFatal), make(map[string]int, len(tallies)-nFatal)
	for _, t := range tallies {
		counts := fatal
		if t.assert.Flag == rules.Warning {
			counts = warning
		}
		counts[t.assert.ID] += t.n
	}
	return fatal, warning
}

// inLang picks the Portuguese or English text. (Details from the parser and the schema check, such as
// element names, follow in English.)
func inLang(lang, pt, en string) string {
	if lang == "en" {
		return en
	}
	return pt
}

// service records the service's own requirements: UTF-8 without a byte-order mark, and no document type
// declaration (one that names an external DTD or declares entities is not even read: RuleParse).
func (r *Result) service(t *xmltree.Tree, lang string) {
	add := func(id, pt, en string) {
		if r.Service == nil {
			r.Service = map[string]int{}
		}
		r.Service[id]++
		r.Findings = append(r.Findings, Finding{Rule: id, Flag: "fatal", Location: "/", Message: "[" + id + "]-" + inLang(lang, pt, en)})
	}
	if t.Info.BOM {
		add(RuleBOM, "O documento começa com uma marca de ordem de bytes (BOM); envie UTF-8 sem BOM.",
			"The document starts with a byte-order mark (BOM); send UTF-8 without a BOM.")
	}
	if enc := t.Info.Encoding; enc != "" && !strings.EqualFold(enc, "UTF-8") && !strings.EqualFold(enc, "UTF8") { // libxml2 reads "UTF8" as UTF-8
		add(RuleEncoding, "O documento está codificado em "+enc+"; só é aceite UTF-8.",
			"The document is encoded in "+enc+"; only UTF-8 is accepted.")
	}
	if t.Info.Doctype {
		add(RuleDoctype, "O documento tem uma declaração DOCTYPE; envie-o sem ela.",
			"The document has a DOCTYPE declaration; send it without one.")
	}
}

// rootName is the document element's local name, or {namespace}local when it is not in the namespace
// of a UBL 2.1 document of that name.
func rootName(t *xmltree.Tree) string {
	q := t.QName(t.Name(t.Root()))
	switch {
	case q.Local == "Invoice" && q.Space == xsd.NSInvoice, q.Local == "CreditNote" && q.Space == xsd.NSCreditNote,
		q.Local == "Order" && q.Space == xsd.NSOrder:
		return q.Local
	}
	return "{" + q.Space + "}" + q.Local
}

// autoProfile picks the rule set for a document by its document element's local name, whatever its
// namespace: the official validator checks the document it is given, and a document element in a
// mistaken namespace (a schema error already) still meets the rules, many of whose contexts do not name
// it. Another document element is checked by the CustomizationID it declares, if that names CIUS-PT or
// EN16931, or a PEPPOL order transaction.
func autoProfile(t *xmltree.Tree) Profile {
	root := t.Root()
	switch t.QName(t.Name(root)).Local {
	case "Invoice", "CreditNote":
		return CIUSPT
	case "Order":
		return PeppolOrder
	}
	for _, c := range t.Children(root, nameCustomizationID) {
		switch id := t.StringValue(c); {
		case strings.Contains(id, "urn:fdc:peppol.eu:poacc:trns:order:"):
			return PeppolOrder
		case strings.Contains(id, "urn:cen.eu:en16931:") || strings.Contains(id, "CIUS-PT"):
			return CIUSPT
		}
	}
	return ""
}

var nameCustomizationID = rules.MustName("cbc:CustomizationID")

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}
