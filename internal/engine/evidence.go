package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// judge evaluates one evidence check against a command's outcome.
func judge(ev protocol.Evidence, host string, stdout, stderr []byte, exit int, at time.Time) protocol.EvidenceResult {
	r := protocol.EvidenceResult{ID: ev.ID, Host: host, ExitCode: exit, CheckedAt: at}
	observed := strings.TrimSpace(string(stdout))
	r.Observed = observed
	var problems []string
	wantExit := -1
	if ev.ExpectedExitCode != nil {
		wantExit = *ev.ExpectedExitCode
	} else if ev.Expected == "" {
		wantExit = 0
	}
	if wantExit >= 0 && exit != wantExit {
		problems = append(problems, fmt.Sprintf("exit code %d, expected %d", exit, wantExit))
	}
	if ev.Expected == "" && ev.Match != protocol.MatchJSON {
		// Exit-code evidence compares no output: what it observed is the
		// exit code, so the result says which one it saw.
		r.Observed = observedExit(exit, observed)
	}
	if ev.Expected != "" || ev.Match == protocol.MatchJSON {
		got, ok, detail := matchOutput(ev, observed)
		if ev.Match == protocol.MatchJSON {
			r.Observed = got
		}
		if !ok {
			problems = append(problems, detail)
		}
	}
	r.Passed = len(problems) == 0
	if !r.Passed {
		r.Detail = strings.Join(problems, "; ")
		if msg := strings.TrimSpace(string(stderr)); msg != "" {
			r.Detail += "; stderr: " + lastLine(msg)
		}
	}
	return r
}

// observedExit renders what exit-code evidence observed: "exit code 0",
// followed by the last line of stdout when the command printed one.
func observedExit(exit int, stdout string) string {
	s := "exit code " + strconv.Itoa(exit)
	if stdout != "" {
		s += "; stdout: " + lastLine(stdout)
	}
	return s
}

// matchOutput compares stdout per the evidence's Match and returns the
// value compared (for JSON, the field), whether it matched and why not.
func matchOutput(ev protocol.Evidence, observed string) (string, bool, string) {
	switch ev.Match {
	case "", protocol.MatchEquals:
		if observed == strings.TrimSpace(ev.Expected) {
			return observed, true, ""
		}
		return observed, false, fmt.Sprintf("observed %s, expected %s", quoteIfNeeded(observed), quoteIfNeeded(ev.Expected))
	case protocol.MatchContains:
		if strings.Contains(observed, ev.Expected) {
			return observed, true, ""
		}
		return observed, false, fmt.Sprintf("observed %q, expected it to contain %q", abbreviate(observed), ev.Expected)
	case protocol.MatchRegex:
		re, err := regexp.Compile(ev.Expected)
		if err != nil {
			return observed, false, fmt.Sprintf("expected %q is not a valid regular expression: %v", ev.Expected, err)
		}
		if re.MatchString(observed) {
			return observed, true, ""
		}
		return observed, false, fmt.Sprintf("observed %q, expected a match of /%s/", abbreviate(observed), ev.Expected)
	case protocol.MatchJSON:
		got, err := jsonField(observed, ev.JSONPath)
		if err != nil {
			return "", false, err.Error()
		}
		if got == ev.Expected {
			return got, true, ""
		}
		return got, false, fmt.Sprintf("observed %s=%s, expected %s", ev.JSONPath, quoteIfNeeded(got), quoteIfNeeded(ev.Expected))
	}
	return observed, false, fmt.Sprintf("unknown match %q", ev.Match)
}

// jsonField returns the value at a dotted path (keys and array indexes,
// e.g. items.0.status) as text: strings bare, other values as JSON.
func jsonField(doc, dotted string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return "", fmt.Errorf("output is not JSON: %v", err)
	}
	for _, key := range strings.Split(dotted, ".") {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[key]
			if !ok {
				return "", fmt.Errorf("json path %s: key %q not found", dotted, key)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return "", fmt.Errorf("json path %s: %q is not an index of a list of %d", dotted, key, len(node))
			}
			v = node[i]
		default:
			return "", fmt.Errorf("json path %s: %q reaches into a scalar", dotted, key)
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("json path %s: %v", dotted, err)
	}
	return string(b), nil
}

// describeFailure renders a failed evidence for an error message:
// "evidence containerd_service_active failed: observed inactive, expected active".
func describeFailure(ev protocol.Evidence, r protocol.EvidenceResult) string {
	if r.Detail != "" && strings.HasPrefix(r.Detail, "observed") {
		return fmt.Sprintf("evidence %s failed: %s", r.ID, r.Detail)
	}
	if r.Detail != "" && ev.Expected != "" && r.Observed != "" {
		return fmt.Sprintf("evidence %s failed: observed %s, expected %s (%s)", r.ID, abbreviate(r.Observed), ev.Expected, r.Detail)
	}
	return fmt.Sprintf("evidence %s failed: %s", r.ID, r.Detail)
}

func abbreviate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return abbreviate(s)
}

// quoteIfNeeded leaves a plain word bare and quotes anything else, so
// messages read "observed inactive, expected active".
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\",;") {
		return strconv.Quote(abbreviate(s))
	}
	return s
}
