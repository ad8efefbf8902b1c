package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// InterventionRef is one recorded manual fix (interventions[i]): the job
// that failed and the node it was fixed on.
type InterventionRef struct {
	Job  string
	Node string
}

// CheckInterventions refuses, at plan, interventions that could not take
// effect or that the job's contract forbids: a job or node the plans do
// not have, and a job whose controls.manual_intervention.allowed is false
// (its fix by hand is not accepted; the reason says what to do instead).
// base is the interventions attribute.
func CheckInterventions(base Path, ivs []InterventionRef, plans ...*protocol.Plan) Problems {
	var ps Problems
	jobs := map[string]*protocol.JobInstance{}
	hosts := map[string]bool{}
	for _, p := range plans {
		for _, in := range p.Instances {
			if in.Job == nil {
				continue
			}
			if _, seen := jobs[in.JobID]; !seen {
				jobs[in.JobID] = in
			}
			if in.Host != "" {
				hosts[in.Host] = true
			}
		}
	}
	for i, iv := range ivs {
		p := base.Index(i)
		if iv.Job != "" {
			in, ok := jobs[iv.Job]
			if !ok {
				ids := protocol.SortedKeys(jobs)
				if len(ids) > 8 {
					ids = ids[:8]
				}
				ps.add(p.Attr("job"), "Unknown job", "the plan has no job %s; an intervention names the job that failed, e.g. one of: %s.", paramtype.Quote(iv.Job), orNone(ids))
			} else if !in.Job.Controls.ManualIntervention.Allowed {
				ps.add(p.Attr("job"), "Manual intervention not allowed",
					"job %s of %s declares controls.manual_intervention.allowed: false: a fix by hand is not accepted for it, because its outputs are only trusted when the job itself produced them; remove the intervention and let the job run again (a plan_patches retry, or fix the cause and apply).",
					iv.Job, in.Pack)
			}
		}
		if iv.Node != "" && !hosts[iv.Node] {
			known := protocol.SortedKeys(hosts)
			slices.Sort(known)
			ps.add(p.Attr("node"), "Unknown node", "no job of the plan runs on %s; nodes of the plan: %s.", paramtype.Quote(iv.Node), orNone(known))
		}
	}
	return ps
}
