package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// PlaceholderRegistryMirror is the registry_mirrors value a proposed patch
// carries when the failure's parameters name no mirror. It can never
// resolve (.invalid, RFC 2606): the user must replace it with the URL of a
// mirror the nodes can reach before approving the patch.
const PlaceholderRegistryMirror = "https://registry-mirror.example.invalid"

// slot is one job a fix inserts: alternatives by preference (the first
// one in the job library is used).
type slot struct {
	ids      []string
	optional bool
	// params returns the parameters of the chosen job and notes on them.
	params func(f Failure, job LibraryJob) (map[string]string, []string)
}

// fix inserts jobs after an anchor and retries a job; when the library
// lacks a required job, it already ran in this plan, or no anchor is in
// the plan, it degrades to a manual fix plus a retry of the failed job.
type fix struct {
	slots []slot
	// anchors: the first in the plan (or, when the plan's jobs are
	// unknown, in the library) is where the jobs are inserted after.
	anchors []string
	// beforeFailed inserts after the job preceding the failed one in the
	// plan when no anchor is there.
	beforeFailed bool
	// retry is the job to run again; empty means the failed job.
	retry func(f Failure) string
	// what the inserted jobs do, for notes when the fix degrades.
	what string
}

// build is the fix's PatchBuilder.
func (x fix) build(f Failure, _ Match) Draft {
	target := f.Job
	if x.retry != nil {
		target = x.retry(f)
	}
	var (
		jobs  []protocol.PatchJob
		notes []string
	)
	for _, s := range x.slots {
		if ran := firstOf(s.ids, f.inPlan); ran != "" {
			if s.optional {
				continue
			}
			return manualRetry(f, fmt.Sprintf("%s is already in the plan and %s, yet %s failed; the host needs a manual fix before a retry.", ran, x.what, f.Instance))
		}
		id := firstOf(s.ids, f.inLibrary)
		if id == "" {
			if s.optional {
				continue
			}
			return manualRetry(f, fmt.Sprintf("The pack's job library has no job that %s (looked for %s); the host needs a manual fix before a retry.", x.what, strings.Join(s.ids, ", ")))
		}
		pj := protocol.PatchJob{ID: id}
		if s.params != nil {
			lj, _ := f.libraryJob(id)
			params, n := s.params(f, lj)
			if len(params) > 0 {
				pj.Parameters = params
			}
			notes = append(notes, n...)
		}
		jobs = append(jobs, pj)
	}
	anchor := x.anchor(f)
	if anchor == "" {
		return manualRetry(f, fmt.Sprintf("None of %s is in the plan to insert %s after; the host needs a manual fix before a retry.", strings.Join(x.anchors, ", "), jobIDs(jobs)))
	}
	if target == "" {
		return Draft{Notes: append(notes, "The plan has no job to retry.")}
	}
	return Draft{Notes: notes, Changes: []protocol.PatchChange{
		{InsertAfter: anchor, Jobs: jobs},
		{Retry: &protocol.RetryChange{Job: target}},
	}}
}

// anchor picks the job to insert after.
func (x fix) anchor(f Failure) string {
	if len(f.PlanJobs) == 0 {
		return firstOf(x.anchors, f.inLibrary)
	}
	if a := firstOf(x.anchors, f.inPlan); a != "" {
		return a
	}
	if x.beforeFailed {
		if i := slices.Index(f.PlanJobs, f.Job); i > 0 {
			return f.PlanJobs[i-1]
		}
	}
	return ""
}

// manualRetry is the degraded draft: a person fixes the host by hand,
// then the failed job runs again.
func manualRetry(f Failure, why string) Draft {
	d := Draft{Manual: true, Notes: []string{why}}
	if len(f.PlanJobs) > 0 && !f.inPlan(f.Job) {
		d.Notes = append(d.Notes, fmt.Sprintf("%s is not a job of the plan, so no retry is proposed.", f.Job))
		return d
	}
	d.Changes = []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: f.Job}}}
	return d
}

// manualOnly is a PatchBuilder for failures no job of a pack fixes.
func manualOnly(what string) PatchBuilder {
	return func(f Failure, _ Match) Draft {
		return manualRetry(f, fmt.Sprintf("No job of the pack %s; fix it by hand, then apply the patch to retry %s.", what, f.Job))
	}
}

// firstOf returns the first id for which ok holds.
func firstOf(ids []string, ok func(string) bool) string {
	for _, id := range ids {
		if ok(id) {
			return id
		}
	}
	return ""
}

func jobIDs(jobs []protocol.PatchJob) string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return strings.Join(ids, ", ")
}

// mirrorParams sets registry_mirrors from the failure's parameters, or the
// placeholder with a note saying it must be replaced.
func mirrorParams(f Failure, job LibraryJob) (map[string]string, []string) {
	const key = "registry_mirrors"
	if !slices.Contains(job.Parameters, key) {
		return nil, nil
	}
	if v := strings.TrimSpace(f.Parameters[key]); v != "" {
		return map[string]string{key: v}, nil
	}
	return map[string]string{key: PlaceholderRegistryMirror}, []string{fmt.Sprintf(
		"registry_mirrors is the placeholder %s: replace it with the URL of a registry mirror every node can reach (comma-separated for several) before approving.",
		PlaceholderRegistryMirror)}
}
