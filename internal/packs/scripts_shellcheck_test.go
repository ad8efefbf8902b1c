package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellcheckPath finds shellcheck. Without it a test is skipped on a
// workstation and fails in CI (CI=true), which must install it.
func shellcheckPath(t *testing.T) string {
	t.Helper()
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed; CI must install it (Debian/Ubuntu package shellcheck)")
		}
		t.Skip("shellcheck is not installed")
	}
	return sc
}

// TestScriptsShellcheck runs shellcheck over every builtin pack script, at
// its default severity (style and up).
func TestScriptsShellcheck(t *testing.T) {
	sc := shellcheckPath(t)
	scripts, err := filepath.Glob("builtin/*/scripts/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) < 30 {
		t.Fatalf("found %d builtin scripts, want every one (at least 30): %v", len(scripts), scripts)
	}
	out, err := exec.Command(sc, append([]string{"-x", "--source-path=SCRIPTDIR", "--shell=bash", "--format=gcc", "--"}, scripts...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck reports (%v):\n%s", err, out)
	}
}

// TestEvidenceShellcheck runs shellcheck, as POSIX sh (the engine evals
// evidence in /bin/sh), over every evidence command of the builtin packs,
// at its default severity. Each command is one file named after its pack,
// job and evidence id, so a finding names where to fix it.
func TestEvidenceShellcheck(t *testing.T) {
	sc := shellcheckPath(t)
	cat, err := LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, p := range cat.List() {
		for id, j := range p.Jobs {
			for _, ev := range j.Outputs.Evidence {
				f := filepath.Join(dir, p.ID+"."+id+"."+ev.ID+".sh")
				if err := os.WriteFile(f, []byte(ev.Command+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
		}
	}
	// The check catches bash in evidence: [[ ]] is not POSIX sh.
	bash := filepath.Join(dir, "bash-only.sh")
	if err := os.WriteFile(bash, []byte(`[[ "$CP_HOST" == master-1 ]]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sc, "--shell=sh", "--format=gcc", "--", bash).CombinedOutput(); err == nil || !strings.Contains(string(out), "SC3010") {
		t.Fatalf("shellcheck -s sh passed a [[ ]] test (%v): %s", err, out)
	}
	if len(files) < 80 {
		t.Fatalf("found %d evidence commands, want every one (at least 80)", len(files))
	}
	out, err := exec.Command(sc, append([]string{"--shell=sh", "--format=gcc", "--"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck -s sh reports on evidence commands (%v):\n%s", err, strings.ReplaceAll(string(out), dir+"/", ""))
	}
}
