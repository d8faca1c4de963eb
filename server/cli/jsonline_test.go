package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/ubl"
	"einvoice/ubl/ubltest"
)

// marshalledLine is the line as encoding/json writes it: the shape of expected/*.jsonl plus the
// profile, service findings and all findings.
func marshalledLine(t testing.TB, file string, r *ubl.Result) []byte {
	b, err := json.Marshal(struct {
		File string `json:"file"`
		*ubl.Result
	}{file, r})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkLine(t *testing.T, file string, r *ubl.Result) {
	t.Helper()
	if got, want := appendJSONLine(nil, file, r), marshalledLine(t, file, r); !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", file, got, want)
	}
}

func TestJSONLineIsWhatEncodingJSONWrites(t *testing.T) {
	awkward := []string{
		"", "plain", `quote " backslash \ slash /`, "<a href='x'>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"line\u2028para\u2029end", "invalid \xff\xfe utf-8 \xc3", "truncated \xe2\x80", "Não é válido: 10 €",
		"surrogate \xed\xa0\x80", "emoji 🧾", strings.Repeat("long ", 1000),
	}
	root := "Invoice"
	many := map[string]int{}
	for i := range 100 {
		many[fmt.Sprintf("R-%03d", 99-i)] = i
	}
	var findings []ubl.Finding
	for i, s := range awkward {
		findings = append(findings, ubl.Finding{Rule: s, Flag: "fatal", Location: "/Invoice[" + s + "]", Message: fmt.Sprint(i, s)})
	}
	cases := []*ubl.Result{
		{},
		{Profile: ubl.CIUSPT, Root: &root, XSDValid: true, Fatal: map[string]int{}, Warning: map[string]int{}},
		{Profile: ubl.Auto, Root: &awkward[3], XSDErrors: -3, Fatal: many, Warning: nil, NoVerdict: awkward[4],
			Service: map[string]int{ubl.RuleEncoding: 1, ubl.RuleBOM: 2}, Findings: findings},
		{Profile: ubl.Profile(awkward[6]), Service: map[string]int{}, Findings: []ubl.Finding{}},
	}
	for i, r := range cases {
		checkLine(t, awkward[i%len(awkward)], r)
	}
	for _, s := range awkward {
		checkLine(t, s, cases[1])
	}

	// Every file of the corpus, its messages in both languages.
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	files := 0
	err = filepath.WalkDir(filepath.Join(dir, "cases"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".xml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, lang := range []string{"pt", "en"} {
			checkLine(t, p, ubl.Validate(data, ubl.Auto, lang))
		}
		files++
		return nil
	})
	if err != nil || files < 1000 {
		t.Fatalf("walked %d corpus files: %v", files, err)
	}
}

func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "<&>", "\u2028\xff\x00", "ção"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
