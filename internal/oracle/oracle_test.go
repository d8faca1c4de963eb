package oracle

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"einvoice/internal/corpus"
)

// The transcription must give the official results on every corpus file before it may judge others.
func TestTranscriptionGivesTheOfficialResults(t *testing.T) {
	profiles, err := corpus.Profiles()
	if err != nil {
		t.Skip(err)
	}
	dir, _ := corpus.Dir()
	peppol, err := PeppolOrder(dir, "../../ubl/rules/peppol/t01-structure.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i, profile := range []Profile{CIUSPT(dir), peppol} {
		p := profiles[i]
		t.Run(p.Name, func(t *testing.T) { transcriptionAgrees(t, p, profile) })
	}
}

func transcriptionAgrees(t *testing.T, p corpus.Profile, profile Profile) {
	xsl, err := Stylesheet(profile)
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
