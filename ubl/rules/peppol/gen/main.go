// Command gen writes t01-structure.txt, the structure rules of PEPPOL BIS Ordering 3 T01 (pattern #3):
// every element of the transaction in order, each as a rule with its checks (required children, code
// lists, attributes) or none, and after an element's descendants the rule that refuses any other
// child. The rules with checks come from the rule inventory; the rules without (which the inventory
// does not list, but which keep the refusing rules from firing on allowed elements) are the table
// below, worked out from the numbering of the inventory's rules, the order of the UBL 2.1 schema and
// the transaction's examples. Run: go generate ./ubl/rules/peppol.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const (
	o   = "/ubl:Order/"
	bp  = o + "cac:BuyerCustomerParty/cac:Party/"
	sp  = o + "cac:SellerSupplierParty/cac:Party/"
	op  = o + "cac:OriginatorCustomerParty/cac:Party/"
	ap  = o + "cac:AccountingCustomerParty/cac:Party/"
	dl  = o + "cac:Delivery/"
	li  = o + "cac:OrderLine/cac:LineItem/"
	itm = li + "cac:Item/"
)

// unchecked are the rules without assertions, by rule number.
var unchecked = map[int]string{
	2: o + "cbc:CustomizationID", 3: o + "cbc:ProfileID", 4: o + "cbc:ID", 5: o + "cbc:SalesOrderID", 6: o + "cbc:IssueDate",
	7: o + "cbc:IssueTime", 9: o + "cbc:Note", 11: o + "cbc:CustomerReference", 12: o + "cbc:AccountingCost",
	14: o + "cac:ValidityPeriod/cbc:EndDate", 17: o + "cac:QuotationDocumentReference/cbc:ID",
	20: o + "cac:OrderDocumentReference/cbc:ID", 23: o + "cac:OriginatorDocumentReference/cbc:ID",
	26: o + "cac:CatalogueReference/cbc:ID", 29: o + "cac:AdditionalDocumentReference/cbc:ID",
	30: o + "cac:AdditionalDocumentReference/cbc:DocumentType", 31: o + "cac:AdditionalDocumentReference/cac:Attachment",
	34: o + "cac:AdditionalDocumentReference/cac:Attachment/cac:ExternalReference/cbc:URI",
	39: o + "cac:Contract/cbc:ID", 42: o + "cac:ProjectReference/cbc:ID",

	50: bp + "cac:PartyName/cbc:Name", 52: bp + "cac:PostalAddress/cbc:StreetName", 53: bp + "cac:PostalAddress/cbc:AdditionalStreetName",
	54: bp + "cac:PostalAddress/cbc:CityName", 55: bp + "cac:PostalAddress/cbc:PostalZone", 56: bp + "cac:PostalAddress/cbc:CountrySubentity",
	57: bp + "cac:PostalAddress/cac:AddressLine", 58: bp + "cac:PostalAddress/cac:AddressLine/cbc:Line",
	64: bp + "cac:PartyTaxScheme/cbc:CompanyID", 66: bp + "cac:PartyTaxScheme/cac:TaxScheme/cbc:ID",
	70: bp + "cac:PartyLegalEntity/cbc:RegistrationName", 73: bp + "cac:PartyLegalEntity/cac:RegistrationAddress/cbc:CityName",
	79: bp + "cac:Contact", 80: bp + "cac:Contact/cbc:Name", 81: bp + "cac:Contact/cbc:Telephone", 82: bp + "cac:Contact/cbc:ElectronicMail",

	92: sp + "cac:PartyName/cbc:Name", 94: sp + "cac:PostalAddress/cbc:StreetName", 95: sp + "cac:PostalAddress/cbc:AdditionalStreetName",
	96: sp + "cac:PostalAddress/cbc:CityName", 97: sp + "cac:PostalAddress/cbc:PostalZone", 98: sp + "cac:PostalAddress/cbc:CountrySubentity",
	99: sp + "cac:PostalAddress/cac:AddressLine", 100: sp + "cac:PostalAddress/cac:AddressLine/cbc:Line",
	106: sp + "cac:PartyLegalEntity/cbc:RegistrationName", 109: sp + "cac:PartyLegalEntity/cac:RegistrationAddress/cbc:CityName",
	115: sp + "cac:Contact", 116: sp + "cac:Contact/cbc:Name", 117: sp + "cac:Contact/cbc:Telephone", 118: sp + "cac:Contact/cbc:ElectronicMail",

	123: o + "cac:OriginatorCustomerParty/cac:Party", 127: op + "cac:PartyName/cbc:Name", 128: op + "cac:Contact",
	129: op + "cac:Contact/cbc:Name", 130: op + "cac:Contact/cbc:Telephone", 131: op + "cac:Contact/cbc:ElectronicMail",

	141: ap + "cac:PartyName/cbc:Name", 143: ap + "cac:PostalAddress/cbc:StreetName", 144: ap + "cac:PostalAddress/cbc:AdditionalStreetName",
	145: ap + "cac:PostalAddress/cbc:CityName", 146: ap + "cac:PostalAddress/cbc:PostalZone", 147: ap + "cac:PostalAddress/cbc:CountrySubentity",
	148: ap + "cac:PostalAddress/cac:AddressLine", 149: ap + "cac:PostalAddress/cac:AddressLine/cbc:Line",
	155: ap + "cac:PartyTaxScheme/cbc:CompanyID", 157: ap + "cac:PartyTaxScheme/cac:TaxScheme/cbc:ID",
	161: ap + "cac:PartyLegalEntity/cbc:RegistrationName", 164: ap + "cac:PartyLegalEntity/cac:RegistrationAddress/cbc:CityName",
	170: ap + "cac:Contact", 171: ap + "cac:Contact/cbc:Name", 172: ap + "cac:Contact/cbc:Telephone", 173: ap + "cac:Contact/cbc:ElectronicMail",

	177: o + "cac:Delivery", 180: dl + "cac:DeliveryLocation/cbc:Name",
	182: dl + "cac:DeliveryLocation/cac:Address/cbc:StreetName", 183: dl + "cac:DeliveryLocation/cac:Address/cbc:AdditionalStreetName",
	184: dl + "cac:DeliveryLocation/cac:Address/cbc:CityName", 185: dl + "cac:DeliveryLocation/cac:Address/cbc:PostalZone",
	186: dl + "cac:DeliveryLocation/cac:Address/cbc:CountrySubentity", 188: dl + "cac:DeliveryLocation/cac:Address/cac:AddressLine/cbc:Line",
	194: dl + "cac:RequestedDeliveryPeriod", 195: dl + "cac:RequestedDeliveryPeriod/cbc:StartDate", 196: dl + "cac:RequestedDeliveryPeriod/cbc:StartTime",
	197: dl + "cac:RequestedDeliveryPeriod/cbc:EndDate", 198: dl + "cac:RequestedDeliveryPeriod/cbc:EndTime",
	204: dl + "cac:DeliveryParty/cac:PartyName/cbc:Name", 206: dl + "cac:DeliveryParty/cac:PostalAddress/cbc:StreetName",
	207: dl + "cac:DeliveryParty/cac:PostalAddress/cbc:AdditionalStreetName", 208: dl + "cac:DeliveryParty/cac:PostalAddress/cbc:CityName",
	209: dl + "cac:DeliveryParty/cac:PostalAddress/cbc:PostalZone", 210: dl + "cac:DeliveryParty/cac:PostalAddress/cbc:CountrySubentity",
	212: dl + "cac:DeliveryParty/cac:PostalAddress/cac:AddressLine/cbc:Line", 217: dl + "cac:DeliveryParty/cac:Contact",
	218: dl + "cac:DeliveryParty/cac:Contact/cbc:Name", 219: dl + "cac:DeliveryParty/cac:Contact/cbc:Telephone",
	220: dl + "cac:DeliveryParty/cac:Contact/cbc:ElectronicMail", 224: dl + "cac:Despatch/cbc:RequestedDespatchDate",
	225: dl + "cac:Despatch/cbc:RequestedDespatchTime", 228: dl + "cac:Shipment/cbc:ID", 230: dl + "cac:Shipment/cac:TransportHandlingUnit",
	231: dl + "cac:Shipment/cac:TransportHandlingUnit/cbc:ID",

	235: o + "cac:DeliveryTerms", 236: o + "cac:DeliveryTerms/cbc:ID", 237: o + "cac:DeliveryTerms/cbc:SpecialTerms",
	239: o + "cac:DeliveryTerms/cac:DeliveryLocation/cbc:ID", 243: o + "cac:PaymentTerms/cbc:Note",
	248: o + "cac:AllowanceCharge/cbc:AllowanceChargeReason", 249: o + "cac:AllowanceCharge/cbc:MultiplierFactorNumeric",
	253: o + "cac:AllowanceCharge/cac:TaxCategory/cbc:ID", 254: o + "cac:AllowanceCharge/cac:TaxCategory/cbc:Percent",
	256: o + "cac:AllowanceCharge/cac:TaxCategory/cac:TaxScheme/cbc:ID",

	274: o + "cac:OrderLine/cbc:Note", 276: li + "cbc:ID", 280: li + "cbc:AccountingCost",
	284: li + "cac:Delivery/cac:DeliveryLocation/cbc:Name",
	286: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:StreetName", 287: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:AdditionalStreetName",
	288: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:CityName", 289: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:PostalZone",
	290: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cbc:CountrySubentity",
	292: li + "cac:Delivery/cac:DeliveryLocation/cac:Address/cac:AddressLine/cbc:Line",
	298: li + "cac:Delivery/cac:RequestedDeliveryPeriod", 299: li + "cac:Delivery/cac:RequestedDeliveryPeriod/cbc:StartDate",
	300: li + "cac:Delivery/cac:RequestedDeliveryPeriod/cbc:StartTime", 301: li + "cac:Delivery/cac:RequestedDeliveryPeriod/cbc:EndDate",
	302: li + "cac:Delivery/cac:RequestedDeliveryPeriod/cbc:EndTime", 305: li + "cac:OriginatorParty",
	309: li + "cac:OriginatorParty/cac:PartyName/cbc:Name", 312: li + "cac:AllowanceCharge/cbc:ChargeIndicator",
	314: li + "cac:AllowanceCharge/cbc:AllowanceChargeReason", 315: li + "cac:AllowanceCharge/cbc:MultiplierFactorNumeric",
	329: itm + "cbc:Description", 330: itm + "cbc:Name", 332: itm + "cac:BuyersItemIdentification/cbc:ID",
	335: itm + "cac:SellersItemIdentification/cbc:ID", 338: itm + "cac:ManufacturersItemIdentification/cbc:ID",
	344: itm + "cac:ItemSpecificationDocumentReference/cbc:ID", 346: itm + "cac:CommodityClassification",
	350: itm + "cac:ClassifiedTaxCategory/cbc:ID", 351: itm + "cac:ClassifiedTaxCategory/cbc:Percent",
	353: itm + "cac:ClassifiedTaxCategory/cac:TaxScheme/cbc:ID", 357: itm + "cac:AdditionalItemProperty/cbc:ID",
	358: itm + "cac:AdditionalItemProperty/cbc:Name", 360: itm + "cac:AdditionalItemProperty/cbc:Value",
	362: itm + "cac:AdditionalItemProperty/cbc:ValueQualifier", 364: itm + "cac:ItemInstance",
	365: itm + "cac:ItemInstance/cbc:SerialID", 366: itm + "cac:ItemInstance/cac:LotIdentification",
	367: itm + "cac:ItemInstance/cac:LotIdentification/cbc:LotNumberID", 373: o + "cac:OrderLine/cac:QuotationLineReference/cbc:LineID",
}

var (
	child    = regexp.MustCompile(`^((?:cbc|cac):[A-Za-z]+)$`)
	attr     = regexp.MustCompile(`^@([A-Za-z]+)$`)
	attrCode = regexp.MustCompile(`^not\(@([A-Za-z]+)\) or \(some \$code in \$cl([A-Za-z0-9_]+) satisfies \$code = @([A-Za-z]+)\)$`)
	code     = regexp.MustCompile(`^\(some \$code in \$cl([A-Za-z0-9_]+) satisfies \$code = normalize-space\(text\(\)\)\)$`)
	code2    = regexp.MustCompile(`^\(some \$code in \$cl([A-Za-z0-9_]+) satisfies \$code = normalize-space\(text\(\)\)\) or \(some \$code in \$cl([A-Za-z0-9_]+) satisfies \$code = normalize-space\(text\(\)\)\)$`)
)

// check turns an inventory test into "kind param…".
func check(test string) (string, error) {
	switch {
	case test == "false()":
		return "refuse", nil
	case test == "not(@*:schemaLocation)":
		return "no-schema-location", nil
	case test == "normalize-space(text()) = 'false'":
		return "text false", nil
	}
	if m := child.FindStringSubmatch(test); m != nil {
		return "child " + m[1], nil
	}
	if m := attr.FindStringSubmatch(test); m != nil {
		return "attr " + m[1], nil
	}
	if m := attrCode.FindStringSubmatch(test); m != nil && m[1] == m[3] {
		return "attr-code " + m[1] + " " + strings.ToLower(m[2]), nil
	}
	if m := code2.FindStringSubmatch(test); m != nil {
		return "code " + strings.ToLower(m[1]) + " " + strings.ToLower(m[2]), nil
	}
	if m := code.FindStringSubmatch(test); m != nil {
		return "code " + strings.ToLower(m[1]), nil
	}
	return "", fmt.Errorf("test shape not handled: %s", test)
}

func main() {
	in := flag.String("rules", "../shared/conformance/rules/peppol-order-t01.csv", "T01 rule inventory")
	out := flag.String("out", "ubl/rules/peppol/t01-structure.txt", "table to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return err
	}
	contexts := map[int]string{}
	checks := map[int][]string{}
	for _, r := range rows[1:] {
		if r[6] != "#3" {
			continue
		}
		n, _ := strconv.Atoi(r[7])
		if c, ok := contexts[n]; ok && c != r[3] {
			return fmt.Errorf("rule %d has two contexts", n)
		}
		contexts[n] = r[3]
		k, err := check(r[4])
		if err != nil {
			return fmt.Errorf("%s: %w", r[0], err)
		}
		if r[1] != "fatal" {
			return fmt.Errorf("%s: flag %s", r[0], r[1])
		}
		checks[n] = append(checks[n], r[0]+" "+k)
	}
	var b strings.Builder
	b.WriteString("# PEPPOL BIS Ordering 3 T01 (release 2026.5) structure rules, in order. \"rule N CONTEXT\" opens a rule;\n")
	b.WriteString("# the lines under it are its checks: ID child NAME | attr NAME | attr-code ATTR LIST | code LIST [LIST] |\n")
	b.WriteString("# text false | refuse | no-schema-location. Generated by ubl/rules/peppol/gen.\n")
	last := 0
	for n := range contexts {
		last = max(last, n)
	}
	for n := range unchecked {
		last = max(last, n)
	}
	for n := 1; n <= last; n++ {
		c, checked := contexts[n]
		u, empty := unchecked[n]
		switch {
		case checked && empty:
			return fmt.Errorf("rule %d is in the inventory and in the unchecked table", n)
		case !checked && !empty:
			return fmt.Errorf("rule %d is in neither the inventory nor the unchecked table", n)
		case empty:
			c = u
		}
		fmt.Fprintf(&b, "rule %d %s\n", n, strings.ReplaceAll(c, "ubl:", "ord:"))
		sort.Strings(checks[n])
		for _, k := range checks[n] {
			b.WriteString("  " + k + "\n")
		}
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}
