package engine

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Seed 000 §5: join fails on worker-3; a person fixes DNS by hand; the
// intervention is recorded, verified, and the operation continues.
func TestInterventionVerifiesManualFixAndContinues(t *testing.T) {
	n := clusterNet("w1", "w2", "w3")
	n.host("w3").set("break:join", "could not resolve host: api.prod")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1", "w2", "w3"), RunInput{OperationID: "op-5"})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("got: %s want: Failed", res.Operation.Status)
	}
	wantStatus(t, res, "join[w3]", StatusFailed)
	wantStatus(t, res, "verify", StatusSkipped)

	iv := protocol.Intervention{Type: "manually_fixed", Job: "join", Node: "w3", Actor: "alice", Note: "Fixed resolver config and restarted kubelet.",
		Verification: []string{"node_registered", "kubelet_ready"}}
	// Verification before the fix: still failing, operation stays Failed.
	plan := clusterPlan("w1", "w2", "w3")
	// kubelet_ready is evidence of another job of the plan (a node check);
	// the intervention names it.
	check := newJob("node-check", evidence("kubelet_ready", "state kubelet", "active"))
	plan.Instances = append(plan.Instances, newInst(check, "verify", "w1"))
	n.host("w1").set("kubelet", "active")
	res2 := mustRun(t, e, plan, RunInput{Previous: &res.Operation, Interventions: []protocol.Intervention{iv}})
	if res2.Operation.Status != protocol.StatusFailed || len(res2.Interventions) != 1 || res2.Interventions[0].Verified {
		t.Fatalf("unfixed: got: %s %+v want: Failed, not verified", res2.Operation.Status, res2.Interventions)
	}
	if got := strings.Join(res2.Interventions[0].StillFailing, "; "); !strings.Contains(got, "evidence node_registered failed") || !strings.Contains(got, "evidence kubelet_ready failed") {
		t.Errorf("still failing got: %q", got)
	}
	if got := n.host("w3").runCount("join[w3]"); got != 1 {
		t.Errorf("join[w3] ran %d times, want 1: a claimed fix is verified, not re-run", got)
	}

	// The person fixes the host; the same intervention now verifies.
	w3 := n.host("w3")
	w3.set("joined", "yes")
	w3.set("kubelet", "active")
	res3 := mustRun(t, e, plan, RunInput{Previous: &res2.Operation, Interventions: []protocol.Intervention{iv}})
	if res3.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("fixed: got: %s want: Completed\n%s", res3.Operation.Status, statuses(res3))
	}
	in := wantStatus(t, res3, "join[w3]", StatusFixed)
	if in.FixedBy != "alice" || !strings.Contains(in.Reason, "manually fixed by alice and verified") {
		t.Errorf("got: %+v", in)
	}
	wantStatus(t, res3, "verify", StatusDone)
	var path []string
	for _, tl := range res3.Operation.Timeline {
		if tl.Event == "status" {
			path = append(path, string(tl.Status))
		}
	}
	if got := strings.Join(path, ">"); !strings.HasSuffix(got, "Failed>Verification>Running>Completed") {
		t.Errorf("lifecycle got: %s", got)
	}
	// A fresh run finds the fix's marker: satisfied, not re-run.
	res4 := mustRun(t, e, plan, RunInput{})
	wantStatus(t, res4, "join[w3]", StatusSatisfied)
	if got := w3.runCount("join[w3]"); got != 1 {
		t.Errorf("join[w3] ran %d times, want 1", got)
	}
}

// TestInterventionRefusedWhenTheJobForbidsIt: init declares
// manual_intervention.allowed false; a claimed fix is refused, not
// verified, and the job runs again.
func TestInterventionRefusedWhenTheJobForbidsIt(t *testing.T) {
	n := clusterNet("w1")
	n.host("m1").set("break:init", "kubeadm init failed")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{OperationID: "op-6"})
	wantStatus(t, res, "init[m1]", StatusFailed)
	n.host("m1").set("break:init", "")
	iv := protocol.Intervention{Type: "manually_fixed", Job: "init", Node: "m1", Actor: "alice"}
	res2 := mustRun(t, e, clusterPlan("w1"), RunInput{Previous: &res.Operation, Interventions: []protocol.Intervention{iv}})
	if len(res2.Interventions) != 1 || res2.Interventions[0].Verified ||
		!strings.Contains(strings.Join(res2.Interventions[0].StillFailing, ";"), "init[m1]: refused: job init declares manual_intervention.allowed: false") {
		t.Fatalf("intervention got: %+v", res2.Interventions)
	}
	in := wantStatus(t, res2, "init[m1]", StatusDone)
	if in.FixedBy != "" {
		t.Errorf("init counted as fixed by %s", in.FixedBy)
	}
	if got := n.host("m1").runCount("init[m1]"); got != 2 {
		t.Errorf("init ran %d times want: 2 (refused fix, so it ran again)", got)
	}
	if res2.Operation.Status != protocol.StatusCompleted {
		t.Errorf("got: %s want: Completed", res2.Operation.Status)
	}
}
