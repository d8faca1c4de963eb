package pdf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/ubl"
	"einvoice/ubl/ubltest"
)

// sample is a CIUS-PT invoice of the corpus, read into the model.
func sample(t testing.TB, name string) *ubl.Document {
	t.Helper()
	dir, err := ubltest.Dir()
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cases/cius-pt", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ubl.ReadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// manyLines repeats a document's first line n times (amounts completed), for multi-page tables.
func manyLines(t testing.TB, n int) *ubl.Document {
	d := sample(t, "ilink-samples/retencao.xml")
	line := d.Lines[0]
	d.Lines = nil
	for i := 0; i < n; i++ {
		l := line
		l.ID = fmt.Sprint(i + 1)
		l.Item.Name = fmt.Sprintf("Artigo de papelaria n.º %d com uma descrição longa que ocupa mais do que uma linha da tabela", i+1)
		d.Lines = append(d.Lines, l)
	}
	ubl.Complete(d)
	return d
}

func TestRenderIsAWellFormedPDFWithTheDocumentsText(t *testing.T) {
	pdftotext, qpdf := ubltest.Need(t, "pdftotext"), ubltest.Need(t, "qpdf")
	for name, d := range map[string]*ubl.Document{"one page": sample(t, "ilink-samples/isencao_linha.xml"), "many pages": manyLines(t, 120)} {
		for _, lang := range []string{"pt", "en"} {
			t.Run(name+"/"+lang, func(t *testing.T) {
				out, err := Render(d, Options{Lang: lang})
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(t.TempDir(), "r.pdf")
				os.WriteFile(file, out, 0o600)
				if msg, err := exec.Command(qpdf, "--check", file).CombinedOutput(); err != nil {
					t.Fatalf("qpdf --check: %v\n%s", err, msg)
				}
				text, err := exec.Command(pdftotext, "-layout", file, "-").Output()
				if err != nil {
					t.Fatal(err)
				}
				payable := labelsFor(lang).number(d.Totals.Payable.StringFixed(2))
				want := []string{d.Number, d.Buyer.Name, strings.TrimPrefix(d.Seller.VATID, "PT"), payable}
				if lang == "pt" {
					want = append(want, "Total a pagar", "Página 1/")
				} else {
					want = append(want, "Amount due", "Page 1/")
				}
				for _, w := range want {
					if !strings.Contains(string(text), w) {
						t.Errorf("the PDF lacks %q", w)
					}
				}
				if name == "many pages" && !strings.Contains(string(text), "120") {
					t.Error("the last line is missing")
				}
			})
		}
	}
}

func TestATQRCode(t *testing.T) {
	d := sample(t, "ilink-samples/isencao_linha.xml")
	q := ATQRCode(d)
	for _, want := range []string{"A:589309340*", "*B:500000379*", "*C:PT*", "*D:FT*", "*E:N*", "*F:" + strings.ReplaceAll(d.IssueDate, "-", "") + "*",
		"*G:" + d.Number + "*", "*I1:PT*", "*N:", "*O:", "*Q:0*R:0"} {
		if !strings.Contains(q, want) {
			t.Errorf("%s lacks %s", q, want)
		}
	}
	if !strings.Contains(q, "*I2:") {
		t.Errorf("exempt base missing: %s", q)
	}
}

func TestNumbersInBothLanguages(t *testing.T) {
	cases := map[string][2]string{"1234567.50": {"1 234 567,50", "1,234,567.50"}, "-12.00": {"-12,00", "-12.00"}, "999": {"999", "999"}}
	for in, want := range cases {
		if got := portuguese.number(in); got != want[0] {
			t.Errorf("pt %s: %s", in, got)
		}
		if got := english.number(in); got != want[1] {
			t.Errorf("en %s: %s", in, got)
		}
	}
}

func BenchmarkRenderOnePage(b *testing.B) {
	d := sample(b, "ilink-samples/isencao_linha.xml")
	for b.Loop() {
		if _, err := Render(d, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender500Lines(b *testing.B) {
	d := manyLines(b, 500)
	for b.Loop() {
		if _, err := Render(d, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
