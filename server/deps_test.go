package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The dependency direction is main → server → leaves. A leaf (with its sub-packages and tests) never
// depends on the server or Echo, and each knows nothing of what its row in the design's layout table
// says it does not know.
var leafRules = map[string][]string{
	"store":   {"einvoice/ubl", "einvoice/signing", "einvoice/mailer", "einvoice/web", "net/http"},
	"ubl":     {"einvoice/store", "net/http"},
	"signing": {"einvoice/store", "net/http"},
	"mailer":  {"einvoice/store", "net/http"},
	"web":     {"einvoice/store"},
}

// forbiddenForEveryLeaf is what no leaf may depend on.
var forbiddenForEveryLeaf = []string{"einvoice/server", "github.com/labstack/echo"}

// forbiddenDeps lists the dependencies of a leaf that its rules forbid. A rule names a package path
// and everything under it.
func forbiddenDeps(leaf string, deps []string) []string {
	var out []string
	for _, dep := range deps {
		for _, rule := range append(slices.Clone(forbiddenForEveryLeaf), leafRules[leaf]...) {
			if dep == rule || strings.HasPrefix(dep, rule+"/") {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}

func TestForbiddenDepsFindsViolations(t *testing.T) {
	deps := []string{"einvoice/store/internal", "einvoice/ubl/pdf", "github.com/labstack/echo/v4", "einvoice/serverless", "net/http/httptest", "fmt"}
	if got, want := forbiddenDeps("store", deps), []string{"einvoice/ubl/pdf", "github.com/labstack/echo/v4", "net/http/httptest"}; !slices.Equal(got, want) {
		t.Fatalf("store: %v, want %v", got, want)
	}
	if got := forbiddenDeps("web", []string{"net/http", "einvoice/ubl"}); len(got) != 0 {
		t.Fatalf("web: %v", got)
	}
	if got := forbiddenDeps("signing", []string{"einvoice/server/cli"}); !slices.Equal(got, []string{"einvoice/server/cli"}) {
		t.Fatalf("signing: %v", got)
	}
}

func TestLeavesDependOnlyDownward(t *testing.T) {
	goTool, err := exec.LookPath("go") // go test puts its own go first in PATH
	if err != nil {
		t.Fatal("the go command is needed to list the packages' dependencies")
	}
	checked := 0
	for leaf := range leafRules {
		if _, err := os.Stat(filepath.Join("..", leaf)); os.IsNotExist(err) {
			continue // web arrives with the portal
		}
		cmd := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./"+leaf+"/...")
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list ./%s/...: %v", leaf, err)
		}
		var deps []string
		for _, line := range strings.Fields(string(out)) {
			if !strings.HasPrefix(line, "[") { // test variants print as "path [path.test]"
				deps = append(deps, line)
			}
		}
		if bad := forbiddenDeps(leaf, deps); len(bad) > 0 {
			t.Errorf("%s depends on %v", leaf, bad)
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("only %d leaves found", checked)
	}
}
