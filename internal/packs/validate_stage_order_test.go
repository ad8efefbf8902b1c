package packs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// demoWithTemplate returns the valid demo pack with templates/install.yaml replaced.
func demoWithTemplate(t *testing.T, template string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	root := filepath.Join("testdata", "valid", "demo")
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fsys[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys["templates/install.yaml"] = &fstest.MapFile{Data: []byte(template)}
	return fsys
}

const stageOrderHead = "plan_template:\n  id: demo.install\n  action: install\n  title: Install demo\n  stages:\n"

func TestStageOrderFromContracts(t *testing.T) {
	cases := []struct {
		name   string
		stages string
		want   []string // problem lines after the pack prefix; none when empty
	}{
		{"provider first", "    - {id: prepare, title: Prepare, jobs: [prepare]}\n    - {id: apply, title: Apply, jobs: [apply]}\n", nil},
		{"one stage", "    - {id: all, title: All, jobs: [apply, prepare]}\n", nil},
		{"consumer first", "    - {id: apply, title: Apply, jobs: [apply]}\n    - {id: prepare, title: Prepare, jobs: [prepare]}\n", []string{
			`templates/install.yaml:6: stages[0].jobs[0]: job "apply" in stage "apply" needs artifact demo.token from job "prepare", which is in the later stage "prepare" (stages[1])`,
			`templates/install.yaml:6: stages[0].jobs[0]: job "apply" in stage "apply" needs capability demo.prepared from job "prepare", which is in the later stage "prepare" (stages[1])`,
			`templates/install.yaml:6: stages[0].jobs[0]: job "apply" in stage "apply" needs ordering (after) from job "prepare", which is in the later stage "prepare" (stages[1])`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(demoWithTemplate(t, stageOrderHead+tc.stages), "p")
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("got: %v want: the pack loads", err)
				}
				return
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got: %v want: Problems", err)
			}
			if len(ps) != len(tc.want) {
				t.Errorf("got: %d problems\n%v\nwant: %d", len(ps), err, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), "\n  p/"+w) {
					t.Errorf("got:\n%v\nwant a line starting: p/%s", err, w)
				}
			}
		})
	}
}

// An after entry alone orders stages too: without the contract edges, a
// job placed before the job it runs after is still reported.
func TestStageOrderFromAfter(t *testing.T) {
	fsys := demoWithTemplate(t, stageOrderHead+"    - {id: apply, title: Apply, jobs: [apply]}\n    - {id: prepare, title: Prepare, jobs: [prepare]}\n")
	apply := string(fsys["jobs/apply.yaml"].Data)
	for _, cut := range []string{"        - {key: demo.prepared, scope: node}\n", "        - {id: demo.token}\n"} {
		if !strings.Contains(apply, cut) {
			t.Fatalf("fixture changed: jobs/apply.yaml has no %q", cut)
		}
		apply = strings.Replace(apply, cut, "", 1)
	}
	apply = strings.Replace(apply, "    requires:\n      capabilities:\n      artifacts:\n", "    requires: {}\n", 1)
	fsys["jobs/apply.yaml"] = &fstest.MapFile{Data: []byte(apply)}
	_, err := Load(fsys, "p")
	if err == nil || !strings.Contains(err.Error(), `needs ordering (after) from job "prepare"`) || strings.Contains(err.Error(), "capability demo.prepared") {
		t.Fatalf("got: %v want: only the after edge reported", err)
	}
}
