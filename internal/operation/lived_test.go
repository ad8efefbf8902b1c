package operation

import (
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// Every move of the lifecycle, from every status to every status: the
// legal ones are accepted and recorded, every other one is refused and
// leaves the operation as it was.
func TestEveryTransition(t *testing.T) {
	S := func(s ...protocol.OperationStatus) []protocol.OperationStatus { return s }
	legal := map[protocol.OperationStatus][]protocol.OperationStatus{
		protocol.StatusDraftIntent:          S(protocol.StatusPlanPreview),
		protocol.StatusPlanPreview:          S(protocol.StatusCapabilityResolution),
		protocol.StatusCapabilityResolution: S(protocol.StatusWaitingForInput, protocol.StatusWaitingForApproval, protocol.StatusRunning),
		protocol.StatusWaitingForInput:      S(protocol.StatusCapabilityResolution),
		protocol.StatusWaitingForApproval:   S(protocol.StatusRunning),
		protocol.StatusRunning: S(protocol.StatusPaused, protocol.StatusFailed, protocol.StatusCompleted, protocol.StatusWaitingForApproval,
			protocol.StatusWaitingForInput, protocol.StatusInterrupted, protocol.StatusCancelled),
		protocol.StatusPaused:          S(protocol.StatusRunning),
		protocol.StatusFailed:          S(protocol.StatusDiagnosing, protocol.StatusRunning, protocol.StatusVerification),
		protocol.StatusDiagnosing:      S(protocol.StatusPlanPatchReview, protocol.StatusFailed),
		protocol.StatusPlanPatchReview: S(protocol.StatusRunning, protocol.StatusFailed),
		protocol.StatusVerification:    S(protocol.StatusRunning, protocol.StatusFailed),
		protocol.StatusInterrupted:     S(protocol.StatusRunning),
		protocol.StatusCompleted:       nil,
		protocol.StatusCancelled:       nil,
	}
	for _, from := range protocol.Statuses {
		for _, to := range protocol.Statuses {
			want := false
			for _, s := range legal[from] {
				want = want || s == to
			}
			op := &protocol.Operation{ID: "op", Status: from}
			err := op.Transition(to, t0, "d")
			switch {
			case want && err != nil:
				t.Errorf("%s -> %s: got: %v want: accepted", from, to, err)
			case want && (op.Status != to || len(op.Timeline) != 1 || op.Timeline[0].Status != to):
				t.Errorf("%s -> %s: got: status %s, %d entries want: %s recorded", from, to, op.Status, len(op.Timeline), to)
			case !want && err == nil:
				t.Errorf("%s -> %s: got: accepted want: refused", from, to)
			case !want && (op.Status != from || len(op.Timeline) != 0):
				t.Errorf("%s -> %s refused: got: status %s, %d entries want: unchanged", from, to, op.Status, len(op.Timeline))
			}
		}
	}
}

func statusesOf(op *protocol.Operation) string {
	var s []string
	for _, e := range op.Timeline {
		s = append(s, string(e.Status))
	}
	return strings.Join(s, ">")
}

func testPlan() *protocol.Plan {
	job := &protocol.Job{ID: "j"}
	return &protocol.Plan{ID: "plan-1", Template: "t.create@1.0.0", Intent: protocol.Intent{ID: "i-1"},
		Stages:    []protocol.PlanStage{{ID: "a"}, {ID: "b"}},
		Instances: []*protocol.JobInstance{{ID: "j[a]", Job: job, Stage: "a"}, {ID: "g", Gate: &protocol.Gate{ID: "g"}, Stage: "b"}}}
}

func TestPlannedRecordsWhatWasLived(t *testing.T) {
	p := Planning{Drafted: t0, Composed: t0.Add(time.Second), Resolved: t0.Add(2 * time.Second), Intent: "t create of x on 1 host", Resolution: "none"}
	op, err := Planned("op-1", testPlan(), "ci", p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := statusesOf(op), "DraftIntent>PlanPreview>CapabilityResolution"; got != want {
		t.Fatalf("got: %s want: %s", got, want)
	}
	for i, at := range []time.Time{p.Drafted, p.Composed, p.Resolved} {
		if !op.Timeline[i].At.Equal(at) {
			t.Errorf("entry %d at got: %s want: %s", i, op.Timeline[i].At, at)
		}
	}
	if !strings.Contains(op.Timeline[1].Detail, "1 job(s) in 2 stage(s)") || op.Timeline[0].Detail != p.Intent || op.IntentID != "i-1" {
		t.Errorf("details got: %+v", op.Timeline)
	}
}

func failedOp() *protocol.Operation {
	return &protocol.Operation{ID: "op-1", Status: protocol.StatusFailed, Timeline: []protocol.TimelineEntry{{Status: protocol.StatusFailed}}}
}

func TestDiagnosed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		op        *protocol.Operation
		proposals []Proposal
		want      string
		err       bool
	}{
		{name: "patch proposed", op: failedOp(), proposals: []Proposal{{Patch: "p1", Author: "diagnose:rule/x", Job: "init[m1]"}}, want: "Failed>Diagnosing>PlanPatchReview"},
		{name: "no patch", op: failedOp(), want: "Failed>Diagnosing>Failed"},
		{name: "not failed", op: &protocol.Operation{ID: "op-1", Status: protocol.StatusCompleted}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Diagnosed(tc.op, []string{"init[m1]"}, tc.proposals, t0)
			if tc.err {
				if err == nil {
					t.Fatal("got: nil want: refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := statusesOf(tc.op); got != tc.want {
				t.Fatalf("got: %s want: %s", got, tc.want)
			}
			if len(tc.proposals) > 0 && proposedPatch(tc.op) != "p1" {
				t.Errorf("proposed patch got: %q want: p1", proposedPatch(tc.op))
			}
		})
	}
}

func TestContinue(t *testing.T) {
	planned, _ := Planned("op-1", testPlan(), "ci", Planning{Drafted: t0, Composed: t0, Resolved: t0})
	review := failedOp()
	_ = Diagnosed(review, []string{"j[a]"}, []Proposal{{Patch: "p1"}}, t0)
	diagnosing := failedOp()
	_ = diagnosing.Transition(protocol.StatusDiagnosing, t0, "")
	withPatch := testPlan()
	withPatch.Patches = []protocol.PlanPatch{{ID: "p1"}}
	other := *failedOp()
	other.ID = "op-2"
	for _, tc := range []struct {
		name string
		prev *protocol.Operation
		plan *protocol.Plan
		want string // statuses of the record continued
		new  bool   // the planned record is returned
	}{
		{name: "none kept", prev: nil, plan: testPlan(), new: true},
		{name: "another operation", prev: &other, plan: testPlan(), new: true},
		{name: "completed", prev: &protocol.Operation{ID: "op-1", Status: protocol.StatusCompleted}, plan: testPlan(), new: true},
		{name: "cancelled", prev: &protocol.Operation{ID: "op-1", Status: protocol.StatusCancelled}, plan: testPlan(), new: true},
		{name: "paused", prev: &protocol.Operation{ID: "op-1", Status: protocol.StatusPaused, Timeline: []protocol.TimelineEntry{{Status: protocol.StatusPaused}}}, plan: testPlan(), want: "Paused"},
		{name: "failed", prev: failedOp(), plan: testPlan(), want: "Failed"},
		{name: "patch taken", prev: review, plan: withPatch, want: "Failed>Diagnosing>PlanPatchReview"},
		{name: "patch not taken", prev: review, plan: testPlan(), want: "Failed>Diagnosing>PlanPatchReview>Failed"},
		{name: "diagnosis unfinished", prev: diagnosing, plan: testPlan(), want: "Failed>Diagnosing>Failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before string
			if tc.prev != nil {
				before = statusesOf(tc.prev)
			}
			got, err := Continue(tc.prev, planned, tc.plan, t0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.new {
				if got != planned {
					t.Fatalf("got: %s want: the planned record", statusesOf(got))
				}
				return
			}
			if s := statusesOf(got); s != tc.want {
				t.Fatalf("got: %s want: %s", s, tc.want)
			}
			if got.PlanID != tc.plan.ID {
				t.Errorf("plan id got: %s want: %s", got.PlanID, tc.plan.ID)
			}
			if statusesOf(tc.prev) != before {
				t.Errorf("prev was modified: %s", statusesOf(tc.prev))
			}
		})
	}
}

func TestKeptRoundTrip(t *testing.T) {
	k := Kept{Operation: *failedOp(), Action: "create", IDParts: []string{"a"}, PausedAfter: "b"}
	b, err := k.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeKept(b)
	if err != nil || got.Action != "create" || got.PausedAfter != "b" || got.Operation.Status != protocol.StatusFailed {
		t.Fatalf("got: %+v, %v", got, err)
	}
	if k, err := DecodeKept(nil); k != nil || err != nil {
		t.Fatalf("empty got: %v %v want: none", k, err)
	}
	for _, bad := range []string{`{`, `{"operation":{"id":"x","status":"Sleeping"}}`, `{"operation":{"status":"Failed"}}`} {
		if _, err := DecodeKept([]byte(bad)); err == nil {
			t.Errorf("%s: got: nil error want: refused", bad)
		}
	}
}
