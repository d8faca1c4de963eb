package server

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/api.md lists every code of the registry, with its status and both texts, in one table between
// two markers. `go test ./server -run TestAPIDocListsEveryCode -update-api-doc` rewrites that table
// from the registry.
var updateAPIDoc = flag.Bool("update-api-doc", false, "rewrite the code table of docs/api.md from the registry")

const (
	apiDocPath  = "../docs/api.md"
	codesBegin  = "<!-- codes: written by go test ./server -run TestAPIDocListsEveryCode -update-api-doc -->"
	codesFinish = "<!-- end of codes -->"
)

// codeTable is the registry as the Markdown table docs/api.md holds.
func codeTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| code | status | message (pt) | message (en) |\n|---|---|---|---|\n")
	for _, c := range Codes() {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", c.ID, c.Status, cell(c.Msg("pt")), cell(c.Msg("en")))
	}
	return b.String()
}

// splitRow returns the cells of a Markdown table row, honouring "\|" inside a cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func TestAPIDocListsEveryCode(t *testing.T) {
	raw, err := os.ReadFile(apiDocPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, codesBegin)
	table, after, ok2 := strings.Cut(rest, codesFinish)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q around the code table", apiDocPath, codesBegin, codesFinish)
	}
	if *updateAPIDoc {
		if err := os.WriteFile(apiDocPath, []byte(before+codesBegin+"\n"+codeTable()+codesFinish+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}

	listed := map[string][]string{} // code → status, pt, en
	for _, line := range strings.Split(table, "\n") {
		cells := splitRow(line)
		if len(cells) == 0 || !strings.HasPrefix(cells[0], "`") {
			continue // blank line, header or separator
		}
		id := strings.Trim(cells[0], "`")
		if len(cells) != 4 {
			t.Errorf("%s: the row of %s has %d cells, not 4", apiDocPath, id, len(cells))
			continue
		}
		if _, dup := listed[id]; dup {
			t.Errorf("%s lists %s twice", apiDocPath, id)
		}
		listed[id] = cells[1:]
	}
	for _, c := range Codes() {
		row, ok := listed[c.ID]
		if !ok {
			t.Errorf("%s lacks code %s", apiDocPath, c.ID)
			continue
		}
		if status, err := strconv.Atoi(row[0]); err != nil || status != c.Status {
			t.Errorf("%s gives %s status %q, the registry %d", apiDocPath, c.ID, row[0], c.Status)
		}
		if row[1] != c.Msg("pt") || row[2] != c.Msg("en") {
			t.Errorf("%s gives %s the texts %q / %q, the registry %q / %q", apiDocPath, c.ID, row[1], row[2], c.Msg("pt"), c.Msg("en"))
		}
	}
	for id := range listed {
		if registry[id] == nil {
			t.Errorf("%s lists code %s, which the registry lacks", apiDocPath, id)
		}
	}
	if t.Failed() {
		t.Log("go test ./server -run TestAPIDocListsEveryCode -update-api-doc rewrites the table from the registry")
	}
}
