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
