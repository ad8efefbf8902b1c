package provider

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// completedPlans are two operations as one resource plans them: one on
// a host with a gate, one without hosts.
func completedPlans() []*protocol.Plan {
	g := &protocol.JobInstance{ID: "g", Stage: "s", Origin: protocol.OriginGate, Gate: &protocol.Gate{ID: "g", Type: protocol.GateApproval,
		Reason: "r", Options: []protocol.GateOption{protocol.Proceed("go"), protocol.Cancel("stop")}}}
	a := &protocol.Plan{Template: "p.leave@1.0.0", Title: "Leave", Stages: []protocol.PlanStage{{ID: "s", Title: "S", Instances: []string{"g", "a[h1]"}}},
		Instances: []*protocol.JobInstance{g, {ID: "a[h1]", JobID: "a", Stage: "s", Host: "h1", Needs: []string{"g"}}},
		Intent:    protocol.Intent{Hosts: []protocol.Host{{Name: "h1"}}}}
	b := &protocol.Plan{Template: "p.install@1.0.0", Title: "Install", Stages: []protocol.PlanStage{{ID: "t", Title: "T", Instances: []string{"x", "y"}}},
		Instances: []*protocol.JobInstance{{ID: "x", JobID: "x", Stage: "t"}, {ID: "y", JobID: "y", Stage: "t"}}}
	return []*protocol.Plan{a, b}
}

// The plan and plan_summary of a completed operation shorten, in state,
// to one line per operation of what ran, read from the views the plan
// showed; shortening again changes nothing.
func TestCompletedPlanViews(t *testing.T) {
	ps := completedPlans()
	var views, sums []string
	for _, p := range ps {
		views = append(views, planner.RenderCompact(p, planner.ViewState{}))
		sums = append(sums, planner.RenderSimple(p))
	}
	d := func(p *protocol.Plan) string { return planner.ShortDigest(planner.Digest(p)) }
	want := "Leave (" + ps[0].Display() + "): completed, 1 job instance, 1 gate, per-instance DAG " + d(ps[0]) + "\n" +
		"Install (" + ps[1].Display() + "): completed, 2 job instances, 0 gates, per-instance DAG " + d(ps[1]) + "\n"
	got := completedPlan(strings.Join(views, "\n"))
	if got != want {
		t.Errorf("completedPlan:\n%s\nwant:\n%s\nof:\n%s", got, want, strings.Join(views, "\n"))
	}
	if again := completedPlan(got); again != "" {
		t.Errorf("completedPlan of the short form is %q, want \"\" (kept as it is)", again)
	}
	wantSum := "Leave (" + ps[0].Display() + "): completed\nInstall (" + ps[1].Display() + "): completed\n"
	gotSum := completedSummary(strings.Join(sums, "\n"))
	if gotSum != wantSum {
		t.Errorf("completedSummary:\n%s\nwant:\n%s\nof:\n%s", gotSum, wantSum, strings.Join(sums, "\n"))
	}
	if again := completedSummary(gotSum); again != "" {
		t.Errorf("completedSummary of the short form is %q, want \"\"", again)
	}
}
