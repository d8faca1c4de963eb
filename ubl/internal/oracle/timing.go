package oracle

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"einvoice/ubl/ubltest"
)

//go:embed OfficialLike.java
var officialLike []byte

// TimeOfficialLike times, in one warm JVM, what the official validator does with each document: the
// schema check with the JDK's validator (schema is the main schema file, "" for none) and the rules of
// stylesheet with Saxon-HE, writing its output to memory. It runs the documents rounds times and returns
// the median over the second half of the rounds (the JVM warm) of the mean time per document.
func TimeOfficialLike(t testing.TB, stylesheet []byte, schema string, docs [][]byte, rounds int) time.Duration {
	t.Helper()
	javac, java := ubltest.Need(t, "javac"), ubltest.Need(t, "java")
	jar := saxonJar(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "OfficialLike.java")
	xsl := filepath.Join(dir, "rules.xsl")
	for path, data := range map[string][]byte{src: officialLike, xsl: stylesheet} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(javac, "-cp", jar, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	if schema == "" {
		schema = "-"
	}
	args := []string{"-cp", jar + string(os.PathListSeparator) + dir, "OfficialLike", xsl, schema, strconv.Itoa(rounds)}
	for i, d := range docs {
		f := filepath.Join(dir, fmt.Sprintf("doc%04d.xml", i))
		if err := os.WriteFile(f, d, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	out, err := exec.Command(java, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var perDoc []time.Duration
	reported := false // the rules wrote something: a stylesheet that ran and wrote nothing times nothing
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "round":
			ns, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				t.Fatalf("java: %q", line)
			}
			perDoc = append(perDoc, time.Duration(ns))
		case len(f) == 2 && f[0] == "report-bytes":
			reported = f[1] != "0"
		}
	}
	if len(perDoc) != rounds || !reported {
		t.Fatalf("java: %d rounds reported, want %d, or no output from the rules:\n%s", len(perDoc), rounds, out)
	}
	warm := slices.Clone(perDoc[rounds/2:])
	slices.Sort(warm)
	return warm[len(warm)/2]
}
