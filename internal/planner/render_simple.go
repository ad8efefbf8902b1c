package planner

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RenderSimple is the simple-mode view: the plan title, then one line per
// stage with its job count and a status word; a sub-operation shows as one
// dependency line, a gate as what it waits for.
func RenderSimple(p *protocol.Plan) string { return RenderSimpleState(p, ViewState{}) }

// RenderSimpleState is RenderSimple with what st says of the instances:
// a stage's jobs read "done" once the operation completed, and "N will
// run, M satisfied" (with the repairs) when st says which are satisfied
// or repaired, instead of "pending".
func RenderSimpleState(p *protocol.Plan, st ViewState) string {
	var sb strings.Builder
	title := p.Title
	if title == "" {
		title = p.Template
	}
	fmt.Fprintf(&sb, "%s (%s)\n", title, p.Display())
	ahead := gatesAhead(p)
	subDone := map[string]bool{}
	for _, stage := range p.Stages {
		var jobs, gates []*protocol.JobInstance
		sub := ""
		for _, id := range stage.Instances {
			in, _ := p.Instance(id)
			if in.IsGate() {
				gates = append(gates, in)
			} else {
				jobs = append(jobs, in)
			}
			if in.SubOperation != "" {
				sub = in.SubOperation
			}
		}
		for _, g := range gates {
			fmt.Fprintf(&sb, "  %s: %s\n", g.ID, gateWaitText(g.Gate))
		}
		if len(jobs) == 0 {
			continue
		}
		if sub != "" {
			if subDone[sub] {
				continue
			}
			subDone[sub] = true
			fmt.Fprintf(&sb, "  %s\n", subOpLine(p, sub, ahead, st))
			continue
		}
		fmt.Fprintf(&sb, "  %s: %d %s, %s\n", stage.Title, len(jobs), plural(len(jobs), "job", "jobs"), stageStatus(jobs, ahead, st))
	}
	return sb.String()
}

func gateWaitText(g *protocol.Gate) string {
	s := "waiting for " + strings.ReplaceAll(string(g.Type), "_", " ")
	if len(g.RequiredRoles) > 0 {
		s += " (roles: " + strings.Join(g.RequiredRoles, ", ") + ")"
	}
	return s
}

// stageStatus is "pending" (or, as st says, "done" or "N will run, M
// satisfied, R repair"), "waiting for <gates>", with the count of jobs
// added to the template.
func stageStatus(jobs []*protocol.JobInstance, ahead map[string][]string, st ViewState) string {
	var waits []string
	seen := map[string]bool{}
	changed := 0
	for _, in := range jobs {
		for _, g := range ahead[in.ID] {
			if !seen[g] {
				seen[g] = true
				waits = append(waits, g)
			}
		}
		if in.Origin != protocol.OriginTemplate && in.Origin != protocol.OriginSubOperation {
			changed++
		}
	}
	s := "pending"
	switch {
	case st.Completed:
		s = "done"
	case len(waits) > 0:
		s = "waiting for " + strings.Join(waits, ", ")
	case st.Satisfied != nil || st.Repair != nil:
		s = jobStatusCounts(jobs, st)
	}
	if changed > 0 {
		s += fmt.Sprintf(" (%d added to the template)", changed)
	}
	return s
}

func subOpLine(p *protocol.Plan, id string, ahead map[string][]string, st ViewState) string {
	var so protocol.SubOperation
	for _, s := range p.SubOps {
		if s.ID == id {
			so = s
		}
	}
	var jobs []*protocol.JobInstance
	for _, in := range p.Instances {
		if in.SubOperation == id && !in.IsGate() {
			jobs = append(jobs, in)
		}
	}
	return fmt.Sprintf("Dependency %s: creating %s with %s, %d %s, %s", so.Capability, so.Pack, so.Template,
		len(jobs), plural(len(jobs), "job", "jobs"), stageStatus(jobs, ahead, st))
}
