package protocol

import (
	"fmt"
	"strings"
)

// Customization is the stored difference between a plan and its template,
// so a forked plan stays upgradeable (seed 000 §6).
type Customization struct {
	BaseTemplate string                `yaml:"base_template" json:"base_template"`
	Changes      []CustomizationChange `yaml:"changes" json:"changes"`
}

// CustomizationChange inserts a job after another or removes one.
// Exactly one of Inserted and Removed is set.
type CustomizationChange struct {
	Inserted string `yaml:"inserted,omitempty" json:"inserted,omitempty"`
	After    string `yaml:"after,omitempty" json:"after,omitempty"`
	Removed  string `yaml:"removed,omitempty" json:"removed,omitempty"`
	// Job defines the inserted job inline when it is not in the job library.
	Job *Job `yaml:"job,omitempty" json:"job,omitempty"`
}

// Validate checks the change's own shape.
func (c CustomizationChange) Validate() error {
	switch {
	case c.Inserted != "" && c.Removed != "":
		return fmt.Errorf("customization change: set inserted or removed, not both")
	case c.Inserted != "" && c.After == "":
		return fmt.Errorf("customization change: inserted %q needs after", c.Inserted)
	case c.Inserted == "" && c.Removed == "":
		return fmt.Errorf("customization change: set inserted (with after) or removed")
	case c.Job != nil && c.Job.ID != c.Inserted:
		return fmt.Errorf("customization change: inline job id %q differs from inserted %q", c.Job.ID, c.Inserted)
	}
	return nil
}

// String renders the change for plans: "inserted X after Y" or "removed Z".
func (c CustomizationChange) String() string {
	if c.Removed != "" {
		return "removed " + c.Removed
	}
	return "inserted " + c.Inserted + " after " + c.After
}

// PlanPatch is a structured diff to a plan proposed by a diagnosis or a
// person, applied only when approved (seed 001 §14).
type PlanPatch struct {
	ID       string        `yaml:"id,omitempty" json:"id,omitempty"`
	Author   string        `yaml:"author" json:"author"`
	Reason   string        `yaml:"reason" json:"reason"`
	Changes  []PatchChange `yaml:"changes" json:"changes"`
	Approval PatchApproval `yaml:"approval,omitempty" json:"approval,omitempty"`
	Risk     string        `yaml:"risk,omitempty" json:"risk,omitempty"`
}

// PatchChange is one change of a patch: insert jobs after a job, remove a
// job, or retry a job.
type PatchChange struct {
	InsertAfter string       `yaml:"insert_after,omitempty" json:"insert_after,omitempty"`
	Jobs        []PatchJob   `yaml:"jobs,omitempty" json:"jobs,omitempty"`
	Remove      string       `yaml:"remove,omitempty" json:"remove,omitempty"`
	Retry       *RetryChange `yaml:"retry,omitempty" json:"retry,omitempty"`
}

// PatchJob names a job from the library, optionally with parameters, or
// defines one inline.
type PatchJob struct {
	ID         string            `yaml:"id" json:"id"`
	Parameters map[string]string `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	Job        *Job              `yaml:"job,omitempty" json:"job,omitempty"`
}

// RetryChange asks to run a job again even though it failed before.
type RetryChange struct {
	Job string `yaml:"job" json:"job"`
}

// PatchApproval says whether the patch needs approval and by whom.
type PatchApproval struct {
	Required   bool     `yaml:"required" json:"required"`
	Roles      []string `yaml:"roles,omitempty" json:"roles,omitempty"`
	ApprovedBy string   `yaml:"approved_by,omitempty" json:"approved_by,omitempty"`
}

// Approved reports whether the patch may be applied.
func (p PlanPatch) Approved() bool { return !p.Approval.Required || p.Approval.ApprovedBy != "" }

// Validate checks the patch's own shape.
func (p PlanPatch) Validate() error {
	if strings.TrimSpace(p.Author) == "" {
		return fmt.Errorf("plan patch: author is empty")
	}
	if len(p.Changes) == 0 {
		return fmt.Errorf("plan patch by %s: no changes", p.Author)
	}
	for i, c := range p.Changes {
		n := 0
		if c.InsertAfter != "" {
			n++
			if len(c.Jobs) == 0 {
				return fmt.Errorf("plan patch change %d: insert_after %q lists no jobs", i, c.InsertAfter)
			}
		}
		if c.Remove != "" {
			n++
		}
		if c.Retry != nil {
			n++
			if c.Retry.Job == "" {
				return fmt.Errorf("plan patch change %d: retry names no job", i)
			}
		}
		if n != 1 {
			return fmt.Errorf("plan patch change %d: set exactly one of insert_after, remove, retry", i)
		}
	}
	return nil
}

// Intervention records that a person fixed something by hand; verification
// runs before the operation continues (seed 001 §13, seed 000 §5).
type Intervention struct {
	Type         string   `yaml:"type" json:"type"` // manually_fixed
	Job          string   `yaml:"job" json:"job"`   // job id (or stage) that failed
	Node         string   `yaml:"node,omitempty" json:"node,omitempty"`
	Actor        string   `yaml:"actor" json:"actor"`
	Note         string   `yaml:"note,omitempty" json:"note,omitempty"`
	Verification []string `yaml:"verification,omitempty" json:"verification,omitempty"` // evidence ids or job ids
}

// Validate checks the intervention's own shape.
func (i Intervention) Validate() error {
	if i.Type != "manually_fixed" {
		return fmt.Errorf("intervention: type %q is not manually_fixed", i.Type)
	}
	if i.Job == "" {
		return fmt.Errorf("intervention: job is empty")
	}
	if i.Actor == "" {
		return fmt.Errorf("intervention on %s: actor is empty", i.Job)
	}
	return nil
}
