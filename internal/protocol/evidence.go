package protocol

import (
	"fmt"
	"regexp"
	"time"
)

// Match says how an evidence check compares its observed stdout.
type Match string

const (
	// MatchEquals compares trimmed stdout with Expected.
	MatchEquals Match = "equals"
	// MatchContains looks for Expected inside stdout.
	MatchContains Match = "contains"
	// MatchRegex matches stdout against the regular expression Expected.
	MatchRegex Match = "regex"
	// MatchJSON parses stdout as JSON and compares the value at JSONPath
	// (dot-separated keys and indexes, e.g. items.0.status) with Expected.
	MatchJSON Match = "json"
)

// Evidence is a check that proves a job's output exists, e.g.
// `systemctl is-active containerd` = active. A job succeeds only when all of
// its evidence holds.
type Evidence struct {
	ID      string `yaml:"id" json:"id"`
	Source  string `yaml:"source,omitempty" json:"source,omitempty"` // systemd, command, kubernetes, file...
	Command string `yaml:"command" json:"command"`
	// Expected is compared with stdout according to Match (equals when
	// Match is empty and Expected is set).
	Expected string `yaml:"expected,omitempty" json:"expected,omitempty"`
	Match    Match  `yaml:"match,omitempty" json:"match,omitempty"`
	JSONPath string `yaml:"json_path,omitempty" json:"json_path,omitempty"`
	// ExpectedExitCode is checked when set; when neither Expected nor
	// ExpectedExitCode is set, exit code 0 is expected.
	ExpectedExitCode *int `yaml:"expected_exit_code,omitempty" json:"expected_exit_code,omitempty"`
	Become           bool `yaml:"become,omitempty" json:"become,omitempty"`
}

// HasCheck reports whether the evidence says what it checks.
func (e Evidence) HasCheck() bool {
	return e.Command != "" && (e.Expected != "" || e.ExpectedExitCode != nil || e.Match == "")
}

// Validate checks the evidence's own shape.
func (e Evidence) Validate() error {
	if e.ID == "" {
		return fmt.Errorf("evidence: id is empty")
	}
	if e.Command == "" {
		return fmt.Errorf("evidence %q: no check: set command (and expected or expected_exit_code)", e.ID)
	}
	switch e.Match {
	case "", MatchEquals, MatchContains:
	case MatchRegex:
		if _, err := regexp.Compile(e.Expected); err != nil {
			return fmt.Errorf("evidence %q: expected is not a valid regular expression: %w", e.ID, err)
		}
	case MatchJSON:
		if e.JSONPath == "" {
			return fmt.Errorf("evidence %q: match json needs json_path", e.ID)
		}
	default:
		return fmt.Errorf("evidence %q: match %q is not one of equals, contains, regex, json", e.ID, e.Match)
	}
	if e.Match != "" && e.Match != MatchEquals && e.Expected == "" {
		return fmt.Errorf("evidence %q: match %s needs expected", e.ID, e.Match)
	}
	return nil
}

// EvidenceResult records one evaluation of an evidence check.
type EvidenceResult struct {
	ID        string    `json:"id"`
	Host      string    `json:"host,omitempty"`
	Passed    bool      `json:"passed"`
	Observed  string    `json:"observed"`
	ExitCode  int       `json:"exit_code"`
	CheckedAt time.Time `json:"checked_at"`
	Detail    string    `json:"detail,omitempty"`
}
