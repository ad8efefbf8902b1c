package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// PatchesFor routes plan patches to an action: those with a change that
// names (inserts after, removes or retries) a job of the action's
// template. Nil without the pack or the template.
func PatchesFor(pack *protocol.ScenarioPack, action string, patches []protocol.PlanPatch) []protocol.PlanPatch {
	if pack == nil {
		return nil
	}
	t, ok := pack.Templates[action]
	if !ok {
		return nil
	}
	jobs := t.JobIDs()
	var out []protocol.PlanPatch
	for _, p := range patches {
		if slices.ContainsFunc(p.Changes, func(c protocol.PatchChange) bool { return slices.Contains(jobs, patchTarget(c)) }) {
			out = append(out, p)
		}
	}
	return out
}

// patchTarget is the job a patch change is placed against.
func patchTarget(c protocol.PatchChange) string {
	if c.Retry != nil {
		return c.Retry.Job
	}
	return c.InsertAfter + c.Remove
}

// JobParams keeps the parameters a patch change sets that the job reads
// (its inputs.parameters in the pack's library); all of them when the job
// is not in the library, so the planner reports the unknown job.
func JobParams(pack *protocol.ScenarioPack, job string, params map[string]string) map[string]string {
	if len(params) == 0 {
		return nil
	}
	var j *protocol.Job
	if pack != nil {
		j = pack.Jobs[job]
	}
	if j == nil {
		return params
	}
	out := map[string]string{}
	for k, v := range params {
		if _, reads := j.Inputs.Parameters[k]; reads {
			out[k] = v
		}
	}
	return out
}
