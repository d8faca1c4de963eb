package ciuspt

import (
	_ "embed"
	"slices"
	"strings"
	"sync"

	"einvoice/ubl/rules"
	"einvoice/ubl/xmltree"
)

//go:generate go run ./gen -rules ../../../../shared/conformance/rules/cius-pt-2.1.2.csv -out ubl-cr.txt

//go:embed ubl-cr.txt
var crTable string

// syntaxPattern is the UBL-syntax pattern: warnings for elements CIUS-PT does not use (UBL-CR, invoices
// only), for attributes it does not use (UBL-DT-08..26), for repeated elements (UBL-SR), and the
// binary-object attributes every attachment needs (UBL-DT-06, -07).
func syntaxPattern() *rules.Pattern {
	once := func(id, path string) *rules.Assert {
		return warn(id, rules.CountAtMost(path, 1), label(path)+" should occur at most once.", label(path)+" deve ocorrer no máximo uma vez.")
	}
	onceWith := func(id, path string) *rules.Assert {
		p := rules.PWith(path, preds)
		return warn(id, func(c *ctx, x node) bool { return c.Count(x, p) <= 1 },
			label(path)+" should occur at most once.", label(path)+" deve ocorrer no máximo uma vez.")
	}
	invoice := append([]*rules.Assert{unusedElements()}, unusedAttributes()...)
	invoice = append(invoice,
		once("UBL-SR-01", "cac:ContractDocumentReference/cbc:ID"),
		once("UBL-SR-02", "cac:ReceiptDocumentReference/cbc:ID"),
		once("UBL-SR-03", "cac:DespatchDocumentReference/cbc:ID"),
		onceWith("UBL-SR-04", "cac:AdditionalDocumentReference[object]/cbc:ID"),
		once("UBL-SR-05", "cac:PaymentTerms/cbc:Note"),
		once("UBL-SR-06", "cac:InvoiceDocumentReference"),
		once("UBL-SR-08", "cac:InvoicePeriod"),
		once("UBL-SR-09", "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"),
		once("UBL-SR-10", "cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name"),
		once("UBL-SR-11", "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"),
		onceWith("UBL-SR-12", "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme[vat]/cbc:CompanyID"),
		onceWith("UBL-SR-13", "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme[notVAT]/cbc:ID"),
		once("UBL-SR-14", "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyLegalForm"),
		once("UBL-SR-15", "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"),
		once("UBL-SR-16", "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID"),
		once("UBL-SR-17", "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"),
		once("UBL-SR-18", "cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID"),
		once("UBL-SR-24", "cac:Delivery"),
		once("UBL-SR-29", "cac:PayeeParty/cac:PartyIdentification/cbc:ID"),
		once("UBL-SR-39", "cac:ProjectReference/cbc:ID"),
		once("UBL-SR-40", "cac:AccountingCustomerParty/cac:Party/cac:PartyName/cbc:Name"),
	)
	return rules.NewPattern("UBL-syntax",
		rule("cac:AdditionalDocumentReference", once("UBL-SR-33", "cbc:DocumentType")),
		rule("*BinaryObject",
			fatal("UBL-DT-06", hasAttr("mimeCode"), "Binary objects shall have a MIME code.", "Os objetos binários devem ter o código MIME."),
			fatal("UBL-DT-07", hasAttr("filename"), "Binary objects shall have a file name.", "Os objetos binários devem ter o nome do ficheiro.")),
		rule("cac:Delivery", once("UBL-SR-25", "cac:DeliveryParty/cac:PartyName/cbc:Name")),
		rule("cac:AllowanceCharge[allowance]", once("UBL-SR-30", "cbc:AllowanceChargeReason")),
		rule("cac:AllowanceCharge[charge]", once("UBL-SR-31", "cbc:AllowanceChargeReason")),
		rule("/inv:Invoice", invoice...),
		rule("cac:InvoiceLine",
			once("UBL-SR-34", "cbc:Note"),
			once("UBL-SR-35", "cac:OrderLineReference/cbc:LineID"),
			once("UBL-SR-36", "cac:InvoicePeriod"),
			once("UBL-SR-37", "cac:Price/cac:AllowanceCharge/cbc:Amount"),
			once("UBL-SR-38", "cac:Item/cac:ClassifiedTaxCategory/cbc:TaxExemptionReason")),
		rule("cac:PaymentMeans",
			once("UBL-SR-26", "cbc:PaymentID"),
			once("UBL-SR-27", "cbc:InstructionNote"),
			once("UBL-SR-28", "cac:PaymentMandate/cbc:ID")),
		rule("cac:BillingReference",
			warn("UBL-SR-07", exist("cac:InvoiceDocumentReference/cbc:ID"),
				"A billing reference should give the preceding invoice number.", "A referência de faturação deve indicar o número da fatura anterior.")),
		rule("cac:TaxRepresentativeParty",
			once("UBL-SR-22", "cac:Party/cac:PartyName/cbc:Name"),
			once("UBL-SR-23", "cac:Party/cac:PartyTaxScheme/cbc:CompanyID")),
		rule("cac:TaxSubtotal", once("UBL-SR-32", "cac:TaxCategory/cbc:TaxExemptionReason")),
	)
}

var pSchemeID = P("cac:TaxScheme/cbc:ID")

// crTrie indexes the UBL-CR paths (below the Invoice) by their steps: following an element's names
// from the Invoice down finds the rules it fires.
type crTrie struct {
	next map[xmltree.Name]*crTrie
	ids  []int32 // the rules whose path ends here, by their index in loadCR's ids
}

// loadCR reads the UBL-CR table: the rule ids in order, and the trie of their paths.
func loadCR() ([]string, *crTrie) {
	var ids []string
	root := &crTrie{next: map[xmltree.Name]*crTrie{}}
	for _, line := range strings.Split(crTable, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, path, _ := strings.Cut(line, " ")
		t := root
		for _, step := range strings.Split(path, "/") {
			// A few official paths name elements UBL 2.1 does not have (cbc:DocumentReference): a
			// document may hold one all the same, and the rule reports it.
			n := rules.RegisterName(step)
			if t.next[n] == nil {
				t.next[n] = &crTrie{next: map[xmltree.Name]*crTrie{}}
			}
			t = t.next[n]
		}
		t.ids = append(t.ids, int32(len(ids)))
		ids = append(ids, id)
	}
	return ids, root
}

// crOf is the UBL-CR rules whose path below invoice leads to element n (a slice of the trie: read only).
func crOf(t *xmltree.Tree, invoice, n node, trie *crTrie) []int32 {
	var names []xmltree.Name
	for x := n; x != invoice && x != xmltree.None; x = t.Parent(x) {
		names = append(names, t.Name(x))
	}
	at := trie
	for i := len(names) - 1; i >= 0 && at != nil; i-- {
		at = at.next[names[i]]
	}
	if at == nil || at.ids == nil {
		return []int32{}
	}
	return at.ids
}

// crByPath remembers, by element path (rules.Ctx.PathID), which UBL-CR rules an element on that path
// fires: the same in every document.
type crByPath struct {
	sync.RWMutex
	rules [][]int32 // nil: not worked out yet
}

// unusedElements are the UBL-CR warnings, decided together: a rule fires when some element lies on
// its path below the invoice.
func unusedElements() *rules.Assert {
	ids, trie := loadCR()
	members := make([]*rules.Assert, len(ids))
	for i, id := range ids {
		members[i] = warn(id, nil, "A UBL element CIUS-PT does not use should not be present.", "Um elemento UBL que o CIUS-PT não usa não deve estar presente.")
	}
	memo := &crByPath{}
	return rules.NewFamily(members, func(c *ctx, invoice node, fire func(*rules.Assert)) {
		t := c.Tree()
		var present []int32 // the members that fire, by index, with repeats
		type learnt struct {
			path  int32
			rules []int32
		}
		var learn []learnt
		memo.RLock()
		known := memo.rules
		for n, end := invoice+1, t.SubtreeEnd(invoice); n < end; n++ {
			if t.Kind(n) != xmltree.Element {
				continue
			}
			id, ok := c.PathID(n)
			var fired []int32
			if ok && int(id) < len(known) && known[id] != nil {
				fired = known[id]
			} else {
				fired = crOf(t, invoice, n, trie)
				if ok {
					learn = append(learn, learnt{id, fired})
				}
			}
			if len(fired) > 0 {
				present = append(present, fired...)
			}
		}
		memo.RUnlock()
		if len(learn) > 0 {
			memo.Lock()
			for _, l := range learn {
				for int(l.path) >= len(memo.rules) {
					memo.rules = append(memo.rules, nil)
				}
				memo.rules[l.path] = l.rules
			}
			memo.Unlock()
		}
		slices.Sort(present)
		for _, i := range slices.Compact(present) {
			fire(members[i])
		}
	})
}

// unusedAttributes are UBL-DT-08..26: attributes CIUS-PT does not use should appear nowhere. Some of
// them are not in the UBL schemas at all, so attributes are counted by name.
func unusedAttributes() []*rules.Assert {
	absent := func(id, attr string) *rules.Assert {
		i := watchedAttr(attr)
		return warn(id, func(c *ctx, x node) bool { return attrCounts(c).counts[i] == 0 },
			"Attribute "+attr+" should not be used.", "O atributo "+attr+" não deve ser usado.")
	}
	return []*rules.Assert{
		absent("UBL-DT-08", "schemeName"),
		absent("UBL-DT-09", "schemeAgencyName"),
		absent("UBL-DT-10", "schemeDataURI"),
		absent("UBL-DT-11", "schemeURI"),
		absent("UBL-DT-12", "format"),
		absent("UBL-DT-13", "unitCodeListIdentifier"),
		absent("UBL-DT-14", "unitCodeListAgencyIdentifier"),
		absent("UBL-DT-15", "unitCodeListAgencyName"),
		absent("UBL-DT-16", "listAgencyName"),
		absent("UBL-DT-17", "listName"),
		warn("UBL-DT-18", func(c *ctx, x node) bool { t := attrCounts(c); return t.counts[watchedName]-t.nameOnMeans <= 0 },
			"Attribute name should be used on PaymentMeansCode only.", "O atributo name só deve ser usado em PaymentMeansCode."),
		absent("UBL-DT-19", "languageID"),
		absent("UBL-DT-20", "listURI"),
		absent("UBL-DT-21", "listSchemeURI"),
		absent("UBL-DT-22", "languageLocaleID"),
		absent("UBL-DT-23", "uri"),
		absent("UBL-DT-24", "currencyCodeListVersionID"),
		absent("UBL-DT-25", "characterSetCode"),
		absent("UBL-DT-26", "encodingCode"),
	}
}

// watchedAttrs are the attribute names (without namespace) the UBL-DT rules count, and watchedByName
// the same by registered Name (the index in watchedAttrs plus one, 0 for names not watched), for
// counting without looking names up. Names are registered when the program starts (the schema
// tables), before these rules are built; a watched name no schema has comes in a document as a name of
// its own and is counted by its text.
var (
	watchedAttrs  []string
	watchedByName []int8
)

func watchedAttr(local string) int {
	for i, w := range watchedAttrs {
		if w == local {
			return i
		}
	}
	watchedAttrs = append(watchedAttrs, local)
	if n, ok := xmltree.Lookup("", local); ok {
		for int(n) >= len(watchedByName) {
			watchedByName = append(watchedByName, 0)
		}
		watchedByName[n] = int8(len(watchedAttrs))
	}
	return len(watchedAttrs) - 1
}

var (
	paymentMeansCode = rules.MustName("cbc:PaymentMeansCode")
	watchedName      = watchedAttr("name") // UBL-DT-18 counts name attributes, and those on cbc:PaymentMeansCode
)

// attrTally counts the document's watched attributes, and the name attributes on cbc:PaymentMeansCode.
type attrTally struct {
	counts      []int // by watchedAttr index
	nameOnMeans int
}

var attrCountsSlot = rules.NewSlot()

// watchedIndex is the watchedAttrs index of an attribute name, or -1.
func watchedIndex(t *xmltree.Tree, name xmltree.Name) int {
	if int(name) < len(watchedByName) {
		return int(watchedByName[name]) - 1
	}
	if name >= xmltree.FirstLocalName { // a name no schema registered: by its text
		if q := t.QName(name); q.Space == "" {
			return slices.Index(watchedAttrs, q.Local)
		}
	}
	return -1
}

// attrCounts counts the attributes once per document.
func attrCounts(c *ctx) *attrTally {
	return rules.DocSlot(c, attrCountsSlot, func() *attrTally {
		t := c.Tree()
		tally := &attrTally{counts: make([]int, len(watchedAttrs))}
		for _, a := range t.Attributes() {
			if i := watchedIndex(t, a.Name); i >= 0 {
				tally.counts[i]++
			}
		}
		if tally.counts[watchedName] > 0 {
			for n := xmltree.NodeID(0); int(n) < t.Len(); n++ {
				if t.Kind(n) != xmltree.Element || t.Name(n) != paymentMeansCode {
					continue
				}
				for _, a := range t.Attrs(n) {
					if watchedIndex(t, a.Name) == watchedName {
						tally.nameOnMeans++
					}
				}
			}
		}
		return tally
	})
}
