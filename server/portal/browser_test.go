package portal

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPortalInABrowser walks the portal in headless Chromium (web/e2e/portal.mjs) against the real
// binary started with `serve --demo`. It runs when EINVOICE_BROWSER=1 (.ci/run sets it, after
// installing Debian's chromium and `npm ci --prefix web/e2e`); screenshots go to
// $EINVOICE_SCREENSHOTS or a temporary folder.
func TestPortalInABrowser(t *testing.T) {
	if os.Getenv("EINVOICE_BROWSER") != "1" {
		t.Skip("the browser walk runs with EINVOICE_BROWSER=1 (needs chromium, node and npm ci --prefix web/e2e)")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	for _, need := range []string{"/usr/bin/chromium", filepath.Join(root, "web", "e2e", "node_modules", "playwright-core")} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s is missing (.ci/run installs it)", need)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (.ci/run installs it)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "einvoice")
	if out, err := exec.Command("go", "build", "-o", bin, "einvoice").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "--demo", "--data", data, "--listen", "127.0.0.1:0")
	stderr, _ := serve.StderrPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); serve.Wait() }()
	portalURL := regexp.MustCompile(`portal:\s+(http://\S+)/portal/`)
	base := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := portalURL.FindStringSubmatch(sc.Text()); m != nil {
				base <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-base:
	case <-time.After(30 * time.Second):
		t.Fatal("serve --demo did not print the portal's address")
	}
	for i := 0; ; i++ {
		if resp, err := http.Get(url + "/healthz"); err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if i == 100 {
			t.Fatal("the server does not answer /healthz")
		}
		time.Sleep(100 * time.Millisecond)
	}
	shots := os.Getenv("EINVOICE_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(dir, "screenshots")
	}
	walk := exec.Command(node, filepath.Join(root, "web", "e2e", "portal.mjs"), url, filepath.Join(data, "demo-credentials.json"), shots)
	out, err := walk.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("the browser walk failed: %v", err)
	}
}
