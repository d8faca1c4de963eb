// Package oracle is an independent check of the rule engines on documents the corpus does not hold. It
// transcribes a rule inventory (../shared/conformance/rules/*.csv: every assert's context and XPath 2.0
// test, and every let) into an XSLT 2.0 stylesheet with the ISO Schematron skeleton's semantics, and runs
// it with Saxon-HE 9.9, the processor that produced the official results. The official results on the
// corpus check the transcription itself; the transcription then judges documents no official result
// exists for. Tests only: nothing in the product uses it.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"einvoice/ubl/ubltest"
)

// Profile is a rule inventory and what its XPath needs besides: the namespaces its prefixes stand for
// and any XSLT functions its tests call.
type Profile struct {
	Rules, Variables string            // paths of the inventory's two CSV files
	Namespaces       map[string]string // prefix → URI
	Functions        string            // XSLT declarations (xsl:function, xsl:key) the tests call
	// Rules without asserts, which the inventory cannot list but which keep an element from the
	// rules after them in their pattern (as an allowed element from a rule refusing any other).
	EmptyRules []EmptyRule
}

// EmptyRule is a rule without asserts: its pattern, its number there and its context.
type EmptyRule struct {
	Pattern string
	Number  int
	Context string
}

// Result is the verdict of the transcribed rules on one document.
type Result struct {
	Fatal, Warning map[string]int // firings by rule id
	Error          bool           // no verdict: the document did not parse or the XSLT stopped
}

type assertion struct {
	id, flag, kind, context, test, message string
	pattern                                string
	rule                                   int
}

type variable struct {
	scope, pattern string
	rule           int
	name, value    string
}

// Stylesheet is the inventory as XSLT: as the skeleton compiles Schematron, each pattern is a mode in
// which every element is matched by the first rule (highest priority) whose context fits, schema lets
// are global variables and rule lets are variables of their rule's template. A firing is written as a
// line "flag id"; the last line is "END", so that a transformation that stopped is told apart.
func Stylesheet(p Profile) ([]byte, error) { return stylesheet(p, false) }

// ReportStylesheet is Stylesheet writing what a Schematron validator writes: an SVRL report with every
// pattern, every rule that fired with its context, and every failed assert or successful report with
// its test, id, flag, message and the full path of the node it fired on (each step with its namespace
// and position), as the skeleton's SVRL output does. Run reads its reports as it reads the lines; it is
// what a side-by-side timing of the official validator's work should run.
func ReportStylesheet(p Profile) ([]byte, error) { return stylesheet(p, true) }

func stylesheet(p Profile, report bool) ([]byte, error) {
	asserts, err := readAssertions(p.Rules)
	if err != nil {
		return nil, err
	}
	vars, err := readVariables(p.Variables)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<xsl:stylesheet version="2.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"`)
	prefixes := make([]string, 0, len(p.Namespaces))
	for prefix := range p.Namespaces {
		prefixes = append(prefixes, prefix)
	}
	sort.Strings(prefixes)
	for _, prefix := range prefixes {
		fmt.Fprintf(&b, "\n  xmlns:%s=\"%s\"", prefix, attr(p.Namespaces[prefix]))
	}
	if report {
		b.WriteString("\n  xmlns:svrl=\"http://purl.oclc.org/dsdl/svrl\">\n<xsl:output method=\"xml\"/>\n")
		b.WriteString(fullPath)
	} else {
		b.WriteString(">\n<xsl:output method=\"text\"/>\n")
	}
	b.WriteString(p.Functions)
	for _, v := range vars {
		if v.scope == "schema" {
			fmt.Fprintf(&b, "<xsl:variable name=\"%s\" select=\"%s\"/>\n", v.name, attr(v.value))
		}
	}

	// Patterns in the order they first appear, rules in number order.
	var patterns []string
	rules := map[string][]int{}
	byRule := map[string][]assertion{}
	for _, a := range asserts {
		if _, seen := rules[a.pattern]; !seen {
			patterns = append(patterns, a.pattern)
		}
		key := a.pattern + "\x00" + strconv.Itoa(a.rule)
		if len(byRule[key]) == 0 {
			rules[a.pattern] = append(rules[a.pattern], a.rule)
		}
		byRule[key] = append(byRule[key], a)
	}
	for _, r := range p.EmptyRules {
		key := r.Pattern + "\x00" + strconv.Itoa(r.Number)
		if _, known := rules[r.Pattern]; !known || len(byRule[key]) > 0 {
			return nil, fmt.Errorf("empty rule %d of pattern %s: no such pattern, or the rule has asserts", r.Number, r.Pattern)
		}
		rules[r.Pattern] = append(rules[r.Pattern], r.Number)
		byRule[key] = []assertion{{context: r.Context, pattern: r.Pattern, rule: r.Number}}
	}
	b.WriteString("<xsl:template match=\"/\">\n")
	if report {
		b.WriteString("<svrl:schematron-output>\n")
	}
	for i, pattern := range patterns {
		if report {
			fmt.Fprintf(&b, "  <svrl:active-pattern name=\"%s\"/>\n", avt(pattern))
		}
		fmt.Fprintf(&b, "  <xsl:apply-templates select=\"/\" mode=\"M%d\"/>\n", i)
	}
	if report {
		b.WriteString("</svrl:schematron-output>\n</xsl:template>\n")
	} else {
		b.WriteString("  <xsl:text>END&#10;</xsl:text>\n</xsl:template>\n")
	}
	for i, pattern := range patterns {
		numbers := rules[pattern]
		sort.Ints(numbers)
		for k, n := range numbers {
			list := byRule[pattern+"\x00"+strconv.Itoa(n)]
			fmt.Fprintf(&b, "<xsl:template match=\"%s\" priority=\"%d\" mode=\"M%d\">\n", attr(list[0].context), 1000+len(numbers)-k, i)
			if report {
				fmt.Fprintf(&b, "  <svrl:fired-rule context=\"%s\"/>\n", avt(list[0].context))
			}
			for _, v := range vars {
				if v.scope == "rule" && v.pattern == pattern && v.rule == n {
					fmt.Fprintf(&b, "  <xsl:variable name=\"%s\" select=\"%s\"/>\n", v.name, attr(v.value))
				}
			}
			for _, a := range list {
				if a.id == "" { // an empty rule
					continue
				}
				test := "not(" + a.test + ")"
				if a.kind == "report" {
					test = a.test
				}
				if !report {
					fmt.Fprintf(&b, "  <xsl:if test=\"%s\"><xsl:text>%s %s&#10;</xsl:text></xsl:if>\n", attr(test), a.flag, a.id)
					continue
				}
				element := "svrl:failed-assert"
				if a.kind == "report" {
					element = "svrl:successful-report"
				}
				fmt.Fprintf(&b, "  <xsl:if test=\"%s\"><%s test=\"%s\" id=\"%s\" flag=\"%s\">"+
					"<xsl:attribute name=\"location\"><xsl:apply-templates select=\".\" mode=\"full-path\"/></xsl:attribute>"+
					"<svrl:text>%s</svrl:text></%s></xsl:if>\n",
					attr(test), element, avt(a.test), avt(a.id), avt(a.flag), text(a.message), element)
			}
			fmt.Fprintf(&b, "  <xsl:apply-templates select=\"*\" mode=\"M%d\"/>\n</xsl:template>\n", i)
		}
		fmt.Fprintf(&b, "<xsl:template match=\"text()\" priority=\"-1\" mode=\"M%d\"/>\n", i)
		fmt.Fprintf(&b, "<xsl:template match=\"@*|node()\" priority=\"-2\" mode=\"M%d\"><xsl:apply-templates select=\"*\" mode=\"M%d\"/></xsl:template>\n", i, i)
	}
	b.WriteString("</xsl:stylesheet>\n")
	return b.Bytes(), nil
}

// attr escapes s for an attribute value in double quotes.
func attr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// avt escapes s for an attribute of a literal result element, where braces are expressions.
func avt(s string) string { return strings.NewReplacer("{", "{{", "}", "}}").Replace(attr(s)) }

// text escapes s for character data.
func text(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// fullPath is the path of a node as the SVRL location: each element step with its namespace and its
// position among its siblings of that name, an attribute step with its name.
const fullPath = `<xsl:template match="*" mode="full-path">
  <xsl:apply-templates select="parent::*" mode="full-path"/>
  <xsl:text>/</xsl:text>
  <xsl:choose>
    <xsl:when test="namespace-uri() = ''"><xsl:value-of select="name()"/></xsl:when>
    <xsl:otherwise><xsl:value-of select="concat('*:', local-name(), '[namespace-uri()=''', namespace-uri(), ''']')"/></xsl:otherwise>
  </xsl:choose>
  <xsl:value-of select="concat('[', 1 + count(preceding-sibling::*[local-name() = local-name(current()) and namespace-uri() = namespace-uri(current())]), ']')"/>
</xsl:template>
<xsl:template match="@*" mode="full-path">
  <xsl:apply-templates select="parent::*" mode="full-path"/>
  <xsl:value-of select="concat('/@', name())"/>
</xsl:template>
<xsl:template match="/" mode="full-path"/>
`

func readCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	var rows []map[string]string
	for _, r := range records[1:] {
		row := map[string]string{}
		for i, name := range records[0] {
			row[name] = r[i]
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func readAssertions(path string) ([]assertion, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var out []assertion
	for _, r := range rows {
		n, err := strconv.Atoi(r["rule"])
		if err != nil {
			return nil, fmt.Errorf("%s: rule number %q", path, r["rule"])
		}
		out = append(out, assertion{id: r["id"], flag: r["flag"], kind: r["kind"], context: r["context"],
			test: r["test"], message: r["message"], pattern: r["pattern"], rule: n})
	}
	return out, nil
}

// Assert is one assert of an inventory as it is written there.
type Assert struct{ ID, Context, Test string }

// Asserts lists the profile's asserts in inventory order.
func (p Profile) Asserts() ([]Assert, error) {
	all, err := readAssertions(p.Rules)
	if err != nil {
		return nil, err
	}
	out := make([]Assert, len(all))
	for i, a := range all {
		out[i] = Assert{a.id, a.context, a.test}
	}
	return out, nil
}

func readVariables(path string) ([]variable, error) {
	rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var out []variable
	for _, r := range rows {
		n := 0
		if r["scope"] == "rule" {
			if n, err = strconv.Atoi(r["rule"]); err != nil {
				return nil, fmt.Errorf("%s: rule number %q", path, r["rule"])
			}
		}
		out = append(out, variable{scope: r["scope"], pattern: r["pattern"], rule: n, name: r["name"], value: r["value"]})
	}
	return out, nil
}

// Run transforms every document with the stylesheet in one Saxon run and returns each one's result, by
// the documents' names (which must be plain file names).
func Run(t testing.TB, stylesheet []byte, docs map[string][]byte) map[string]Result {
	t.Helper()
	java := ubltest.Need(t, "java")
	jar := saxonJar(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, d := range []string{in, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	xsl := filepath.Join(dir, "rules.xsl")
	if err := os.WriteFile(xsl, stylesheet, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range docs {
		if filepath.Base(name) != name {
			t.Fatalf("oracle: %q is not a plain file name", name)
		}
		if err := os.WriteFile(filepath.Join(in, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(java, "-cp", jar, "net.sf.saxon.Transform", "-xsl:"+xsl, "-s:"+in, "-o:"+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("saxon: %v", err)
	}
	// A document whose transformation failed has no output (or no END line); a failed stylesheet none.
	results := make(map[string]Result, len(docs))
	for name := range docs {
		results[name] = readResult(filepath.Join(out, name))
	}
	if len(docs) > 0 && allErrors(results) {
		t.Fatalf("saxon failed on every document: %s", stderr.String())
	}
	return results
}

func allErrors(results map[string]Result) bool {
	for _, r := range results {
		if !r.Error {
			return false
		}
	}
	return true
}

func readResult(path string) Result {
	data, err := os.ReadFile(path)
	r := Result{Fatal: map[string]int{}, Warning: map[string]int{}}
	if err != nil {
		r.Error = true
		return r
	}
	if bytes.HasPrefix(data, []byte("<?xml")) {
		return readReport(data)
	}
	ended := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "END" {
			ended = true
			continue
		}
		flag, id, _ := strings.Cut(line, " ")
		if flag == "warning" {
			r.Warning[id]++
		} else {
			r.Fatal[id]++
		}
	}
	if !ended {
		return Result{Fatal: map[string]int{}, Warning: map[string]int{}, Error: true}
	}
	return r
}

// firing is a failed assert or successful report of an SVRL report, with its id and flag.
var firing = regexp.MustCompile(`<svrl:(?:failed-assert|successful-report) [^>]*\bid="([^"]*)" flag="([^"]*)"`)

// readReport reads an SVRL report that ReportStylesheet's transformation wrote (complete or not).
func readReport(data []byte) Result {
	r := Result{Fatal: map[string]int{}, Warning: map[string]int{}}
	if !bytes.Contains(data, []byte("</svrl:schematron-output>")) {
		r.Error = true
		return r
	}
	for _, m := range firing.FindAllSubmatch(data, -1) {
		if string(m[2]) == "warning" {
			r.Warning[string(m[1])]++
		} else {
			r.Fatal[string(m[1])]++
		}
	}
	return r
}

// saxonJar is Saxon-HE's jar: $SAXON_JAR, or where Debian's libsaxonhe-java puts it.
func saxonJar(t testing.TB) string {
	t.Helper()
	jar := os.Getenv("SAXON_JAR")
	if jar == "" {
		jar = "/usr/share/java/Saxon-HE.jar"
	}
	if _, err := os.Stat(jar); err != nil {
		ubltest.Missing(t, "Saxon-HE is not installed (Debian libsaxonhe-java; .ci/run installs it)")
	}
	return jar
}
