package mutant

import (
	"strings"
	"testing"
)

// Each kind of test gets the variants that put it to work.
func TestExercise(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?>
<Invoice xmlns="urn:inv" xmlns:c="urn:cbc" xmlns:a="urn:cac">
  <c:ID schemeID="x">1</c:ID>
  <c:Note>n</c:Note>
  <a:Party><c:Name>p</c:Name></a:Party>
</Invoice>`)
	ns := map[string]string{"ubl": "urn:inv", "cbc": "urn:cbc", "cac": "urn:cac", "ext": "urn:ext"}
	for _, tc := range []struct {
		context, test string
		want          []string // in every variant, in order
		n             int      // how many variants
	}{
		{"/ubl:Invoice", "not(cac:Delivery/cbc:ID)", []string{"<a:Delivery><c:ID>1</c:ID></a:Delivery>"}, 1},
		{"/ubl:Invoice", "not(ext:UBLExtensions)", []string{`xmlns:ext="urn:ext"`, "<ext:UBLExtensions>1</ext:UBLExtensions>"}, 1},
		{"/ubl:Invoice", "not(//@listName)", []string{`listName="1"`}, 1},
		{"cac:Party", "(count(cbc:Name) <= 1)", []string{"<c:Name>p</c:Name><c:Name>1</c:Name><c:Name>1</c:Name>"}, 1},
		{"//ubl:Invoice/cbc:Note", "matches(.,'^(.{1,3})$')", []string{"<c:Note"}, 8},
		{"//ubl:Invoice/cbc:Note", "starts-with(normalize-space(.),'#TAG#') and x", []string{"<c:Note>"}, 11},
		{"/ubl:Invoice", "cbc:ID", nil, 1},
		{"/ubl:Invoice/cbc:ID", "@schemeID", nil, 1},
		{"/ubl:Invoice/cac:Delivery/cbc:Note", "normalize-space(.) = 'EUR'", []string{"<a:Delivery><c:Note"}, 3},
		{"/ubl:Order", "not(cbc:X)", nil, 0},
		{"/ubl:Invoice", "exists(cbc:ID) or exists(cbc:Note)", nil, 1},
		{"/ubl:Invoice/cac:Charge[normalize-space(cbc:Indicator) = 'true']", "not(cbc:Amount)", []string{"<a:Charge><c:Indicator>true</c:Indicator><c:Amount>1</c:Amount></a:Charge>"}, 1},
		{"/ubl:Invoice/cbc:ID[@schemeID = 'y']", "true()", []string{`<c:ID schemeID="x">1</c:ID>`, `<c:ID schemeID="y"`}, 2},
		{"/ubl:Invoice/cac:Party/*", "false()", []string{"<c:Name>p</c:Name><c:Unexpected"}, 2},
		{"/ubl:Invoice", "not(@*:schemaLocation)", []string{`xsi:schemaLocation=`}, 1},
	} {
		got := Exercise(doc, tc.context, tc.test, ns)
		if len(got) != tc.n {
			t.Errorf("%s %s: %d variants, want %d", tc.context, tc.test, len(got), tc.n)
		}
		for _, v := range got {
			s := string(v)
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("%s %s: no %q in\n%s", tc.context, tc.test, w, s)
				}
			}
		}
	}
	if v := Exercise(doc, "/ubl:Invoice", "cbc:ID", ns); len(v) == 1 && strings.Contains(string(v[0]), "<c:ID") {
		t.Errorf("cbc:ID not removed:\n%s", v[0])
	}
	if v := Exercise(doc, "/ubl:Invoice", "exists(cbc:ID) or exists(cbc:Note)", ns); len(v) == 1 && strings.Contains(string(v[0]), "<c:Note") {
		t.Errorf("cbc:Note not removed:\n%s", v[0])
	}
	removed, added := false, false
	for _, v := range Exercise(doc, "/ubl:Invoice", "exists(cac:Party) and not(cac:Party/cbc:Name)", ns) {
		removed = removed || !strings.Contains(string(v), "<c:Name")
		added = added || strings.Count(string(v), "<c:Name") == 2
	}
	if !removed || !added {
		t.Errorf("a path inside a larger test: taken away %v, made %v", removed, added)
	}
	if v := Exercise(doc, "/ubl:Invoice/cbc:ID", "@schemeID", ns); len(v) == 1 && strings.Contains(string(v[0]), "schemeID") {
		t.Errorf("@schemeID not removed:\n%s", v[0])
	}
}
