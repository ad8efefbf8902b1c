package packs

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// evidenceOf reads the command and expectation of evidence id of a
// builtin job file (pack/jobs/<job>.yaml).
func evidenceOf(t *testing.T, file, id string) protocol.Evidence {
	t.Helper()
	var doc struct {
		Job struct {
			Outputs struct {
				Evidence []protocol.Evidence `yaml:"evidence"`
			} `yaml:"outputs"`
		} `yaml:"job"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join("builtin", file))), &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, ev := range doc.Job.Outputs.Evidence {
		if ev.ID == id {
			return ev
		}
	}
	t.Fatalf("%s has no evidence %q", file, id)
	return protocol.Evidence{}
}

// evidence runs evidence id of a builtin job the way the engine does (eval
// in POSIX sh, stdin from /dev/null) on the scratch host with its stubs,
// the host paths in rewrite moved under root, and reports whether it
// holds: the expected trimmed stdout, or the expected exit code.
func (h *scriptHost) evidence(file, id string, env map[string]string, rewrite ...string) (bool, string) {
	h.t.Helper()
	ev := evidenceOf(h.t, file, id)
	cmdText := ev.Command
	sort.Slice(rewrite, func(i, j int) bool { return len(rewrite[i]) > len(rewrite[j]) })
	for _, p := range rewrite {
		if !strings.Contains(cmdText, p) {
			h.t.Fatalf("%s evidence %s does not mention %s; the rewrite would not bite", file, id, p)
		}
		cmdText = strings.ReplaceAll(cmdText, p, h.root+p)
	}
	vars := map[string]string{
		"PATH": h.bin + ":/usr/local/bin:/usr/bin:/bin", "HOME": h.root, "LC_ALL": "C",
		"CP_TEST_CALLS": h.calls, "CP_TEST_STDIN": h.stdin, "CP_TEST_VALUES": h.values,
		protocol.EnvHost: "node-1", protocol.EnvHostAddress: "10.0.0.11", protocol.EnvHostRole: "worker",
		"CP_EVIDENCE": cmdText,
	}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `( eval "$CP_EVIDENCE" ) </dev/null`)
	cmd.Dir = h.root
	for _, k := range protocol.SortedKeys(vars) {
		cmd.Env = append(cmd.Env, k+"="+vars[k])
	}
	var out strings.Builder
	cmd.Stdout = &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		h.t.Fatalf("evidence %s: %v", id, err)
	}
	got := strings.TrimSpace(out.String())
	if ev.Expected != "" {
		switch ev.Match {
		case "", "equals":
			return got == ev.Expected, got
		case "regex":
			return regexp.MustCompile(ev.Expected).MatchString(got), got
		default:
			h.t.Fatalf("evidence %s: match %q not handled by this harness", id, ev.Match)
		}
	}
	want := 0
	if ev.ExpectedExitCode != nil {
		want = *ev.ExpectedExitCode
	}
	return code == want, got
}
