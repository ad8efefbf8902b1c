package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestJudgeEvidence(t *testing.T) {
	zero, two := 0, 2
	cases := []struct {
		name   string
		ev     protocol.Evidence
		stdout string
		exit   int
		pass   bool
		detail string
	}{
		{"equals", protocol.Evidence{Expected: "active"}, "active\n", 0, true, ""},
		{"equals fails", protocol.Evidence{Expected: "active"}, "inactive\n", 3, false, "observed inactive, expected active"},
		{"contains", protocol.Evidence{Expected: "Ready", Match: protocol.MatchContains}, "node w1 Ready", 0, true, ""},
		{"regex", protocol.Evidence{Expected: `^v1\.3[0-9]\.`, Match: protocol.MatchRegex}, "v1.31.2", 0, true, ""},
		{"regex fails", protocol.Evidence{Expected: `^v1\.3[0-9]\.`, Match: protocol.MatchRegex}, "v1.29.0", 0, false, "expected a match"},
		{"json", protocol.Evidence{Expected: "True", Match: protocol.MatchJSON, JSONPath: "items.0.status.conditions.1.status"},
			`{"items":[{"status":{"conditions":[{"status":"False"},{"status":"True"}]}}]}`, 0, true, ""},
		{"json number", protocol.Evidence{Expected: "3", Match: protocol.MatchJSON, JSONPath: "count"}, `{"count":3}`, 0, true, ""},
		{"json missing key", protocol.Evidence{Expected: "x", Match: protocol.MatchJSON, JSONPath: "a.b"}, `{"a":{}}`, 0, false, `key "b" not found`},
		{"exit code only", protocol.Evidence{}, "", 0, true, ""},
		{"exit code default fails", protocol.Evidence{}, "", 1, false, "exit code 1, expected 0"},
		{"expected exit code", protocol.Evidence{ExpectedExitCode: &two}, "", 2, true, ""},
		{"exit and output", protocol.Evidence{Expected: "ok", ExpectedExitCode: &zero}, "ok", 1, false, "exit code 1, expected 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.ev.ID = "e"
			r := judge(tc.ev, "h", []byte(tc.stdout), nil, tc.exit, time.Unix(0, 0))
			if r.Passed != tc.pass || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("got: passed=%v detail=%q want: passed=%v detail containing %q", r.Passed, r.Detail, tc.pass, tc.detail)
			}
		})
	}
}

func TestExitCodeEvidenceRecordsObservedExit(t *testing.T) {
	zero, two := 0, 2
	cases := []struct {
		name     string
		ev       protocol.Evidence
		stdout   string
		exit     int
		observed string
	}{
		{"default exit passes", protocol.Evidence{}, "", 0, "exit code 0"},
		{"default exit fails", protocol.Evidence{}, "", 1, "exit code 1"},
		{"expected exit code", protocol.Evidence{ExpectedExitCode: &two}, "", 2, "exit code 2"},
		{"expected exit code missed", protocol.Evidence{ExpectedExitCode: &zero}, "", 127, "exit code 127"},
		{"with output", protocol.Evidence{ExpectedExitCode: &zero}, "first\nlast\n", 0, "exit code 0; stdout: last"},
		{"output evidence keeps stdout", protocol.Evidence{Expected: "ok", ExpectedExitCode: &zero}, "ok\n", 0, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.ev.ID = "e"
			r := judge(tc.ev, "h", []byte(tc.stdout), nil, tc.exit, time.Unix(0, 0))
			if r.Observed != tc.observed || r.ExitCode != tc.exit {
				t.Errorf("got: observed=%q exit=%d want: observed=%q exit=%d", r.Observed, r.ExitCode, tc.observed, tc.exit)
			}
		})
	}
}

func TestParseBatchRejectsTruncatedOutput(t *testing.T) {
	items := []batchItem{{kind: "ev", cmd: "x"}, {kind: "art", file: "/f"}}
	if _, err := parseBatch([]byte("@cp ev 0 0\n|ok\n"), items); err == nil || !strings.Contains(err.Error(), "item 1 (art) missing") {
		t.Errorf("got: %v want: item 1 missing", err)
	}
	if _, err := parseBatch([]byte("@cp ev 0 0\n@cp art 1 0\n"), items); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("got: %v want: art cut short", err)
	}
	if _, err := parseBatch([]byte("@cp art 0 0\n=aGk=\n"), items); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("got: %v want: a frame that does not match its item", err)
	}
	// Lines outside frames (a login shell's chatter) are ignored; payload
	// lines keep leading spaces, '|' and '!' inside them.
	out, err := parseBatch([]byte("motd\n@cp ev 0 1\n|ok\n|  two | lines\n!err\n@cp art 1 0\n=aGk=\n"), items)
	if err != nil || string(out[0].stdout) != "ok\n  two | lines" || string(out[0].stderr) != "err" || out[0].code != 1 || string(out[1].stdout) != "hi" {
		t.Errorf("got: %+v %v", out, err)
	}
}

func TestPathSafe(t *testing.T) {
	for in, want := range map[string]string{"join-workers[worker-3]": "join-workers@worker-3", "a b/c": "a_b_c", "..": "_" + hashHex("..")[:12]} {
		if got := pathSafe(in); got != want {
			t.Errorf("pathSafe(%q) got: %q want: %q", in, got, want)
		}
	}
}
