package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Redacted returns a copy of the failure with every string passed through
// the redactor (a nil redactor changes nothing).
func (f Failure) Redacted(r *transport.Redactor) Failure {
	s := r.String
	out := f
	out.Job, out.Instance, out.Host, out.Stage = s(f.Job), s(f.Instance), s(f.Host), s(f.Stage)
	out.Class, out.Reason, out.Template = s(f.Class), s(f.Reason), s(f.Template)
	out.LogTail = redactAll(r, f.LogTail)
	out.Observed = redactAll(r, f.Observed)
	out.PlanJobs = redactAll(r, f.PlanJobs)
	out.Evidence = slices.Clone(f.Evidence)
	for i := range out.Evidence {
		e := &out.Evidence[i]
		e.ID, e.Host, e.Observed, e.Detail = s(e.ID), s(e.Host), s(e.Observed), s(e.Detail)
	}
	out.Artifacts = slices.Clone(f.Artifacts)
	for i := range out.Artifacts {
		a := &out.Artifacts[i]
		a.ID, a.Type, a.Producer, a.Host = s(a.ID), s(a.Type), s(a.Producer), s(a.Host)
	}
	if f.Parameters != nil {
		out.Parameters = make(map[string]string, len(f.Parameters))
		for _, k := range slices.Sorted(maps.Keys(f.Parameters)) {
			out.Parameters[s(k)] = s(f.Parameters[k])
		}
	}
	out.JobLibrary = slices.Clone(f.JobLibrary)
	for i := range out.JobLibrary {
		j := &out.JobLibrary[i]
		j.ID, j.Title, j.Parameters = s(j.ID), s(j.Title), redactAll(r, j.Parameters)
	}
	return out
}

func redactAll(r *transport.Redactor, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = r.String(v)
	}
	return out
}

// MarshalRedacted is the failure as external analyzers receive it: redacted
// field by field, marshalled as JSON without HTML escaping (so a secret is
// not hidden behind \u003c escapes), and the bytes redacted once more.
func (f Failure) MarshalRedacted(r *transport.Redactor) ([]byte, error) {
	g := f.Redacted(r)
	g.normalize()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		return nil, fmt.Errorf("diagnose: encode failure of %s: %w", f.Instance, err)
	}
	return r.Bytes(bytes.TrimRight(buf.Bytes(), "\n")), nil
}
