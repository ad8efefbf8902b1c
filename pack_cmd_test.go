package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/packs"
)

const (
	validDemo   = "internal/packs/testdata/valid/demo"
	invalidRoot = "internal/packs/testdata/invalid"
)

// TestMain lets a test run this binary as the provider's main, so the
// dispatch in main.go is exercised as a user runs it.
func TestMain(m *testing.M) {
	if os.Getenv("CP_PACK_CMD_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runPack(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func decode(t *testing.T, out string) packReport {
	t.Helper()
	var rep packReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not the report as JSON: %v\n%s", err, out)
	}
	return rep
}

// loaderProblems is what the provider's loader reports for dir.
func loaderProblems(t *testing.T, dir string) packs.Problems {
	t.Helper()
	_, err := packs.LoadDir(dir)
	var ps packs.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("loader on %s: got %v want Problems", dir, err)
	}
	return ps
}

func TestPackValidateValid(t *testing.T) {
	code, out, errOut := run(t, "validate", validDemo)
	if code != 0 || errOut != "" {
		t.Fatalf("got: exit %d stderr %q want: exit 0, no stderr", code, errOut)
	}
	if !strings.Contains(out, "ok  demo@1.0.0  "+validDemo+"  (1 templates: demo.install; 2 jobs)") ||
		!strings.HasSuffix(out, validDemo+": 1 pack(s), no problems\n") {
		t.Errorf("got:\n%s", out)
	}
	code, out, _ = run(t, "validate", "--json", validDemo)
	rep := decode(t, out)
	if code != 0 || !rep.Valid || len(rep.Problems) != 0 || len(rep.Packs) != 1 {
		t.Fatalf("got: exit %d %+v want: exit 0, valid, one pack", code, rep)
	}
	want := packSummary{ID: "demo", Version: "1.0.0", Source: validDemo, Templates: []string{"demo.install"}, Jobs: 2}
	if got := rep.Packs[0]; got.ID != want.ID || got.Version != want.Version || got.Source != want.Source ||
		strings.Join(got.Templates, ",") != "demo.install" || got.Jobs != want.Jobs {
		t.Errorf("got: %+v want: %+v", got, want)
	}
}

// Every broken pack of the loader's tests fails with exactly the problems
// the loader reports, in text and in JSON.
func TestPackValidateInvalidFixtures(t *testing.T) {
	entries, err := os.ReadDir(invalidRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 30 {
		t.Fatalf("got: %d fixtures under %s want: the loader's broken packs", len(entries), invalidRoot)
	}
	for _, e := range entries {
		dir := filepath.ToSlash(filepath.Join(invalidRoot, e.Name()))
		t.Run(e.Name(), func(t *testing.T) {
			want := loaderProblems(t, dir)
			code, out, _ := run(t, "validate", dir)
			if code != 1 {
				t.Fatalf("got: exit %d want: 1", code)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(want)+1 || lines[len(lines)-1] != dir+": "+strconv.Itoa(len(want))+" problem(s)" {
				t.Fatalf("got:\n%s\nwant %d problem lines and a count", out, len(want))
			}
			for i, p := range want {
				if lines[i] != p.String() {
					t.Errorf("line %d: got %q want %q", i, lines[i], p.String())
				}
			}
			code, out, _ = run(t, "validate", dir, "--json")
			rep := decode(t, out)
			if code != 1 || rep.Valid || len(rep.Packs) != 0 || len(rep.Problems) != len(want) || rep.Dir != dir {
				t.Fatalf("got: exit %d %+v want: exit 1 and %d problems", code, rep, len(want))
			}
			for i, p := range want {
				got := rep.Problems[i]
				if got.File != p.File || got.Line != p.Line || got.Field != p.Field || got.Message != p.Message {
					t.Errorf("problem %d: got %+v want %+v", i, got, p)
				}
			}
		})
	}
}

func TestPackValidateStageOrderFixture(t *testing.T) {
	dir := invalidRoot + "/stage-before-provider"
	code, out, _ := run(t, "validate", "--json", dir)
	rep := decode(t, out)
	if code != 1 || len(rep.Problems) == 0 {
		t.Fatalf("got: exit %d %+v want: the stage order reported", code, rep)
	}
	p := rep.Problems[0]
	if p.File != dir+"/templates/install.yaml" || p.Line != 8 || p.Field != "stages[0].jobs[0]" ||
		!strings.Contains(p.Message, `needs artifact demo.token from job "prepare", which is in the later stage "prepare"`) {
		t.Errorf("got: %+v", p)
	}
}

// A directory of packs reports every pack's problems in one run.
func TestPackValidateDirectoryOfPacks(t *testing.T) {
	want := loaderProblems(t, invalidRoot)
	code, out, _ := run(t, "validate", "--json", invalidRoot)
	rep := decode(t, out)
	if code != 1 || len(rep.Problems) != len(want) {
		t.Fatalf("got: exit %d, %d problems want: exit 1, %d problems", code, len(rep.Problems), len(want))
	}
}

// A user pack may not reuse a built-in id@version: the provider refuses
// it when merging pack_dirs, and so does the command.
func TestPackValidateBuiltinClash(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(validDemo)); err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(dir, "pack.yaml")
	data, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("  id: demo\n"), []byte("  id: tempo\n"), 1)
	if err := os.WriteFile(pack, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "validate", "--json", dir)
	rep := decode(t, out)
	if code != 1 || len(rep.Problems) != 1 || rep.Problems[0].File != dir ||
		!strings.Contains(rep.Problems[0].Message, "tempo@1.0.0") || !strings.Contains(rep.Problems[0].Message, "already in the catalog from builtin") {
		t.Fatalf("got: exit %d %+v want: the clash with builtin tempo@1.0.0", code, rep)
	}
}

func TestPackValidateMissingDir(t *testing.T) {
	code, out, _ := run(t, "validate", "--json", "does/not/exist")
	rep := decode(t, out)
	if code != 1 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "pass a pack directory") {
		t.Fatalf("got: exit %d %+v", code, rep)
	}
}

func TestPackUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"lint"}, {"validate"}, {"validate", "a", "b"}, {"validate", "--yaml", validDemo}} {
		code, out, errOut := run(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage: terraform-provider-cp pack validate [--json] DIR") {
			t.Errorf("%q: got: exit %d stdout %q stderr %q want: exit 2 and the usage on stderr", args, code, out, errOut)
		}
	}
	code, out, _ := run(t, "validate", "--help")
	if code != 0 || !strings.HasPrefix(out, "usage:") {
		t.Errorf("--help: got exit %d %q", code, out)
	}
}

// The provider binary dispatches "pack" before its plugin flags.
func TestMainDispatchesPack(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		code int
	}{{validDemo, 0}, {invalidRoot + "/stage-before-provider", 1}} {
		cmd := exec.Command(os.Args[0], "pack", "validate", "--json", tc.dir)
		cmd.Env = append(os.Environ(), "CP_PACK_CMD_RUN_MAIN=1")
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if rep := decode(t, string(out)); code != tc.code || rep.Valid != (tc.code == 0) {
			t.Errorf("%s: got: exit %d valid %v want: exit %d", tc.dir, code, rep.Valid, tc.code)
		}
	}
}
