// Package ubltest holds what the tests of UBL documents need, in ubl and in the packages that sign,
// send and serve them: the official conformance corpus in ../shared/conformance (test inputs and the
// official validators' results), the official schema verdict by xmllint, variants of documents made by
// small edits, the finding of the independent tools the tests compare against, and the switch of the
// long differential tests (EINVOICE_CONFORMANCE=1). Nothing in the product uses it.
package ubltest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// Expected is one line of expected/*.jsonl: the official validators' verdict on one file.
type Expected struct {
	File      string         `json:"file"`
	Root      *string        `json:"root"`
	XSDValid  bool           `json:"xsd_valid"`
	XSDErrors int            `json:"xsd_errors"`
	Fatal     map[string]int `json:"fatal"`
	Warning   map[string]int `json:"warning"`
	Error     string         `json:"error,omitempty"`
}

// Profile is one folder of cases with its expected results.
type Profile struct {
	Name     string // cius-pt, peppol-order
	Cases    string // folder of the XML files
	Expected []Expected
}

// ErrAbsent is returned when ../shared/conformance cannot be found.
var ErrAbsent = errors.New("../shared/conformance is absent: the conformance corpus is needed for this test")

// Dir finds shared/conformance beside the project by walking up from the working directory.
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		c := filepath.Join(dir, "..", "shared", "conformance")
		if st, err := os.Stat(filepath.Join(c, "expected")); err == nil && st.IsDir() {
			return filepath.Clean(c), nil
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return "", ErrAbsent
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrAbsent
		}
		dir = parent
	}
}

// Profiles loads both profiles' cases and expected results.
func Profiles() ([]Profile, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	var out []Profile
	for _, p := range []struct{ name, file string }{{"cius-pt", "cius-pt-2.1.2.jsonl"}, {"peppol-order", "peppol-order-t01.jsonl"}} {
		exp, err := readExpected(filepath.Join(dir, "expected", p.file))
		if err != nil {
			return nil, err
		}
		out = append(out, Profile{Name: p.name, Cases: filepath.Join(dir, "cases", p.name), Expected: exp})
	}
	return out, nil
}

func readExpected(path string) ([]Expected, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Expected
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e Expected
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// TypicalInvoices are the corpus's schema-valid CIUS-PT documents of 5 to 25 KB, the documents the
// speed target is set for; an error when the corpus is absent or holds none.
func TypicalInvoices() ([][]byte, error) {
	profiles, err := Profiles()
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, e := range profiles[0].Expected {
		if !e.XSDValid {
			continue
		}
		data, err := os.ReadFile(filepath.Join(profiles[0].Cases, e.File))
		if err != nil {
			return nil, err
		}
		if len(data) >= 5<<10 && len(data) <= 25<<10 {
			docs = append(docs, data)
		}
	}
	if len(docs) == 0 {
		return nil, errors.New("no typical invoice in the corpus")
	}
	return docs, nil
}

// SchemaDir is the folder of the official UBL 2.1 xsdrt schemas.
func SchemaDir() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "ubl-2.1", "xsdrt"), nil
}
