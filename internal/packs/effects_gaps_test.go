package packs

import (
	"strings"
	"testing"
	"testing/fstest"
)

// type: verification lets a job run its evidence alone, without a
// script; any other job without a script is refused on script.
func TestVerificationJobNeedsNoScript(t *testing.T) {
	load := func(jobType string) error {
		fsys := demoWithTemplate(t, string(readDemo(t, "templates/install.yaml")))
		apply := strings.Replace(string(fsys["jobs/apply.yaml"].Data), "  script: scripts/apply.sh\n", jobType, 1)
		fsys["jobs/apply.yaml"] = &fstest.MapFile{Data: []byte(apply)}
		_, err := Load(fsys, "p")
		return err
	}
	if err := load("  type: verification\n"); err != nil {
		t.Fatalf("got: %v want: a verification job without a script loads", err)
	}
	err := load("")
	if err == nil || !strings.Contains(err.Error(), "script: no script") {
		t.Fatalf("got: %v want: the job without a script refused on script", err)
	}
}

func readDemo(t *testing.T, name string) []byte {
	t.Helper()
	return []byte(readFile(t, "testdata/valid/demo/"+name))
}
