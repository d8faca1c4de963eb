package server

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzFormData puts the data method's form decoder to any set of fields (written as a query string):
// the bracket notation becomes a tree or is refused, never a panic; every value sent lands in the tree
// exactly once (each value of a field ending in "[]", the last value of any other field), none is lost,
// repeated or made null; and the tree decodes into the document's data or gives field errors, which
// the error registry answers.
func FuzzFormData(f *testing.F) {
	for _, seed := range []string{
		"number=FT+2026%2F1&emission_date=2026-01-10&type_document_fact=FT&currency=EUR" +
			"&customer[nif]=500000000&customer[name]=Cliente&supplier[address][country]=PT" +
			"&lines[0][description]=Servi%C3%A7o&lines[0][quantity]=2.000&lines[0][unit_price]=7.50&lines[0][amount]=15.00" +
			"&lines[0][taxes][0][tax_percent]=23&lines[1][description]=Livro&lines[1][taxes][0][tax_percent]=0" +
			"&lines[1][taxes][0][tax_exemption_reason_code]=M07&send_by_email=1",
		"additional_emails[]=a%40b.pt&additional_emails[]=c%40d.pt&notes[]=x&notes[]=y",
		"withholding_tax[0][type]=IRF&withholding_tax[0][tax_amount]=10.00&withholding_tax[0][description]=Reten%C3%A7%C3%A3o+IRS" +
			"&payment_terms[note]=30+dias&disable_pdf_sign=true",
		"lines[2][description]=b&lines[0][description]=a&lines[10][description]=c",
		"number=1&number=2",
		"lines[0]=x&lines[0][description]=y",
		"a[b][c][d][e][f][g][h][i]=deep",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		values, _ := url.ParseQuery(query) // the fields it could read
		tree, err := bracketTree(values)
		if err != nil {
			return
		}
		var want, got []string
		for key, vs := range values {
			if strings.HasSuffix(key, "[]") {
				want = append(want, vs...)
			} else if len(vs) > 0 {
				want = append(want, vs[len(vs)-1])
			}
		}
		if err := leaves(tree, &got); err != nil {
			t.Fatalf("%v in %#v", err, tree)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("the tree holds the values %q, the fields sent %q: %#v", got, want, tree)
		}
		body, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		var in documentData
		var fields FieldErrors
		if err := decodeInto(body, &in); err != nil && !errors.As(err, &fields) {
			t.Fatalf("%s: %v is not a field error", body, err)
		}
	})
}

// leaves collects the values of a bracket tree: strings inside maps and lists.
func leaves(v any, out *[]string) error {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case map[string]any:
		for _, c := range v {
			if err := leaves(c, out); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range v {
			if err := leaves(c, out); err != nil {
				return err
			}
		}
	default:
		return errors.New("a value that is not a string")
	}
	return nil
}
