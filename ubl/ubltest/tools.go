package ubltest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Long marks a long differential test (thousands of documents put to Saxon or xmllint, or the corpus
// many times over): it runs only when EINVOICE_CONFORMANCE=1, which .ci/run sets, and is skipped
// otherwise with a message saying how to run it.
func Long(t testing.TB) {
	t.Helper()
	if !Conformance() {
		t.Skip("a long differential test: it runs with EINVOICE_CONFORMANCE=1 (go test ./... with it set, as .ci/run does)")
	}
}

// Conformance reports whether the long differential tests run (EINVOICE_CONFORMANCE=1).
func Conformance() bool { return os.Getenv("EINVOICE_CONFORMANCE") == "1" }

// Need finds a tool the tests compare against on the PATH (see Missing).
func Need(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed (.ci/run installs it)")
	}
	return path
}

// Missing fails the test in CI (CI set) and skips it elsewhere, saying what is missing.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// SchemaValid validates files against schema with xmllint (no network) and returns, by path, the ones
// it accepts as the official results define it: xmllint says "validates" and prints no error for the
// file (a namespace error, say, leaves the document validated but not valid).
func SchemaValid(t testing.TB, schema string, files []string) map[string]bool {
	t.Helper()
	out, _ := exec.Command(Need(t, "xmllint"), append([]string{"--noout", "--nonet", "--schema", schema}, files...)...).CombinedOutput()
	valid, erred := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f, ok := strings.CutSuffix(line, " validates"); ok {
			valid[f] = true
		} else if m := errorLine.FindStringSubmatch(line); m != nil {
			erred[m[1]] = true
		}
	}
	for f := range erred {
		delete(valid, f)
	}
	return valid
}

var errorLine = regexp.MustCompile(`^(.+?):\d+: [^:]*error : `)
