package ubl

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"einvoice/ubl/rules"
	"einvoice/ubl/ubltest"
)

// implemented is the set of rule ids a rule set defines.
func implemented(s *rules.Set) map[string]bool {
	ids := map[string]bool{}
	for _, p := range s.Patterns {
		for _, r := range p.Rules {
			for _, a := range r.Asserts {
				ids[a.ID] = true
				for _, m := range a.Members {
					ids[m.ID] = true
				}
			}
		}
	}
	return ids
}

func filter(m map[string]int, keep map[string]bool) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if keep == nil || keep[k] {
			out[k] = v
		}
	}
	return out
}

// diff describes how two count maps differ ("" when equal).
func diff(want, got map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			parts = append(parts, fmt.Sprintf("%s official %d ours %d", k, want[k], got[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			parts = append(parts, fmt.Sprintf("%s official 0 ours %d", k, got[k]))
		}
	}
	return strings.Join(parts, "; ")
}

type outcome struct {
	file    string
	agree   bool
	detail  string
	partial string // disagreement on implemented ids only
}

// compare runs one profile's corpus and compares each file with the official result.
func compare(t *testing.T, p ubltest.Profile, profile Profile) []outcome {
	ids := implemented(ruleSets[profile])
	var out []outcome
	for _, e := range p.Expected {
		data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
		if err != nil {
			t.Fatal(err)
		}
		r := Validate(data, Auto, "en")
		o := outcome{file: e.File}
		var problems []string
		if r.XSDValid != e.XSDValid {
			problems = append(problems, fmt.Sprintf("xsd_valid official %v ours %v", e.XSDValid, r.XSDValid))
		}
		if (e.Error != "") != (r.NoVerdict != "") {
			problems = append(problems, fmt.Sprintf("no verdict: official %q ours %q", e.Error, r.NoVerdict))
		}
		full := append(append([]string{}, problems...), diffAll(e, r, nil)...)
		o.agree = len(full) == 0
		o.detail = strings.Join(full, "; ")
		if e.Error == "" {
			part := append(append([]string{}, problems...), diffAll(e, r, ids)...)
			o.partial = strings.Join(part, "; ")
		}
		out = append(out, o)
	}
	return out
}

func diffAll(e ubltest.Expected, r *Result, ids map[string]bool) []string {
	var out []string
	if d := diff(filter(e.Fatal, ids), filter(r.Fatal, ids)); d != "" {
		out = append(out, "fatal: "+d)
	}
	if d := diff(filter(e.Warning, ids), filter(r.Warning, ids)); d != "" {
		out = append(out, "warning: "+d)
	}
	return out
}

// TestConformance compares every corpus file with the official validators: same xsd_valid, same fatal
// ids with the same counts, same warning ids with the same counts, and no verdict where the official
// XSLT stops. It prints the agreement per folder and every disagreement, and fails when a profile agrees
// on fewer than 99.5% of its files, or when any rule id disagrees.
func TestConformance(t *testing.T) {
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	for _, p := range profiles {
		profile := Profile(p.Name)
		outcomes := compare(t, p, profile)
		byFolder := map[string][2]int{}
		failed := 0
		for _, o := range outcomes {
			folder := path.Dir(o.file)
			c := byFolder[folder]
			c[1]++
			if o.agree {
				c[0]++
			}
			byFolder[folder] = c
			if o.partial != "" {
				failed++
				if failed <= 25 {
					t.Errorf("%s/%s: %s", p.Name, o.file, o.partial)
				}
			}
		}
		if failed > 25 {
			t.Errorf("%s: %d files disagree on implemented rules", p.Name, failed)
		}
		folders := slices.Collect(maps.Keys(byFolder))
		sort.Strings(folders)
		total := [2]int{}
		for _, f := range folders {
			c := byFolder[f]
			total[0], total[1] = total[0]+c[0], total[1]+c[1]
			t.Logf("%s %-40s %4d/%4d agree", p.Name, f, c[0], c[1])
		}
		rate := float64(total[0]) / float64(total[1])
		t.Logf("%s: %d/%d files agree fully (%.1f%%); %d rule ids implemented", p.Name, total[0], total[1],
			100*rate, len(implemented(ruleSets[profile])))
		for _, o := range outcomes {
			if !o.agree {
				t.Logf("%s/%s: %s", p.Name, o.file, o.detail)
			}
		}
		if rate < 0.995 {
			t.Errorf("%s: agreement %.2f%% is below the 99.5%% bar", p.Name, 100*rate)
		}
	}
}

// Validations running side by side share the parsers, the trees' arrays, the evaluation contexts and
// the remembered paths and verdicts: each must still get exactly the result it gets alone.
func TestConcurrentValidationsAgreeWithSequential(t *testing.T) {
	profiles, err := ubltest.Profiles()
	if err != nil {
		t.Skip(err)
	}
	var docs [][]byte
	for _, p := range profiles {
		for _, e := range p.Expected {
			data, err := os.ReadFile(filepath.Join(p.Cases, e.File))
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, data)
		}
	}
	summary := func(r *Result) string {
		b, _ := json.Marshal(r)
		return string(b)
	}
	want := make([]string, len(docs))
	for i, d := range docs {
		want[i] = summary(Validate(d, Auto, "en"))
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(docs))
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(docs); i += 4 {
				if got := summary(Validate(docs[(i+w*37)%len(docs)], Auto, "en")); got != want[(i+w*37)%len(docs)] {
					errs <- fmt.Sprintf("document %d: %s\nalone: %s", (i+w*37)%len(docs), got, want[(i+w*37)%len(docs)])
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
