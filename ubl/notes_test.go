package ubl

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"einvoice/ubl/internal/oracle"
	"einvoice/ubl/ubltest"
)

// The document notes that CIUS-PT tags (BT-22, "#TAG#value#" and "#TAG-nnn#value#") are checked against
// each other: counts, companions of the same index, duplicates. The corpus has no document that
// breaks these rules, so these cases were worked out by hand from the official tests; with the long
// tests on, the official rules' transcription (ubl/internal/oracle) confirms each.
func TestNoteTagChecks(t *testing.T) {
	cases := []struct {
		name  string
		notes []string
		want  map[string]int // the DT-CIUS-PT-020 findings by id
	}{
		{"well-formed", []string{"#SOURCECURRENCYCODE#USD#", "#CALCULATIONRATE#1.12345#",
			"#ENTITY@ATMPAYMENT-001#12345#", "#REFERENCE@ATMPAYMENT-001#123456789#", "#AMOUNT@ATMPAYMENT-001#10.00#",
			"#DESCRIPTION@ATMPAYMENT-001#Pagamento#"}, map[string]int{}},
		{"repeated and incomplete", []string{"#SOURCECURRENCYCODE#USD#", "#SOURCECURRENCYCODE#USD#",
			"#ENTITY@ATMPAYMENT-002#123#", "#ENTITY@ATMPAYMENT-002#123#", "#ENTITY@ATMPAYMENT-3#x#"},
			map[string]int{
				"DT-CIUS-PT-020_2.4":  2, // the source currency twice
				"DT-CIUS-PT-020_3.3":  2, // and no rate
				"DT-CIUS-PT-020_12.1": 1, // an index not of three digits
				"DT-CIUS-PT-020_12.3": 2, // the same note twice
				"DT-CIUS-PT-020_12.4": 3, // no reference of the same index
				"DT-CIUS-PT-020_12.5": 3, // no amount of the same index
			}},
		{"blanks before the tag", []string{"  #SOURCECURRENCYCODE#USD#", "#CALCULATIONRATE#1.5#"},
			map[string]int{
				"DT-CIUS-PT-020_2.2": 1, // the tag starts the normalised note, but the form is of the note as written
				"DT-CIUS-PT-020_2.3": 1, // so no well-formed source currency is counted for the rate
				"DT-CIUS-PT-020_3.1": 1, // and a rate needs two to five decimals
			}},
	}
	base := string(generatedInvoice(1))
	docs := map[string][]byte{}
	for i, tc := range cases {
		var notes strings.Builder
		for _, n := range tc.notes {
			notes.WriteString("<cbc:Note>" + n + "</cbc:Note>\n ")
		}
		doc := strings.Replace(base, "<cbc:DocumentCurrencyCode>", notes.String()+"<cbc:DocumentCurrencyCode>", 1)
		docs[fmt.Sprintf("%02d.xml", i)] = []byte(doc)
		r := Validate([]byte(doc), Auto, "en")
		if !r.XSDValid {
			t.Fatalf("%s: the document is not schema-valid: %+v", tc.name, r.Findings)
		}
		got := map[string]int{}
		for id, k := range r.Fatal {
			if strings.HasPrefix(id, "DT-CIUS-PT-020") {
				got[id] = k
			}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	t.Run("transcription", func(t *testing.T) {
		ubltest.Long(t)
		_, xsl := transcription(t, CIUSPT)
		official := oracle.Run(t, xsl, docs)
		for i, tc := range cases {
			got := map[string]int{}
			for id, k := range official[fmt.Sprintf("%02d.xml", i)].Fatal {
				if strings.HasPrefix(id, "DT-CIUS-PT-020") {
					got[id] = k
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("%s: the transcription says %v, the case %v", tc.name, got, tc.want)
			}
		}
	})
}
