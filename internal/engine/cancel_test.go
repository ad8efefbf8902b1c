package engine

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// deletePlan is a cluster delete: a destructive gate with no needs holds
// reset on every host; list-nodes does not depend on the gate.
func deletePlan() *protocol.Plan {
	p := clusterPlan("w1")
	p.Instances = nil
	p.Stages = nil
	reset := newJob("reset", evidence("reset_done", "state reset", "yes"))
	list := newJob("list", evidence("listed", "state listed", "yes"))
	gate := &protocol.JobInstance{ID: "confirm-deletion", Stage: "delete", Origin: protocol.OriginGate,
		Gate: &protocol.Gate{ID: "confirm-deletion", Type: protocol.GateDestructive, Reason: "every node is reset",
			Options: []protocol.GateOption{protocol.Proceed("delete cluster"), protocol.Cancel("cancel operation")}, RequiredRoles: []string{"platform_admin"}}}
	p.Instances = append(p.Instances, newInst(list, "delete", ""), gate,
		newInst(reset, "delete", "m1", "confirm-deletion"), newInst(reset, "delete", "w1", "confirm-deletion"))
	p.Stages = []protocol.PlanStage{{ID: "delete", Title: "Delete", Instances: []string{"list", "confirm-deletion", "reset[m1]", "reset[w1]"}}}
	return p
}

func deleteNet() *memNet {
	n := clusterNet("w1")
	base := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		switch strings.TrimSuffix(strings.TrimPrefix(content, "script:scripts/"), ".sh") {
		case "reset":
			h.set("reset", "yes")
			return 0
		case "list":
			h.set("listed", "yes")
			return 0
		}
		return base(h, content, env, out)
	}
	return n
}

func lifecycle(res *Result) string {
	var path []string
	for _, tl := range res.Operation.Timeline {
		if tl.Event == "status" {
			path = append(path, string(tl.Status))
		}
	}
	return strings.Join(path, ">")
}

func TestGateOptionEffects(t *testing.T) {
	admin := []string{"platform_admin"}
	cases := []struct {
		name      string
		decisions []protocol.Decision
		op        protocol.OperationStatus
		gate      Status
		reset     Status
		resetRuns int
		started   []string // instances started, sorted
		refused   string
	}{
		{name: "proceed releases the held jobs",
			decisions: []protocol.Decision{{Gate: "confirm-deletion", Option: "delete cluster", Actor: "alice", Roles: admin}},
			op:        protocol.StatusCompleted, gate: StatusDone, reset: StatusDone, resetRuns: 1, started: []string{"list", "reset[m1]", "reset[w1]"}},
		{name: "cancel runs nothing past the gate",
			decisions: []protocol.Decision{{Gate: "confirm-deletion", Option: "cancel operation", Actor: "alice", Roles: admin}},
			op:        protocol.StatusCancelled, gate: StatusCancelled, reset: StatusSkipped, resetRuns: 0},
		{name: "no decision waits and runs only what does not depend on the gate",
			op: protocol.StatusWaitingForApproval, gate: StatusWaiting, reset: StatusSkipped, resetRuns: 0, started: []string{"list"}},
		{name: "an option that is not the gate's is refused and the gate waits",
			decisions: []protocol.Decision{{Gate: "confirm-deletion", Option: "delete everything", Actor: "alice", Roles: admin}},
			op:        protocol.StatusWaitingForApproval, gate: StatusWaiting, reset: StatusSkipped, started: []string{"list"},
			refused: `option "delete everything" is not one of ["delete cluster" "cancel operation"]`},
		{name: "a cancel by an actor without the role is refused and the gate waits",
			decisions: []protocol.Decision{{Gate: "confirm-deletion", Option: "cancel operation", Actor: "dev", Roles: []string{"developer"}}},
			op:        protocol.StatusWaitingForApproval, gate: StatusWaiting, reset: StatusSkipped, started: []string{"list"},
			refused: `actor "dev" has roles ["developer"] but the gate requires one of ["platform_admin"]`},
		{name: "the first accepted decision decides",
			decisions: []protocol.Decision{
				{Gate: "confirm-deletion", Option: "cancel operation", Actor: "alice", Roles: admin},
				{Gate: "confirm-deletion", Option: "delete cluster", Actor: "bob", Roles: admin}},
			op: protocol.StatusCancelled, gate: StatusCancelled, reset: StatusSkipped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := deleteNet()
			e, rec := newTestEngine(n, nil)
			res := mustRun(t, e, deletePlan(), RunInput{OperationID: "op-del", Decisions: tc.decisions})
			if res.Operation.Status != tc.op {
				t.Fatalf("operation got: %s want: %s\n%s", res.Operation.Status, tc.op, statuses(res))
			}
			wantStatus(t, res, "confirm-deletion", tc.gate)
			for _, h := range []string{"m1", "w1"} {
				wantStatus(t, res, "reset["+h+"]", tc.reset)
				if got := n.host(h).runCount("reset[" + h + "]"); got != tc.resetRuns {
					t.Errorf("reset ran %d times on %s want: %d", got, h, tc.resetRuns)
				}
				if tc.resetRuns == 0 && n.host(h).get("reset") != "" {
					t.Errorf("host %s was reset", h)
				}
			}
			started := rec.started()
			slices.Sort(started)
			if !slices.Equal(started, tc.started) {
				t.Errorf("started got: %q want: %q", started, tc.started)
			}
			if tc.refused != "" && (len(res.Waiting) != 1 || !strings.Contains(res.Waiting[0].Refused, tc.refused)) {
				t.Errorf("waiting got: %+v want refused %q", res.Waiting, tc.refused)
			}
			if tc.op == protocol.StatusCancelled {
				if res.Cancelled == nil || res.Cancelled.Gate != "confirm-deletion" || res.Cancelled.Actor != "alice" || res.Cancelled.Option != "cancel operation" {
					t.Errorf("cancelled got: %+v", res.Cancelled)
				}
				if !strings.HasSuffix(lifecycle(res), "Running>Cancelled") || !res.Operation.Status.Terminal() {
					t.Errorf("lifecycle got: %s want: ...Running>Cancelled (final)", lifecycle(res))
				}
				if in := wantStatus(t, res, "list", StatusSkipped); in.Reason != "not started: gate confirm-deletion cancelled the operation" {
					t.Errorf("list reason got: %q", in.Reason)
				}
			} else if res.Cancelled != nil {
				t.Errorf("cancelled got: %+v want: nil", res.Cancelled)
			}
		})
	}
}

// TestCancelAfterFinishedJobs cancels a gate that waits on finished jobs:
// they stay done, nothing behind the gate starts.
func TestCancelAfterFinishedJobs(t *testing.T) {
	n := clusterNet("w1")
	e, rec := newTestEngine(n, nil)
	res := mustRun(t, e, gatedPlan(), RunInput{OperationID: "op-c", Decisions: []protocol.Decision{
		{Gate: "approve-verify", Option: "cancel", Actor: "alice", Roles: []string{"sre"}}}})
	if res.Operation.Status != protocol.StatusCancelled {
		t.Fatalf("got: %s want: Cancelled\n%s", res.Operation.Status, statuses(res))
	}
	wantStatus(t, res, "join[w1]", StatusDone)
	if in := wantStatus(t, res, "verify", StatusSkipped); in.Reason != "needs gate approve-verify whose cancel option was chosen" {
		t.Errorf("verify reason got: %q", in.Reason)
	}
	if slices.Contains(rec.started(), "verify") || n.host("m1").get("verified") != "" {
		t.Errorf("verify ran after the cancel: started %q", rec.started())
	}
}

// TestChosenOptionBindsTheDecision refuses, at apply, a bind or create
// option other than the one the plan was built for; proceed and cancel
// options are not bound to the plan.
func TestChosenOptionBindsTheDecision(t *testing.T) {
	plan := func() *protocol.Plan {
		p := gatedPlan()
		for _, in := range p.Instances {
			if in.Gate != nil {
				in.Gate = &protocol.Gate{ID: "select-s3", Type: protocol.GateProviderSelection, Reason: "two candidates",
					Options: []protocol.GateOption{{ID: "bind a", Effect: protocol.EffectBind, Candidate: "a"}, {ID: "bind b", Effect: protocol.EffectBind, Candidate: "b"},
						protocol.Cancel("cancel operation")}, Chosen: "bind a"}
				in.ID = "select-s3"
			}
		}
		p.Instances[len(p.Instances)-1].Needs = []string{"select-s3"}
		return p
	}
	cases := []struct {
		option string
		op     protocol.OperationStatus
	}{
		{"bind a", protocol.StatusCompleted},
		{"bind b", protocol.StatusWaitingForInput},
		{"cancel operation", protocol.StatusCancelled},
	}
	for _, tc := range cases {
		t.Run(tc.option, func(t *testing.T) {
			e, _ := newTestEngine(clusterNet("w1"), nil)
			res := mustRun(t, e, plan(), RunInput{Decisions: []protocol.Decision{{Gate: "select-s3", Option: tc.option, Actor: "alice"}}})
			if res.Operation.Status != tc.op {
				t.Fatalf("got: %s want: %s\n%s", res.Operation.Status, tc.op, statuses(res))
			}
			if tc.op == protocol.StatusWaitingForInput && !strings.Contains(res.Waiting[0].Refused, `differs from "bind a", the option the plan was built for`) {
				t.Errorf("refused got: %q", res.Waiting[0].Refused)
			}
		})
	}
}
