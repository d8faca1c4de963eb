package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The bench's invoices pass validation, with and without their visual PDF, and carry the number
// placeholder once.
func TestBenchInvoiceIsValid(t *testing.T) {
	for _, withPDF := range []bool{false, true} {
		xml, err := benchInvoice("508025338", "500000000", 2, withPDF)
		if err != nil {
			t.Fatal(withPDF, err)
		}
		if n := bytes.Count(xml, []byte(benchNumber)); n != 1 {
			t.Errorf("withPDF %v: the number placeholder occurs %d times", withPDF, n)
		}
	}
}

// The bench against the real binary: signed and unsigned creations, the reads, the server's CPU time,
// and the advice when the server's rate limit stops it.
func TestBenchAgainstTheDemo(t *testing.T) {
	data := t.TempDir()
	p, creds := startDemo(t, data)
	pid := p.cmd.Process.Pid

	var out, errOut bytes.Buffer
	if code := benchCmd([]string{"--data", data, "--documents", "2", "--clients", "2", "--sign", "--reads", "2"}, &out, &errOut); code != 0 {
		t.Fatalf("signed bench: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	c := client{t, creds.APIBase}
	as := map[string]string{"Authorization": "Bearer " + c.token(creds, "benchcheck"), "entity": creds.Entities[0].PublicKey}
	// The last document created (the first warms up): the service signed the XML and the embedded PDF.
	recipient := map[string]string{"Authorization": as["Authorization"], "entity": creds.Entities[1].PublicKey}
	status, list := c.call("GET", "/apps/documents?rows=1", recipient, "")
	page, _ := list["response"].(map[string]any)
	items, _ := page["data"].([]any)
	if status != 200 || len(items) != 1 {
		t.Fatalf("received list: %d %v", status, list)
	}
	id, _ := items[0].(map[string]any)["id"].(string)
	if status, _ := c.call("GET", "/apps/documents/"+id, as, ""); status != 200 {
		t.Fatalf("document %s: %d", id, status)
	}
	xml := c.raw("/apps/documents/"+id+"/xml", as)
	pdf := c.raw("/apps/documents/"+id+"/pdf", as)
	if !strings.Contains(xml, "SignatureValue") || !strings.Contains(pdf, "/ByteRange") {
		t.Errorf("not signed: XML signature %v, PDF signature %v", strings.Contains(xml, "SignatureValue"), strings.Contains(pdf, "/ByteRange"))
	}

	out.Reset()
	if code := benchCmd([]string{"--data", data, "--documents", "5", "--clients", "2", "--reads", "2", "--pid", strconv.Itoa(pid)}, &out, &errOut); code != 0 {
		t.Fatalf("bench: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{
		`5 documents in [0-9.]+ s: [0-9]+ documents/s`, `latency p50 [0-9.]+ ms  p95 [0-9.]+ ms  p99 [0-9.]+ ms`,
		`server CPU [0-9.]+ ms per document`, `GET /apps/documents/\{id\} +p50 [0-9.]+ ms`,
		`GET /apps/states-report/documents \(pages 1-100\) +p50`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// Several API addresses take the creations in turn; --db-pid counts a process tree apart (here this
	// test's own, whose child is the server).
	out.Reset()
	if code := benchCmd([]string{"--data", data, "--api", creds.APIBase + "," + creds.APIBase, "--documents", "4", "--reads", "0",
		"--pid", strconv.Itoa(pid), "--db-pid", strconv.Itoa(os.Getpid())}, &out, &errOut); code != 0 {
		t.Fatalf("bench on two addresses: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{`on 2 server processes`, `server CPU [0-9.]+ ms per document`, `database CPU [0-9.]+ ms per document`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if own, _ := processCPU(os.Getpid()); own == 0 {
		t.Error("this process has used no CPU time, says processCPU")
	} else if tree, _ := treeCPU(os.Getpid()); tree < own {
		t.Errorf("the tree's CPU %s is less than its root's %s", tree, own)
	}

	out.Reset()
	if code := benchCmd([]string{"--data", data, "--documents", "0", "--reads", "3"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "GET /apps/documents?number=") {
		t.Fatalf("reads only: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	// The demo keeps the default limit of 200 requests a minute.
	cfg := benchConfig{documents: 250, clients: 4, lines: 2}
	if err := cfg.complete("", data); err != nil {
		t.Fatal(err)
	}
	if err := runBench(context.Background(), cfg, &out); !errors.Is(err, errRateLimited) {
		t.Fatalf("rate limited: %v", err)
	}
}

// raw reads a file the API serves.
func (c client) raw(path string, header map[string]string) string {
	c.t.Helper()
	status, body := c.send("GET", path, header, "")
	if status != 200 {
		c.t.Fatalf("%s: %d %s", path, status, body)
	}
	return string(body)
}
