package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestScriptsShellcheck runs shellcheck over every builtin pack script, at
// its default severity (style and up). Without shellcheck the test is
// skipped on a workstation and fails in CI (CI=true), which must install it.
func TestScriptsShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed; CI must install it (Debian/Ubuntu package shellcheck)")
		}
		t.Skip("shellcheck is not installed")
	}
	scripts, err := filepath.Glob("builtin/*/scripts/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) < 30 {
		t.Fatalf("found %d builtin scripts, want every one (at least 30): %v", len(scripts), scripts)
	}
	out, err := exec.Command(sc, append([]string{"--shell=bash", "--format=gcc", "--"}, scripts...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck reports (%v):\n%s", err, out)
	}
}
