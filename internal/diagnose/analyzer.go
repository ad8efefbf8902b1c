package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Analyzer reads a failure and answers with a diagnosis and, optionally, a
// proposed patch (seed 001 §14 Analyzer, and Planner for analyzers that
// propose patches themselves).
type Analyzer interface {
	// Name identifies the analyzer in warnings and in patch authors
	// ("analyzer:<name>").
	Name() string
	Analyze(ctx context.Context, req Request) (Answer, error)
}

// Request is what an analyzer receives.
type Request struct {
	// Failure, already redacted.
	Failure Failure
	// JSON is Failure as it may leave the process: marshalled and
	// redacted once more (Failure.MarshalRedacted). External analyzers
	// send these bytes and nothing else derived from secrets.
	JSON []byte
}

// NewRequest redacts a failure for analyzers: the Failure field redacted
// field by field, JSON as MarshalRedacted makes it.
func NewRequest(f Failure, r *transport.Redactor) (Request, error) {
	body, err := f.MarshalRedacted(r)
	if err != nil {
		return Request{}, err
	}
	g := f.Redacted(r)
	g.normalize()
	return Request{Failure: g, JSON: body}, nil
}

// payload is what leaves the process: JSON, or, for a request built by
// hand without it, Failure marshalled as it is (the caller redacted it).
func (r Request) payload() ([]byte, error) {
	if len(r.JSON) > 0 {
		return r.JSON, nil
	}
	return r.Failure.MarshalRedacted(nil)
}

// maxAnswer bounds an analyzer's answer.
const maxAnswer = 1 << 20

// wireAnswer is the JSON an external analyzer answers with.
type wireAnswer struct {
	Diagnosis *Diagnosis          `json:"diagnosis"`
	PlanPatch *protocol.PlanPatch `json:"plan_patch"`
}

// ParseAnswer decodes an analyzer's JSON answer:
//
//	{"diagnosis": {"summary": "...", "explanation": "...", "evidence": ["..."],
//	  "risk": "low|medium|high", "confidence": 0.8, "manual_steps": ["..."]},
//	 "plan_patch": {"reason": "...", "risk": "...", "changes": [
//	   {"insert_after": "job", "jobs": [{"id": "job", "parameters": {"k": "v"}}]},
//	   {"remove": "job"}, {"retry": {"job": "job"}}],
//	  "approval": {"required": true, "roles": ["sre"]}}}
//
// plan_patch may be null. A JSON code fence around the object is accepted.
func ParseAnswer(data []byte) (Answer, error) {
	if len(data) > maxAnswer {
		return Answer{}, fmt.Errorf("%w: answer is %d bytes, more than %d", ErrAnswer, len(data), maxAnswer)
	}
	data = stripFence(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	var w wireAnswer
	if err := dec.Decode(&w); err != nil {
		return Answer{}, fmt.Errorf("%w: not a JSON object with diagnosis and plan_patch: %w (answer starts %q)", ErrAnswer, err, head(data, 120))
	}
	if dec.More() {
		return Answer{}, fmt.Errorf("%w: text after the JSON object (answer starts %q)", ErrAnswer, head(data, 120))
	}
	if w.Diagnosis == nil {
		return Answer{}, fmt.Errorf("%w: no diagnosis object (answer starts %q)", ErrAnswer, head(data, 120))
	}
	return Answer{Diagnosis: *w.Diagnosis, Patch: w.PlanPatch}, nil
}

// stripFence removes a ```json ... ``` fence around the answer.
func stripFence(data []byte) []byte {
	s := strings.TrimSpace(string(data))
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return []byte(s)
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "```"), "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.Contains(s[:i], "{") {
		s = s[i+1:] // the fence's language tag
	}
	return []byte(strings.TrimSpace(s))
}

// head returns at most n bytes of data for error messages.
func head(data []byte, n int) string {
	if len(data) <= n {
		return string(data)
	}
	return string(data[:n]) + "..."
}

// settle makes an external analyzer's answer safe to propose: the
// diagnosis is attributed to the analyzer, quotes not found in the failure
// are dropped, and the patch gets its id from the failure, is authored by
// the analyzer, requires approval and is not approved. It returns notes on what was dropped.
func settle(name string, f Failure, a Answer) (Answer, []string, error) {
	d := a.Diagnosis
	d.Source, d.Rule, d.Related = "analyzer:"+name, "", nil
	d.Risk = Risk(strings.ToLower(strings.TrimSpace(string(d.Risk))))
	if err := d.Validate(); err != nil {
		return Answer{}, nil, fmt.Errorf("%w: %w", ErrAnswer, err)
	}
	var warns []string
	text := strings.Join(f.Lines(), "\n")
	var kept []string
	for _, q := range d.Evidence {
		if q = strings.TrimSpace(q); q != "" && strings.Contains(text, q) {
			kept = append(kept, q)
		}
	}
	if n := len(d.Evidence) - len(kept); n > 0 {
		warns = append(warns, fmt.Sprintf("analyzer %s quoted %d line(s) that are not in the failure; they were dropped", name, n))
	}
	d.Evidence = kept[:min(len(kept), maxQuoted)]
	out := Answer{Diagnosis: d}
	if a.Patch == nil {
		return out, warns, nil
	}
	p := clonePatch(*a.Patch)
	p.Author, p.ID = "analyzer:"+name, patchID("analyzer-"+name, f.Job)
	if strings.TrimSpace(p.Reason) == "" {
		p.Reason = d.Summary
	}
	p.Risk = strings.ToLower(strings.TrimSpace(p.Risk))
	if p.Risk == "" {
		p.Risk = string(d.Risk)
	}
	if !Risk(p.Risk).Valid() {
		return Answer{}, nil, fmt.Errorf("%w: plan_patch risk %q is not one of low, medium, high", ErrAnswer, p.Risk)
	}
	if p.Approval.ApprovedBy != "" {
		warns = append(warns, fmt.Sprintf("analyzer %s marked its patch approved by %q; an analyzer cannot approve, the approval was cleared", name, p.Approval.ApprovedBy))
	}
	p.Approval.Required, p.Approval.ApprovedBy = true, ""
	if len(p.Approval.Roles) == 0 {
		p.Approval.Roles = []string{"sre"}
	}
	out.Patch = &p
	return out, warns, nil
}
