package engine

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// gatedPlan puts an approval gate before verify.
func gatedPlan() *protocol.Plan {
	p := clusterPlan("w1")
	gate := &protocol.JobInstance{ID: "approve-verify", Stage: "verify", Origin: protocol.OriginGate, Needs: []string{"join[w1]"},
		Gate: &protocol.Gate{ID: "approve-verify", Type: protocol.GateApproval, Reason: "verification touches prod", Options: []protocol.GateOption{protocol.Proceed("approve"), protocol.Cancel("cancel")}, RequiredRoles: []string{"sre"}}}
	last := p.Instances[len(p.Instances)-1]
	last.Needs = []string{"approve-verify"}
	p.Instances = append(p.Instances[:len(p.Instances)-1], gate, last)
	return p
}

func TestGateStopsBranchUntilApprovedByRole(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)

	res := mustRun(t, e, gatedPlan(), RunInput{OperationID: "op-g"})
	if res.Operation.Status != protocol.StatusWaitingForApproval {
		t.Fatalf("no decision: got: %s want: WaitingForApproval", res.Operation.Status)
	}
	wantStatus(t, res, "approve-verify", StatusWaiting)
	if in := wantStatus(t, res, "verify", StatusSkipped); in.Reason != "needs gate approve-verify which waits for a decision" {
		t.Errorf("reason got: %q", in.Reason)
	}
	wantStatus(t, res, "join[w1]", StatusDone)
	if len(res.Waiting) != 1 || res.Waiting[0].Gate != "approve-verify" || res.Waiting[0].Reason != "verification touches prod" ||
		strings.Join(res.Waiting[0].Options, ",") != "approve,cancel" || strings.Join(res.Waiting[0].RequiredRoles, ",") != "sre" {
		t.Errorf("waiting got: %+v", res.Waiting)
	}

	wrong := protocol.Decision{Gate: "approve-verify", Option: "approve", Actor: "dev1", Roles: []string{"developer"}}
	res = mustRun(t, e, gatedPlan(), RunInput{Previous: &res.Operation, Decisions: []protocol.Decision{wrong}})
	if res.Operation.Status != protocol.StatusWaitingForApproval || len(res.Waiting) != 1 {
		t.Fatalf("wrong role: got: %s want: still WaitingForApproval", res.Operation.Status)
	}
	if !strings.Contains(res.Waiting[0].Refused, `actor "dev1" has roles ["developer"] but the gate requires one of ["sre"]`) {
		t.Errorf("refused got: %q", res.Waiting[0].Refused)
	}

	right := protocol.Decision{Gate: "approve-verify", Option: "approve", Actor: "alice", Roles: []string{"sre"}}
	res = mustRun(t, e, gatedPlan(), RunInput{Previous: &res.Operation, Decisions: []protocol.Decision{wrong, right}})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("approved: got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	if g := wantStatus(t, res, "approve-verify", StatusDone); g.Decision == nil || g.Decision.Actor != "alice" {
		t.Errorf("decision got: %+v want alice's", g.Decision)
	}
	wantStatus(t, res, "join[w1]", StatusSatisfied)
	wantStatus(t, res, "verify", StatusDone)
	var path []string
	for _, tl := range res.Operation.Timeline {
		if tl.Event == "status" {
			path = append(path, string(tl.Status))
		}
	}
	if got := strings.Join(path, ">"); !strings.HasSuffix(got, "WaitingForApproval>Running>WaitingForApproval>Running>Completed") {
		t.Errorf("lifecycle got: %s", got)
	}
}

// TestMissingInputGateHoldsOnlyItsBranch: a missing_input gate (its one
// option cancels) holds verify; every other job runs, and the operation
// waits for input naming the parameter.
func TestMissingInputGateHoldsOnlyItsBranch(t *testing.T) {
	p := clusterPlan("w1")
	gate := &protocol.JobInstance{ID: "missing-input-endpoint", Stage: "verify", Origin: protocol.OriginGate,
		Gate: &protocol.Gate{ID: "missing-input-endpoint", Type: protocol.GateMissingInput, Parameter: "endpoint",
			Reason: "parameter endpoint has no value", Options: []protocol.GateOption{protocol.Cancel("cancel operation")}}}
	last := p.Instances[len(p.Instances)-1]
	last.Needs = append(last.Needs, gate.ID)
	p.Instances = append(p.Instances[:len(p.Instances)-1], gate, last)
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, p, RunInput{OperationID: "op-mi"})
	if res.Operation.Status != protocol.StatusWaitingForInput {
		t.Fatalf("got: %s want: WaitingForInput\n%s", res.Operation.Status, statuses(res))
	}
	for _, id := range []string{"validate", "runtime[m1]", "runtime[w1]", "init[m1]", "join[w1]"} {
		wantStatus(t, res, id, StatusDone)
	}
	wantStatus(t, res, "verify", StatusSkipped)
	if n.host("m1").get("verified") != "" {
		t.Error("verify ran")
	}
	if len(res.Waiting) != 1 || res.Waiting[0].Parameter != "endpoint" || res.Waiting[0].Effects[0] != protocol.EffectCancel {
		t.Errorf("waiting got: %+v", res.Waiting)
	}
}
