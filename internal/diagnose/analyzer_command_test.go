package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// analyzerScript writes a shell script that saves its stdin to $1 and then,
// by $2: sleeps, fails with a message on stderr, or prints the file $2.
func analyzerScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cp-analyzer")
	script := `#!/bin/sh
cat > "$1"
case "$2" in
  sleep) exec sleep 10 ;;
  fail) echo "model quota exceeded for $USER" >&2; exit 3 ;;
  *) cat "$2" ;;
esac
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommandAnalyzer(t *testing.T) {
	script := analyzerScript(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	valid := write("valid.json", answer(t, modelDiagnosis(), ptr(seedPatch())))
	cases := []struct {
		name     string
		mode     string // second argument of the script
		timeout  time.Duration
		source   string // diagnosis source of the result
		warning  string // substring of a warning
		rejected string // substring of the rejection reason
	}{
		{name: "valid answer", mode: valid, source: "analyzer:cp-analyzer"},
		{name: "non-zero exit", mode: "fail", source: "diagnose:rule/image-pull", warning: "exited with code 3: model quota exceeded", rejected: "exited with code 3"},
		{name: "timeout", mode: "sleep", timeout: 300 * time.Millisecond, source: "diagnose:rule/image-pull", warning: "did not answer within 300ms", rejected: "did not answer"},
		{name: "invalid JSON", mode: write("prose.txt", "The registry is down, add a mirror."), source: "diagnose:rule/image-pull",
			warning: "invalid analyzer answer", rejected: "not a JSON object"},
		{name: "cyclic patch", mode: write("cycle.json", answer(t, modelDiagnosis(), ptr(cyclicPatch()))), source: "diagnose:rule/image-pull",
			warning: "proposed a patch the reviewer rejected", rejected: "cycle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := createFixture(t, map[string]string{"registry_mirrors": "https://mirror.example.internal"})
			stdin := filepath.Join(t.TempDir(), "stdin.json")
			a := CommandAnalyzer{Path: script, Args: []string{stdin, tc.mode}, Timeout: tc.timeout}
			start := time.Now()
			res := Diagnose(context.Background(), leakyFailure(t, fx), Options{
				Analyzers: []Analyzer{a}, Review: fx.review, Redactor: testRedactor()})
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("Diagnose took %s; the analyzer's timeout should have cut it short", took)
			}
			sent, err := os.ReadFile(stdin)
			if err != nil {
				t.Fatalf("the analyzer got no stdin: %v", err)
			}
			assertNoSecret(t, "analyzer stdin", sent)
			if res.Diagnosis.Source != tc.source || res.Patch == nil {
				t.Fatalf("got: source %q patch %v want: source %q and a patch (warnings %q)", res.Diagnosis.Source, res.Patch, tc.source, res.Warnings)
			}
			checkFallback(t, res, "analyzer:cp-analyzer", tc.warning, tc.rejected)
			if tc.warning == "" {
				p := res.Patch
				if p.Author != "analyzer:cp-analyzer" || !p.Approval.Required || p.Approval.ApprovedBy != "" {
					t.Errorf("patch got author %q approval %+v want: analyzer:cp-analyzer, required, unapproved", p.Author, p.Approval)
				}
				if res.Diagnosis.Risk != RiskMedium || len(res.Diagnosis.Evidence) != 1 {
					t.Errorf("diagnosis got: %+v want: risk medium (normalised) and its one quote", res.Diagnosis)
				}
			}
		})
	}
}

// checkFallback checks the warnings and rejections of a result: none when
// warning is empty, else a warning and a rejection by source.
func checkFallback(t *testing.T, res Result, source, warning, rejected string) {
	t.Helper()
	if warning == "" {
		if len(res.Warnings) > 0 || len(res.Rejected) > 0 {
			t.Errorf("got warnings %q rejections %+v want: none", res.Warnings, res.Rejected)
		}
		return
	}
	if !containsSub(res.Warnings, warning) {
		t.Errorf("warnings got: %q want one containing %q", res.Warnings, warning)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].Source != source || !strings.Contains(res.Rejected[0].Reason, rejected) {
		t.Errorf("rejected got: %+v want: one by %s containing %q", res.Rejected, source, rejected)
	}
	if res.Patch.Author != "diagnose:rule/image-pull" {
		t.Errorf("fallback patch author got: %q want: diagnose:rule/image-pull", res.Patch.Author)
	}
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func ptr(p protocol.PlanPatch) *protocol.PlanPatch { return &p }
