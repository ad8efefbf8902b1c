package packs

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// demoWith is the valid demo pack with one job file's text replaced.
func demoWith(t *testing.T, file, old, new string) fs.FS {
	t.Helper()
	src := os.DirFS("testdata/valid/demo")
	m := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if p == file {
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s does not contain %q", file, old)
			}
			b = []byte(strings.Replace(string(b), old, new, 1))
		}
		m[p] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunOnAndRollingAfterLoad checks that scope.run_on and
// controls.rolling_after reach the job contract.
func TestRunOnAndRollingAfterLoad(t *testing.T) {
	fsys := demoWith(t, "jobs/prepare.yaml", "    expand: each_node\n", "    expand: each_node\n    run_on: first_master\n")
	fsys.(fstest.MapFS)["jobs/prepare.yaml"].Data = []byte(strings.Replace(string(fsys.(fstest.MapFS)["jobs/prepare.yaml"].Data),
		"    timeout: 2m\n", "    timeout: 2m\n    rolling_after: prepare\n", 1))
	p, err := Load(fsys, "demo")
	if err != nil {
		t.Fatal(err)
	}
	j := p.Jobs["prepare"]
	if j.Scope.RunOn != "first_master" || j.Controls.RollingAfter != "prepare" {
		t.Errorf("got: run_on %q rolling_after %q want: first_master, prepare", j.Scope.RunOn, j.Controls.RollingAfter)
	}
}

// TestRunOnAndRollingAfterRefused checks each refused use, with file, line
// and field.
func TestRunOnAndRollingAfterRefused(t *testing.T) {
	cases := []struct {
		name, file, old, new, want string
	}{
		{"unknown run_on", "jobs/prepare.yaml", "    expand: each_node\n", "    expand: each_node\n    run_on: any_master\n",
			`jobs/prepare.yaml:6: scope.run_on: scope.run_on "any_master" is not one of [first_master]`},
		{"run_on without effect", "jobs/apply.yaml", "    expand: once\n", "    expand: once\n    run_on: first_master\n",
			`jobs/apply.yaml:6: scope.run_on: scope.run_on first_master has no effect with scope.expand once`},
		{"rolling_after unknown job", "jobs/prepare.yaml", "    timeout: 2m\n", "    timeout: 2m\n    rolling_after: drain\n",
			`jobs/prepare.yaml:29: controls.rolling_after: rolling_after names job "drain", which is not in the job library`},
		{"rolling_after other expansion", "jobs/prepare.yaml", "    timeout: 2m\n", "    timeout: 2m\n    rolling_after: apply\n",
			`jobs/prepare.yaml:29: controls.rolling_after: rolling_after names job "apply", which expands once; it must expand like this job (each_node)`},
		{"rolling_after on one instance", "jobs/apply.yaml", "    timeout: 5m\n", "    timeout: 5m\n    rolling_after: apply\n",
			`jobs/apply.yaml:19: controls.rolling_after: rolling_after has no effect with scope.expand once`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(demoWith(t, tc.file, tc.old, tc.new), "demo")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got: %v want: Problems with %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v\nwant: a problem %q", err, tc.want)
			}
		})
	}
}
