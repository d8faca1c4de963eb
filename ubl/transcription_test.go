package ubl

import (
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/ubl/internal/mutant"
	"einvoice/ubl/internal/oracle"
	"einvoice/ubl/ubltest"
)

// The official rules, transcribed from the inventory and run by Saxon (ubl/internal/oracle: the
// transcription gives the official results on the whole corpus), judge variants of the corpus documents
// made by small edits (ubltest.Variants): an element removed, repeated or moved, a value or an attribute
// changed. The rule engine, with the profile picked as the command picks it by default, must give the
// same fatal and warning counts, and the same "no verdict", on every one. EINVOICE_VARIANTS sets how
// many variants of each schema-valid document (default 24; each fourth schema-invalid case gives one);
// EINVOICE_VARIANTS_SEED changes them, and EINVOICE_VARIANTS_KEEP names a folder to keep the variants
// that disagree in.
func TestRulesAgreeWithTheTranscriptionOnVariants(t *testing.T) {
	ubltest.Long(t)
	per := envInt(t, "EINVOICE_VARIANTS", 24)
	seed := envInt(t, "EINVOICE_VARIANTS_SEED", 0)
	for _, profile := range []Profile{CIUSPT, PeppolOrder} {
		t.Run(string(profile), func(t *testing.T) {
			p, xsl := transcription(t, profile)
			docs := map[string][]byte{}
			for i, e := range p.Expected {
				n := per
				if !e.XSDValid {
					if i%4 != 0 {
						continue
					}
					n = 1
				}
				data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range ubltest.Variants(data, n, uint64(seed*100_000+i)) {
					docs[fmt.Sprintf("%04d-%03d.xml", i, k)] = v
				}
			}
			official := oracle.Run(t, xsl, docs)
			disagree := 0
			for _, name := range slices.Sorted(maps.Keys(docs)) {
				d := disagreement(official[name], Validate(docs[name], Auto, "en")) // as the command runs by default
				if d == "" {
					continue
				}
				disagree++
				t.Errorf("%s (variant of %s): %s", name, p.Expected[atoi(name[:4])].File, d)
				if dir := os.Getenv("EINVOICE_VARIANTS_KEEP"); dir != "" {
					_ = os.WriteFile(filepath.Join(dir, string(profile)+"-"+name), docs[name], 0o644)
				}
			}
			t.Logf("%d variants, %d disagree", len(docs), disagree)
		})
	}
}

// Documents are written in many forms XML allows for the same content (mutant.Respell:
// namespaces bound otherwise, CRLF, no or other indentation, comments before the document element…),
// as other software writes them. Each corpus document and two variants of each schema-valid one are
// respelled in one form each, in turn; the rules must give the transcription's answer, and the schema
// check xmllint's with the official schemas.
func TestRespelledDocumentsGetTheOfficialAnswers(t *testing.T) {
	ubltest.Long(t)
	ubltest.Need(t, "xmllint")
	schemas, err := ubltest.SchemaDir()
	if err != nil {
		t.Skip(err)
	}
	for _, profile := range []Profile{CIUSPT, PeppolOrder} {
		t.Run(string(profile), func(t *testing.T) {
			p, xsl := transcription(t, profile)
			docs, form := map[string][]byte{}, 0
			for i, e := range p.Expected {
				data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
				if err != nil {
					t.Fatal(err)
				}
				sources := [][]byte{data}
				if e.XSDValid {
					sources = append(sources, ubltest.Variants(data, 2, uint64(i))...)
				}
				for k, src := range sources {
					docs[fmt.Sprintf("%04d-%d-%d.xml", i, k, form)] = mutant.Respell(src, form)
					form = (form + 1) % mutant.Respellings
				}
			}
			official := oracle.Run(t, xsl, docs)
			schemaValid := map[string]map[string]bool{} // by document element, as the official check picks the schema
			for _, root := range map[Profile][]string{CIUSPT: {"Invoice", "CreditNote"}, PeppolOrder: {"Order"}}[profile] {
				schemaValid[root] = schemaVerdicts(t, filepath.Join(schemas, "maindoc", "UBL-"+root+"-2.1.xsd"), docs)
			}
			disagree := 0
			for _, name := range slices.Sorted(maps.Keys(docs)) {
				r := Validate(docs[name], profile, "en")
				d := disagreement(official[name], r)
				if valid, ok := schemaValid[deref(r.Root)]; ok && r.XSDValid != valid[name] {
					d += fmt.Sprintf("; schema-valid here %v, by xmllint %v", r.XSDValid, valid[name])
				}
				if d != "" {
					if disagree++; disagree <= 20 {
						t.Errorf("%s (%s respelled in form %s): %s", name, p.Expected[atoi(name[:4])].File, strings.TrimSuffix(name[7:], ".xml"), d)
					}
				}
			}
			t.Logf("%d respelled documents, %d disagree", len(docs), disagree)
		})
	}
}

// schemaVerdicts is xmllint's verdict on each document with the schema, by name.
func schemaVerdicts(t *testing.T, schema string, docs map[string][]byte) map[string]bool {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for name, data := range docs {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	valid := map[string]bool{}
	for f := range ubltest.SchemaValid(t, schema, files) {
		valid[filepath.Base(f)] = true
	}
	return valid
}

// Where XPath lets a processor choose (whether an operand is evaluated at all, how an untyped value
// compares with a number), the engine answers as Saxon does. Each case holds a document small enough to
// read and the official answer; with the long tests on, the answer is put to the transcription as well.
func TestEvaluationFollowsSaxon(t *testing.T) {
	heads := map[Profile][2]string{
		CIUSPT:      {invoiceStart, `</Invoice>`},
		PeppolOrder: {`<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"` + componentNamespaces + `>`, `</Order>`},
	}
	exempt := func(tax string) string {
		return `<cac:TaxTotal><cbc:TaxAmount>0</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount>10</cbc:TaxableAmount>` +
			`<cbc:TaxAmount>` + tax + `</cbc:TaxAmount><cac:TaxCategory><cbc:ID>E</cbc:ID><cbc:Percent>0</cbc:Percent>` +
			`</cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>`
	}
	allowance := func(percent string) string {
		return `<cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount>1</cbc:Amount>` +
			`<cac:TaxCategory><cbc:ID>E</cbc:ID><cbc:Percent>` + percent + `</cbc:Percent></cac:TaxCategory></cac:AllowanceCharge>`
	}
	cases := []struct {
		name, body string
		rule       string // the rule the case is about
		fires      int    // how often it fires; -1: no verdict
		profile    Profile
	}{
		// A comparison whose left side is empty does not look at its right side: two amounts due are
		// not cast when there is no total with VAT to compare them with.
		{"empty left operand", `<cac:LegalMonetaryTotal><cbc:PrepaidAmount>-0.01</cbc:PrepaidAmount>` +
			`<cbc:PayableAmount>1</cbc:PayableAmount><cbc:PayableAmount>1</cbc:PayableAmount></cac:LegalMonetaryTotal>`,
			"DT-CIUS-PT-166", 1, ""},
		// Nor is a line net amount that is not a number, when the line has no quantity.
		{"line without quantity", `<cac:InvoiceLine><cbc:LineExtensionAmount>VAT</cbc:LineExtensionAmount>` +
			`<cac:Price><cbc:PriceAmount>1</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`, "DT-CIUS-PT-157", 1, ""},
		// exists() stops at the first discount amount; with no gross price nothing else is cast.
		{"two price discounts", `<cac:InvoiceLine><cac:Price><cbc:PriceAmount>1</cbc:PriceAmount>` +
			`<cac:AllowanceCharge><cbc:Amount>1</cbc:Amount></cac:AllowanceCharge>` +
			`<cac:AllowanceCharge><cbc:Amount>x</cbc:Amount></cac:AllowanceCharge></cac:Price></cac:InvoiceLine>`,
			"DT-CIUS-PT-170", 1, ""},
		// Every official sum casts each parent's amount on its own: a breakdown with two VAT amounts
		// stops the evaluation even though the sum of all of them is a number.
		{"two amounts in one breakdown", `<cac:TaxTotal><cbc:TaxAmount>2</cbc:TaxAmount><cac:TaxSubtotal>` +
			`<cbc:TaxAmount>1</cbc:TaxAmount><cbc:TaxAmount>1</cbc:TaxAmount></cac:TaxSubtotal></cac:TaxTotal>`,
			"DT-CIUS-PT-164", -1, ""},
		// "-0.00" is not equal to 0 for Saxon (it orders -0 below 0), but "-0" is.
		{"negative zero tax amount", exempt("-0.00"), "BR-E-09", 1, ""},
		{"minus zero as an integer", exempt("-0"), "BR-E-09", 0, ""},
		{"negative zero rate", allowance("-0.00"), "BR-E-06", 1, ""},
		{"zero rate", allowance("0.00"), "BR-E-06", 0, ""},
		{"a rate that is not a number", allowance("NaN"), "BR-E-06", 1, ""},
		// An element read as text includes the whitespace between the elements inside it: here a line
		// feed, which the format's "." does not match.
		{"element inside a value", "<cbc:ID>4560000222<cac:ProjectReference>\n  <cbc:ID>9</cbc:ID>\n</cac:ProjectReference></cbc:ID>",
			"DT-CIUS-PT-001", 1, ""},
		{"value around a comment", "<cbc:ID>45600<!-- c -->00222</cbc:ID>", "DT-CIUS-PT-001", 0, ""},
		// Without a total without VAT the sum is empty, and the two VAT totals are not read.
		{"two VAT totals, no total without VAT", `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>` +
			`<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">1</cbc:TaxAmount></cac:TaxTotal>` +
			`<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">1</cbc:TaxAmount></cac:TaxTotal>`, "DT-CIUS-PT-165", 1, ""},
		// PEPPOL: the key of line identifiers indexes every line item, wherever it is.
		{"a line item outside the lines", `<cac:OrderLine><cac:LineItem><cbc:ID>1</cbc:ID></cac:LineItem></cac:OrderLine>` +
			`<cac:Delivery><cac:LineItem><cbc:ID>1</cbc:ID></cac:LineItem></cac:Delivery>`, "PEPPOL-T01-R001", 1, PeppolOrder},
		// ...and a line item with two identifiers is one item.
		{"a line item with two identifiers", `<cac:OrderLine><cac:LineItem><cbc:ID>1</cbc:ID><cbc:ID>2</cbc:ID></cac:LineItem></cac:OrderLine>`,
			"PEPPOL-T01-R001", 0, PeppolOrder},
		// The amounts' rule takes the basic components of a monetary total, not a total inside it.
		{"a total inside a total", `<cac:AnticipatedMonetaryTotal><cbc:PayableAmount>-1</cbc:PayableAmount>` +
			`<cac:AnticipatedMonetaryTotal><cbc:PayableAmount>-1</cbc:PayableAmount></cac:AnticipatedMonetaryTotal>` +
			`</cac:AnticipatedMonetaryTotal>`, "PEPPOL-T01-R006", 2, PeppolOrder},
		// Without an amount due the comparison is false before the rounding amounts are read.
		{"two rounding amounts, no amount due", `<cac:AnticipatedMonetaryTotal><cbc:TaxInclusiveAmount>1</cbc:TaxInclusiveAmount>` +
			`<cbc:PayableRoundingAmount>0.1</cbc:PayableRoundingAmount><cbc:PayableRoundingAmount>0.1</cbc:PayableRoundingAmount>` +
			`</cac:AnticipatedMonetaryTotal>`, "PEPPOL-T01-R016", 1, PeppolOrder},
		// normalize-space(text()) needs one text node: a comment makes two.
		{"a code around a comment", `<cbc:OrderTypeCode>2<!-- c -->20</cbc:OrderTypeCode>`, "PEPPOL-T01-B00801", -1, PeppolOrder},
	}
	docs := map[Profile]map[string][]byte{CIUSPT: {}, PeppolOrder: {}}
	for i := range cases {
		tc := &cases[i]
		if tc.profile == "" {
			tc.profile = CIUSPT
		}
		doc := []byte(heads[tc.profile][0] + tc.body + heads[tc.profile][1])
		docs[tc.profile][fmt.Sprintf("%02d.xml", i)] = doc
		r := Validate(doc, tc.profile, "en")
		got := r.Fatal[tc.rule]
		if r.NoVerdict != "" {
			got = -1
		}
		if got != tc.fires {
			t.Errorf("%s: %s fires %d times (-1: no verdict), Saxon %d", tc.name, tc.rule, got, tc.fires)
		}
	}
	t.Run("transcription", func(t *testing.T) {
		ubltest.Long(t)
		official := map[Profile]map[string]oracle.Result{}
		for _, profile := range []Profile{CIUSPT, PeppolOrder} {
			_, xsl := transcription(t, profile)
			official[profile] = oracle.Run(t, xsl, docs[profile])
		}
		for i, tc := range cases {
			r := official[tc.profile][fmt.Sprintf("%02d.xml", i)]
			got := r.Fatal[tc.rule]
			if r.Error {
				got = -1
			}
			if got != tc.fires {
				t.Errorf("%s: the transcription says %s fires %d times, the case %d", tc.name, tc.rule, got, tc.fires)
			}
		}
	})
}

// transcription is a profile's corpus and its rules as XSLT.
func transcription(t *testing.T, profile Profile) (ubltest.Profile, []byte) {
	t.Helper()
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	i := 0
	if profile == PeppolOrder {
		i = 1
	}
	xsl, err := oracle.Stylesheet(inventory(t, profile))
	if err != nil {
		t.Fatal(err)
	}
	return profiles[i], xsl
}

// inventory is a profile's rule inventory as the transcription reads it.
func inventory(t *testing.T, profile Profile) oracle.Profile {
	t.Helper()
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	if profile == CIUSPT {
		return oracle.CIUSPT(dir)
	}
	o, err := oracle.PeppolOrder(dir, filepath.Join("rules", "peppol", "t01-structure.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// disagreement says how our result differs from the transcription's ("" when it does not).
func disagreement(official oracle.Result, r *Result) string {
	if official.Error || r.NoVerdict != "" {
		if official.Error == (r.NoVerdict != "") {
			return ""
		}
		return fmt.Sprintf("no verdict: official %v, ours %q", official.Error, r.NoVerdict)
	}
	return strings.Trim(diff(official.Fatal, filter(r.Fatal, nil))+"; "+diff(official.Warning, filter(r.Warning, nil)), "; ")
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: not a number", name, s)
	}
	return n
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// componentNamespaces declares the cac and cbc prefixes; invoiceStart is an invoice's start tag with
// them, for the small documents tests write.
const (
	componentNamespaces = ` xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"` +
		` xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`
	invoiceStart = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"` + componentNamespaces + `>`
)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// BenchmarkSideBySide times, in one run, the official validator's work on the typical invoices, warm,
// against full validation here: in one JVM, the schema check with the JDK's validator and the official
// CIUS-PT rules (their transcription, writing an SVRL report as a Schematron validator does) on
// Saxon-HE 9.9, the processor of the official results (oracle.TimeOfficialLike); and, for comparison
// with earlier runs, the rules alone writing only their ids.
func BenchmarkSideBySide(b *testing.B) {
	docs := typicalInvoices(b)
	dir, err := ubltest.Dir()
	if err != nil {
		b.Skip(err)
	}
	schemas, _ := ubltest.SchemaDir()
	plain, err := oracle.Stylesheet(oracle.CIUSPT(dir))
	if err != nil {
		b.Fatal(err)
	}
	report, err := oracle.ReportStylesheet(oracle.CIUSPT(dir))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		official := oracle.TimeOfficialLike(b, report, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), docs, 40)
		rules := oracle.TimeOfficialLike(b, plain, "", docs, 40)
		start := time.Now()
		for range 200 {
			for _, d := range docs {
				Validate(d, CIUSPT, "en")
			}
		}
		ours := time.Since(start) / time.Duration(200*len(docs))
		b.ReportMetric(float64(official.Microseconds()), "official-like-µs/invoice")
		b.ReportMetric(float64(rules.Microseconds()), "saxon-rules-µs/invoice")
		b.ReportMetric(float64(ours.Nanoseconds())/1000, "ours-full-µs/invoice")
		b.ReportMetric(float64(official)/float64(ours), "times-faster")
	}
}

// A line's net amount (DT-CIUS-PT-157: quantity × price ÷ base quantity, rounded to cents, plus
// charges and minus allowances, each sum rounded, within 1.00) agrees with the transcription on lines
// made to land on the tolerance's edges: the line amount is the exact result (in rationals) moved by
// 1.00, 1.01, 0.99, 0.005…, with prices of up to five decimals, negative amounts and base quantities
// such as 3, 7 and 0.3 whose division does not end.
func TestLineArithmeticAgreesWithTheTranscription(t *testing.T) {
	ubltest.Long(t)
	rng := rand.New(rand.NewPCG(7, 1))
	number := func() string {
		switch rng.IntN(6) {
		case 0:
			return fmt.Sprintf("%d", rng.IntN(20))
		case 1:
			return fmt.Sprintf("%d.%d", rng.IntN(20), rng.IntN(10))
		case 2:
			return fmt.Sprintf("%d.%02d", rng.IntN(20), rng.IntN(100))
		case 3:
			return fmt.Sprintf("%d.%03d", rng.IntN(20), rng.IntN(1000))
		case 4:
			return fmt.Sprintf("%d.%05d", rng.IntN(3), rng.IntN(100000))
		}
		return fmt.Sprintf("-%d.%02d", rng.IntN(5), rng.IntN(100))
	}
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	cents := func(r *big.Rat) *big.Rat { // round(r × 100) div 100, halves up
		x := new(big.Rat).Add(new(big.Rat).Mul(r, big.NewRat(100, 1)), big.NewRat(1, 2))
		return new(big.Rat).SetFrac(new(big.Int).Div(x.Num(), x.Denom()), big.NewInt(100))
	}
	docs := map[string][]byte{}
	for i := range 1500 {
		qty, price := number(), number()
		value := new(big.Rat).Mul(rat(qty), rat(price))
		base := ""
		if rng.IntN(3) > 0 {
			b := []string{"1", "3", "7", "0.3", "12", number()}[rng.IntN(6)]
			base = `<cbc:BaseQuantity>` + b + `</cbc:BaseQuantity>`
			if rat(b).Sign() > 0 {
				value.Quo(value, rat(b))
			}
		}
		value = cents(value)
		charges, allowances, acs := new(big.Rat), new(big.Rat), ""
		for k := rng.IntN(3); k > 0; k-- {
			charge, amount := rng.IntN(2) == 0, number()
			acs += fmt.Sprintf(`<cac:AllowanceCharge><cbc:ChargeIndicator>%v</cbc:ChargeIndicator><cbc:Amount>%s</cbc:Amount></cac:AllowanceCharge>`, charge, amount)
			if charge {
				charges.Add(charges, rat(amount))
			} else {
				allowances.Add(allowances, rat(amount))
			}
		}
		value.Add(value, cents(charges)).Sub(value, cents(allowances))
		offset := []string{"1.00", "-1.00", "1.01", "-1.01", "0.99", "0", "0.005", "-0.995"}[rng.IntN(8)]
		lineAmount := value.Add(value, rat(offset)).FloatString(3)
		docs[fmt.Sprintf("%04d.xml", i)] = []byte(invoiceStart + `<cac:InvoiceLine><cbc:InvoicedQuantity>` + qty + `</cbc:InvoicedQuantity><cbc:LineExtensionAmount>` + lineAmount +
			`</cbc:LineExtensionAmount>` + acs + `<cac:Price><cbc:PriceAmount>` + price + `</cbc:PriceAmount>` + base +
			`</cac:Price></cac:InvoiceLine></Invoice>`)
	}
	_, xsl := transcription(t, CIUSPT)
	official := oracle.Run(t, xsl, docs)
	fired := 0
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		r := Validate(docs[name], CIUSPT, "en")
		if d := disagreement(official[name], r); d != "" {
			t.Errorf("%s: %s\n%s", name, d, docs[name])
		}
		if r.Fatal["DT-CIUS-PT-157"] > 0 {
			fired++
		}
	}
	if fired < len(docs)/4 || fired > len(docs)*3/4 {
		t.Errorf("DT-CIUS-PT-157 fired on %d of %d lines: the edges are not where the lines were put", fired, len(docs))
	}
}

// The official rules run on Java's XML parser, which reads fewer encoding names than libxml2: over
// names it reads and names it does not, and UTF-16 documents declared in several ways, the rules give
// no verdict exactly where the transcription on Saxon (on the JDK's parser) gives none.
func TestEncodingNamesAsTheOfficialParser(t *testing.T) {
	ubltest.Long(t)
	_, xsl := transcription(t, CIUSPT)
	plain := string(generatedInvoice(2))
	body := plain[strings.Index(plain, "?>")+2:] // ASCII: every encoding below reads these bytes alike
	for _, r := range body {
		if r > 127 {
			t.Fatal("the generated invoice is not ASCII")
		}
	}
	docs := map[string][]byte{}
	for _, name := range strings.Fields(`UTF-8 utf-8 UTF8 utf8 UTF_8 US-ASCII ascii CP367 ISO-8859-1 iso_8859-1 latin1 L1
		ISO8859-1 8859_1 ISO_8859-1:1987 ISO-8859-15 LATIN-9 LATIN9 windows-1252 CP1252 X-CP1252 MS-ANSI
		ISO-8859-16 KOI8-R KOI8-U SHIFT_JIS SJIS GB18030 BIG5 MACINTOSH`) {
		docs["decl-"+name+".xml"] = []byte(`<?xml version="1.0" encoding="` + name + `"?>` + body)
	}
	for _, name := range []string{"UTF-16", "UTF-16LE", "ISO-10646-UCS-2", "UNICODE", "UTF-8"} {
		docs["utf16-"+name+".xml"] = utf16LE(`<?xml version="1.0" encoding="` + name + `"?>` + body)
	}
	docs["utf16-undeclared.xml"] = utf16LE(body)
	official := oracle.Run(t, xsl, docs)
	read := 0
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		r := Validate(docs[name], CIUSPT, "en")
		if official[name].Error != (r.NoVerdict != "") {
			t.Errorf("%s: no verdict officially %v, here %q", name, official[name].Error, r.NoVerdict)
		}
		if !official[name].Error {
			read++
		}
	}
	if read < 10 || read > len(docs)-10 {
		t.Fatalf("the official parser read %d of %d: the cases should hold both kinds", read, len(docs))
	}
}

// Each assert of the inventories is put to work on clean corpus documents of each kind
// (mutant.Exercise: what its test asks to be absent made present, a value's length bound reached
// and passed, tagged values well and badly formed, the literals it compares with put in the elements it
// names). Most ids fire on no corpus document; here most fire, and the rules must give the
// transcription's answer on every variant. EINVOICE_EXERCISE_DOCS sets how many documents of each kind
// (default 1).
func TestRulesAgreeWithTheTranscriptionOnExercisedAsserts(t *testing.T) {
	ubltest.Long(t)
	per := envInt(t, "EINVOICE_EXERCISE_DOCS", 1)
	for _, profile := range []Profile{CIUSPT, PeppolOrder} {
		t.Run(string(profile), func(t *testing.T) {
			p, xsl := transcription(t, profile)
			inv := inventory(t, profile)
			bases := cleanDocuments(t, p, "", per)
			asserts := distinctAsserts(t, inv)
			docs := map[string][]byte{}
			for i, a := range asserts {
				for j, base := range bases {
					for k, v := range mutant.Exercise(base, a.Context, a.Test, inv.Namespaces) {
						docs[fmt.Sprintf("%04d-%d-%02d.xml", i, j, k)] = v
					}
				}
			}
			official := oracle.Run(t, xsl, docs)
			disagree, fired := 0, map[string]bool{}
			for _, name := range slices.Sorted(maps.Keys(docs)) {
				for id := range official[name].Fatal {
					fired[id] = true
				}
				for id := range official[name].Warning {
					fired[id] = true
				}
				if d := disagreement(official[name], Validate(docs[name], Auto, "en")); d != "" {
					if disagree++; disagree <= 20 {
						a := asserts[atoi(name[:4])]
						t.Errorf("%s (%s, context %s): %s", name, a.ID, a.Context, d)
					}
				}
			}
			ids := map[string]bool{}
			for _, a := range asserts {
				ids[a.ID] = true
			}
			t.Logf("%d variants of %d asserts, %d disagree; %d of %d rule ids fire", len(docs), len(asserts), disagree, len(fired), len(ids))
			if len(fired)*100 < len(ids)*minExercised[profile] {
				t.Errorf("only %d of %d rule ids fire on the variants (at least %d%% did)", len(fired), len(ids), minExercised[profile])
			}
		})
	}
}

// minExercised is the share of a profile's rule ids (in %) that fire on the exercised asserts' variants.
var minExercised = map[Profile]int{CIUSPT: 95, PeppolOrder: 95}

// distinctAsserts lists an inventory's asserts, each context and test once.
func distinctAsserts(t *testing.T, inv oracle.Profile) []oracle.Assert {
	t.Helper()
	all, err := inv.Asserts()
	if err != nil {
		t.Fatal(err)
	}
	var out []oracle.Assert
	seen := map[oracle.Assert]bool{}
	for _, a := range all {
		if key := (oracle.Assert{Context: a.Context, Test: a.Test}); !seen[key] {
			seen[key] = true
			out = append(out, a)
		}
	}
	return out
}

// cleanDocuments are the first n clean documents (schema-valid, no fatal finding) of each document
// element in a profile's corpus, or of one document element when root names it.
func cleanDocuments(t *testing.T, p ubltest.Profile, root string, n int) [][]byte {
	t.Helper()
	var out [][]byte
	taken := map[string]int{}
	for _, e := range p.Expected {
		if !e.XSDValid || len(e.Fatal) > 0 || e.Error != "" || taken[deref(e.Root)] >= n || root != "" && deref(e.Root) != root {
			continue
		}
		data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
		if err != nil {
			t.Fatal(err)
		}
		taken[deref(e.Root)]++
		out = append(out, data)
	}
	return out
}
