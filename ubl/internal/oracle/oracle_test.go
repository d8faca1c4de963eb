package oracle

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/ubl/ubltest"
)

// The transcription must give the official results on every corpus file before it may judge others.
func TestTranscriptionGivesTheOfficialResults(t *testing.T) {
	ubltest.Long(t)
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	dir, _ := ubltest.Dir()
	peppol, err := PeppolOrder(dir, "../../rules/peppol/t01-structure.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i, profile := range []Profile{CIUSPT(dir), peppol} {
		p := profiles[i]
		t.Run(p.Name, func(t *testing.T) { transcriptionAgrees(t, p, profile, Stylesheet) })
	}
}

// So must its SVRL form, which the side-by-side timing runs.
func TestReportGivesTheOfficialResults(t *testing.T) {
	ubltest.Long(t)
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	dir, _ := ubltest.Dir()
	t.Run(profiles[0].Name, func(t *testing.T) { transcriptionAgrees(t, profiles[0], CIUSPT(dir), ReportStylesheet) })
}

func transcriptionAgrees(t *testing.T, p ubltest.Profile, profile Profile, stylesheet func(Profile) ([]byte, error)) {
	xsl, err := stylesheet(profile)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for _, e := range p.Expected {
		data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
		if err != nil {
			t.Fatal(err)
		}
		docs[flat(e.File)] = data
	}
	results := Run(t, xsl, docs)
	agree := 0
	for _, e := range p.Expected {
		got := results[flat(e.File)]
		switch {
		case got.Error != (e.Error != ""):
			t.Errorf("%s: no verdict: got %v, official %v (%s)", e.File, got.Error, e.Error != "", e.Error)
		case !maps.Equal(got.Fatal, orEmpty(e.Fatal)) || !maps.Equal(got.Warning, orEmpty(e.Warning)):
			t.Errorf("%s:\n got fatal %v warning %v\nwant fatal %v warning %v", e.File, got.Fatal, got.Warning, e.Fatal, e.Warning)
		default:
			agree++
		}
	}
	t.Logf("%s: the transcription agrees with the official results on %d/%d files", p.Name, agree, len(p.Expected))
}

func flat(file string) string { return strings.ReplaceAll(file, "/", "~") }

func orEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// The side-by-side harness compiles, runs the schema and the rules on documents in one JVM, and reports
// every round it ran.
func TestTimeOfficialLike(t *testing.T) {
	ubltest.Long(t)
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	dir, _ := ubltest.Dir()
	schemas, _ := ubltest.SchemaDir()
	xsl, err := ReportStylesheet(CIUSPT(dir))
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for _, e := range profiles[0].Expected[:3] {
		data, err := os.ReadFile(filepath.Join(profiles[0].Cases, e.File))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	if d := TimeOfficialLike(t, xsl, filepath.Join(schemas, "maindoc", "UBL-Invoice-2.1.xsd"), docs, 2); d <= 0 {
		t.Errorf("%v per document", d)
	}
}
