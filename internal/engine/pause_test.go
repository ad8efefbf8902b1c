package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func timelineStatuses(op protocol.Operation) string {
	var s []string
	for _, e := range op.Timeline {
		if e.Status != "" {
			s = append(s, string(e.Status))
		}
	}
	return strings.Join(s, ">")
}

// A run that stops after stage runtime ends Paused with the later stages
// Pending and not run on the hosts; a fresh engine given the paused
// operation and no pause resumes it (Paused > Running) to Completed with
// no instance run twice.
func TestStopAfterStagePausesAndResumes(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{OperationID: "op-p", StopAfterStage: "runtime"})
	if res.Operation.Status != protocol.StatusPaused {
		t.Fatalf("got: %s want: Paused\n%s", res.Operation.Status, statuses(res))
	}
	for _, id := range []string{"validate", "runtime[m1]", "runtime[w1]"} {
		wantStatus(t, res, id, StatusDone)
	}
	for _, id := range []string{"init[m1]", "join[w1]", "verify"} {
		in := wantStatus(t, res, id, StatusPending)
		if !strings.Contains(in.Reason, "paused after stage runtime") {
			t.Errorf("%s reason got: %q want: paused after stage runtime", id, in.Reason)
		}
	}
	if got := n.host("m1").runCount("init[m1]"); got != 0 {
		t.Fatalf("init[m1] ran %d times during the pause, want 0", got)
	}
	last := res.Operation.Timeline[len(res.Operation.Timeline)-1]
	if !strings.Contains(last.Detail, "resumes it from stage init") {
		t.Errorf("Paused detail got: %q want: the stage resume starts from", last.Detail)
	}

	fresh, _ := newTestEngine(n, nil)
	res2 := mustRun(t, fresh, clusterPlan("w1"), RunInput{Previous: &res.Operation})
	if res2.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("resume got: %s want: Completed\n%s", res2.Operation.Status, statuses(res2))
	}
	if got, want := timelineStatuses(res2.Operation), "DraftIntent>PlanPreview>CapabilityResolution>Running>Paused>Paused>Running>Completed"; got != want {
		t.Errorf("timeline got: %s want: %s", got, want)
	}
	for _, in := range res2.Instances {
		if got := n.host(in.Host).runCount(in.ID); got != 1 {
			t.Errorf("%s ran %d times on %s, want 1", in.ID, got, in.Host)
		}
	}
}

// A pause after the last stage holds nothing: the run completes.
func TestStopAfterLastStageCompletes(t *testing.T) {
	e, _ := newTestEngine(clusterNet("w1"), nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{StopAfterStage: "verify"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
}

// A failure before the pause wins: the operation is Failed, not Paused.
func TestStopAfterStageFailureBeforeIsFailed(t *testing.T) {
	n := clusterNet("w1")
	n.host("w1").set("break:runtime", "1")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{StopAfterStage: "runtime"})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("got: %s want: Failed\n%s", res.Operation.Status, statuses(res))
	}
}

// A stage the plan does not have is refused before anything runs.
func TestStopAfterUnknownStageRefused(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)
	_, err := e.Run(context.Background(), clusterPlan("w1"), RunInput{StopAfterStage: "nope"})
	if err == nil || !strings.Contains(err.Error(), `stop after stage "nope"`) {
		t.Fatalf("got: %v want: an error naming the stage", err)
	}
	if got := n.host("m1").runCount("validate"); got != 0 {
		t.Fatalf("validate ran %d times, want 0", got)
	}
}
