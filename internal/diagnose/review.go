package diagnose

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Errors Diagnose and its parts wrap.
var (
	// ErrRejected: the reviewer refused a proposed patch.
	ErrRejected = errors.New("plan patch rejected")
	// ErrAnalyzer: an external analyzer failed or timed out.
	ErrAnalyzer = errors.New("analyzer failed")
	// ErrAnswer: an analyzer's answer is not the expected JSON.
	ErrAnswer = errors.New("invalid analyzer answer")
)

// ReviewApprover is what the reviewer writes into approval.approved_by of
// the copy it hands to the planner, so the planner validates the patch
// instead of stopping at "not approved". The approval never leaves the
// reviewer: the patch proposed to the user stays unapproved.
const ReviewApprover = "diagnose:review"

// ReviewFunc is the planner callback of the reviewer. It is given the
// patch marked approved (approval.approved_by = ReviewApprover) and must
// rebuild the plan the failed operation ran, with the resource's
// customization and existing patches and this patch appended, returning
// the planner's error: planner.Compose or planner.Build wrapping ErrEdit
// (unknown job, job not in the plan, broken contract), ErrCycle,
// ErrMissingInput or ErrParams. It must not run anything.
type ReviewFunc func(patch protocol.PlanPatch) error

// Reviewer validates a proposed patch the way the planner validates a
// customization (seed 001 §14 Reviewer).
type Reviewer struct {
	// Library is the pack's job library; inserted jobs must be in it and
	// their parameters must be ones the job reads. Empty refuses every
	// insertion.
	Library []LibraryJob
	// PlanJobs are the jobs of the plan; when set, insert_after, remove
	// and retry must name one of them or a job the patch inserts.
	PlanJobs []string
	// Rebuild asks the planner; nil checks only the library and the plan's
	// job ids.
	Rebuild ReviewFunc
}

// Review returns nil when the patch can apply, or an error wrapping
// ErrRejected that says why.
func (r Reviewer) Review(p protocol.PlanPatch) error {
	if err := r.check(p); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if r.Rebuild == nil {
		return nil
	}
	approved := clonePatch(p)
	if approved.Approval.Required && approved.Approval.ApprovedBy == "" {
		approved.Approval.ApprovedBy = ReviewApprover
	}
	if err := r.Rebuild(approved); err != nil {
		return fmt.Errorf("%w: the planner cannot apply it: %w", ErrRejected, err)
	}
	return nil
}

// check validates what needs no planner: shape, library jobs, parameters
// and the plan's job ids.
func (r Reviewer) check(p protocol.PlanPatch) error {
	if err := p.Validate(); err != nil {
		return err
	}
	lib := map[string]LibraryJob{}
	for _, j := range r.Library {
		lib[j.ID] = j
	}
	inserted := map[string]bool{}
	known := func(id string) bool { return len(r.PlanJobs) == 0 || slices.Contains(r.PlanJobs, id) || inserted[id] }
	for i, c := range p.Changes {
		switch {
		case c.InsertAfter != "":
			if !known(c.InsertAfter) {
				return fmt.Errorf("change %d: insert_after %q is not a job of the plan (jobs: %s)", i, c.InsertAfter, strings.Join(r.PlanJobs, ", "))
			}
			for _, j := range c.Jobs {
				if err := checkInsert(j, lib); err != nil {
					return fmt.Errorf("change %d: %w", i, err)
				}
				if inserted[j.ID] || slices.Contains(r.PlanJobs, j.ID) {
					return fmt.Errorf("change %d: job %q is already in the plan; a job appears once", i, j.ID)
				}
				inserted[j.ID] = true
			}
		case c.Remove != "":
			if !known(c.Remove) {
				return fmt.Errorf("change %d: remove %q is not a job of the plan (jobs: %s)", i, c.Remove, strings.Join(r.PlanJobs, ", "))
			}
		case c.Retry != nil:
			if !known(c.Retry.Job) {
				return fmt.Errorf("change %d: retry %q is not a job of the plan (jobs: %s)", i, c.Retry.Job, strings.Join(r.PlanJobs, ", "))
			}
		}
	}
	return nil
}

// maxListedJobs bounds the job library an error message lists.
const maxListedJobs = 12

func checkInsert(j protocol.PatchJob, lib map[string]LibraryJob) error {
	if j.Job != nil {
		return fmt.Errorf("job %q is defined inline; a proposed patch may only name jobs of the pack's job library", j.ID)
	}
	lj, ok := lib[j.ID]
	if !ok {
		if len(lib) == 0 || len(lib) > maxListedJobs {
			return fmt.Errorf("job %q is not in the pack's job library (%d jobs; the cp_scenario_pack data source lists them)", j.ID, len(lib))
		}
		return fmt.Errorf("job %q is not in the pack's job library (library: %s)", j.ID, strings.Join(slices.Sorted(maps.Keys(lib)), ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(j.Parameters)) {
		if !slices.Contains(lj.Parameters, k) {
			return fmt.Errorf("job %q does not read parameter %q (it reads: %s)", j.ID, k, strings.Join(lj.Parameters, ", "))
		}
	}
	return nil
}

// clonePatch copies a patch deeply enough that changing the copy's
// approval, changes or parameters leaves the original alone.
func clonePatch(p protocol.PlanPatch) protocol.PlanPatch {
	out := p
	out.Approval.Roles = slices.Clone(p.Approval.Roles)
	out.Changes = make([]protocol.PatchChange, len(p.Changes))
	for i, c := range p.Changes {
		c.Jobs = slices.Clone(c.Jobs)
		for k := range c.Jobs {
			c.Jobs[k].Parameters = maps.Clone(c.Jobs[k].Parameters)
		}
		if c.Retry != nil {
			r := *c.Retry
			c.Retry = &r
		}
		out.Changes[i] = c
	}
	return out
}
