package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Failure is what an analyzer receives about one failed job instance. It
// holds no secret value: the log tail is already redacted by the engine,
// artifacts are references only, and Diagnose redacts every string again
// before the failure leaves the process.
type Failure struct {
	// Job is the failed job's id, e.g. init-control-plane.
	Job string `json:"job"`
	// Instance is the job instance id, e.g. init-control-plane[master-1].
	Instance string `json:"instance"`
	Host     string `json:"host,omitempty"`
	Stage    string `json:"stage,omitempty"`
	// ExitCode of the last attempt.
	ExitCode int `json:"exit_code"`
	// Class is the engine's failure class (exit_code, evidence, timeout...).
	Class string `json:"class,omitempty"`
	// Reason is the engine's one-line explanation of the failure.
	Reason   string                    `json:"reason,omitempty"`
	LogTail  []string                  `json:"log_tail,omitempty"`
	Evidence []protocol.EvidenceResult `json:"evidence,omitempty"`
	// Artifacts the run knows of, without values.
	Artifacts []FailureArtifact `json:"artifacts,omitempty"`
	// Observed are notes on the observed state, one line each (e.g. what
	// the caller saw on the host or in the cluster).
	Observed []string `json:"observed,omitempty"`
	// Parameters are the intent's and the failed instance's parameters.
	Parameters map[string]string `json:"parameters,omitempty"`
	// Template is the plan's template reference, e.g. kubernetes.create@1.0.0.
	Template string `json:"template,omitempty"`
	// PlanJobs are the job ids of the plan in plan order; a patch inserts
	// after one of these.
	PlanJobs []string `json:"plan_jobs,omitempty"`
	// JobLibrary is the pack's job library, sorted by id; a patch may
	// name only these jobs.
	JobLibrary []LibraryJob `json:"job_library,omitempty"`
}

// FailureArtifact names an artifact of the run without its value.
type FailureArtifact struct {
	ID          string               `json:"id"`
	Type        string               `json:"type,omitempty"`
	Sensitivity protocol.Sensitivity `json:"sensitivity"`
	Producer    string               `json:"producer,omitempty"`
	Host        string               `json:"host,omitempty"`
	ExpiresAt   time.Time            `json:"expires_at,omitzero"`
	Expired     bool                 `json:"expired,omitempty"`
}

// LibraryJob describes a job of the pack's job library to an analyzer.
type LibraryJob struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Parameters the job reads, sorted.
	Parameters []string `json:"parameters,omitempty"`
}

// LibraryFromPack lists a pack's job library, sorted by id.
func LibraryFromPack(p *protocol.ScenarioPack) []LibraryJob {
	if p == nil {
		return nil
	}
	out := make([]LibraryJob, 0, len(p.Jobs))
	for _, id := range protocol.SortedKeys(p.Jobs) {
		j := p.Jobs[id]
		out = append(out, LibraryJob{ID: id, Title: j.Title, Parameters: slices.Sorted(maps.Keys(j.Inputs.Parameters))})
	}
	return out
}

// Context is what NewFailure takes from the run besides the failed
// instance itself.
type Context struct {
	// Plan the instance belongs to: template, jobs, parameters.
	Plan *protocol.Plan
	// Pack whose job library patches may use.
	Pack *protocol.ScenarioPack
	// Artifacts of the run (values are dropped).
	Artifacts []protocol.Artifact
	// Observed state notes.
	Observed []string
	// Now judges artifact expiry.
	Now time.Time
}

// Instance is what NewFailure needs of the engine's result for the failed
// instance (engine.InstanceResult's fields of the same names).
type Instance struct {
	ID       string
	Job      string
	Stage    string
	Host     string
	ExitCode int
	Class    string
	Reason   string
	LogTail  []string
	Evidence []protocol.EvidenceResult
}

// NewFailure assembles a Failure from a failed instance and its context.
func NewFailure(in Instance, c Context) (Failure, error) {
	if in.Job == "" || in.ID == "" {
		return Failure{}, fmt.Errorf("diagnose: failed instance %q has no job id", in.ID)
	}
	f := Failure{
		Job: in.Job, Instance: in.ID, Host: in.Host, Stage: in.Stage, ExitCode: in.ExitCode, Class: in.Class,
		Reason: in.Reason, LogTail: slices.Clone(in.LogTail), Evidence: slices.Clone(in.Evidence),
		Observed: slices.Clone(c.Observed), JobLibrary: LibraryFromPack(c.Pack),
	}
	for _, a := range c.Artifacts {
		f.Artifacts = append(f.Artifacts, FailureArtifact{ID: a.ID, Type: a.Type, Sensitivity: a.Sensitivity,
			Producer: a.Producer, Host: a.Host, ExpiresAt: a.ExpiresAt, Expired: !c.Now.IsZero() && a.Expired(c.Now)})
	}
	if p := c.Plan; p != nil {
		f.Template = p.Template
		params := map[string]string{}
		maps.Copy(params, p.Intent.Parameters)
		seen := map[string]bool{}
		for _, ji := range p.Instances {
			if ji.IsGate() || seen[ji.JobID] {
				continue
			}
			seen[ji.JobID] = true
			f.PlanJobs = append(f.PlanJobs, ji.JobID)
		}
		if ji, ok := p.Instance(in.ID); ok {
			maps.Copy(params, ji.Params)
		}
		if len(params) > 0 {
			f.Parameters = params
		}
	}
	f.normalize()
	return f, nil
}

// normalize sorts what has no meaningful order so equal failures marshal
// to equal bytes. The log tail and plan jobs keep their order.
func (f *Failure) normalize() {
	slices.SortStableFunc(f.Evidence, func(a, b protocol.EvidenceResult) int {
		return strings.Compare(a.ID+"\x00"+a.Host, b.ID+"\x00"+b.Host)
	})
	slices.SortStableFunc(f.Artifacts, func(a, b FailureArtifact) int {
		return strings.Compare(a.ID+"\x00"+a.Producer+"\x00"+a.Host, b.ID+"\x00"+b.Producer+"\x00"+b.Host)
	})
	slices.SortStableFunc(f.JobLibrary, func(a, b LibraryJob) int { return strings.Compare(a.ID, b.ID) })
}

// inLibrary reports whether the pack's job library has job id.
func (f *Failure) inLibrary(id string) bool {
	return slices.ContainsFunc(f.JobLibrary, func(j LibraryJob) bool { return j.ID == id })
}

// libraryJob returns the library entry of job id.
func (f *Failure) libraryJob(id string) (LibraryJob, bool) {
	i := slices.IndexFunc(f.JobLibrary, func(j LibraryJob) bool { return j.ID == id })
	if i < 0 {
		return LibraryJob{}, false
	}
	return f.JobLibrary[i], true
}

// inPlan reports whether the plan has job id. When the plan's jobs are
// unknown, nothing is in it.
func (f *Failure) inPlan(id string) bool { return slices.Contains(f.PlanJobs, id) }

// LibraryIDs lists the ids of the job library, sorted.
func (f *Failure) LibraryIDs() []string {
	out := make([]string, 0, len(f.JobLibrary))
	for _, j := range f.JobLibrary {
		out = append(out, j.ID)
	}
	slices.Sort(out)
	return out
}

// Lines returns the failure's text, one line each, in the order rules and
// analyzers quote it: the reason, the log tail, failed evidence, expired
// artifacts and observed-state notes.
func (f *Failure) Lines() []string {
	var out []string
	add := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
	}
	add(f.Reason)
	for _, l := range f.LogTail {
		add(l)
	}
	for _, e := range f.Evidence {
		if !e.Passed {
			add(evidenceLine(e))
		}
	}
	for _, a := range f.Artifacts {
		if a.Expired {
			add(fmt.Sprintf("artifact %s expired at %s", a.ID, a.ExpiresAt.UTC().Format(time.RFC3339)))
		}
	}
	for _, o := range f.Observed {
		add(o)
	}
	return out
}

// evidenceLine renders a failed evidence result as one observation line.
func evidenceLine(e protocol.EvidenceResult) string {
	var b strings.Builder
	b.WriteString("evidence " + e.ID)
	if e.Host != "" {
		b.WriteString(" on " + e.Host)
	}
	fmt.Fprintf(&b, " failed: observed %q, exit code %d", e.Observed, e.ExitCode)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}
