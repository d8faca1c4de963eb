package ubl

import (
	"fmt"
	"maps"
	"testing"

	"einvoice/ubl/rules"
)

// The counts by rule id are the plain counts, also when an assert comes back after more than the
// tallies look at, and when two asserts share an id.
func TestCountByRuleCountsEveryFinding(t *testing.T) {
	var asserts []*rules.Assert
	for i := range 100 {
		flag := rules.Fatal
		if i%3 == 0 {
			flag = rules.Warning
		}
		asserts = append(asserts, &rules.Assert{ID: fmt.Sprintf("R-%d", i%90), Flag: flag})
	}
	var findings []rules.Finding
	for round := range 3 {
		for i, a := range asserts {
			for range 1 + (i+round)%4 {
				findings = append(findings, rules.Finding{Assert: a})
			}
		}
	}
	wantFatal, wantWarning := map[string]int{}, map[string]int{}
	for _, f := range findings {
		if f.Assert.Flag == rules.Warning {
			wantWarning[f.Assert.ID]++
		} else {
			wantFatal[f.Assert.ID]++
		}
	}
	fatal, warning := countByRule(findings)
	if !maps.Equal(fatal, wantFatal) || !maps.Equal(warning, wantWarning) {
		t.Fatalf("fatal %v, warning %v; want %v, %v", fatal, warning, wantFatal, wantWarning)
	}
}
