package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A run cancelled after k instances finished, then run again by a fresh
// engine (no state kept but what is on the hosts), completes with no
// script executed twice, for every cancellation point.
func TestCancelledRunsResumeWithoutRedoingWork(t *testing.T) {
	workers := []string{"w1", "w2", "w3"}
	total := len(clusterPlan(workers...).Instances)
	for k := 1; k < total; k++ {
		t.Run(fmt.Sprint("after ", k), func(t *testing.T) {
			n := clusterNet(workers...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			finished := 0
			e, rec := newTestEngine(n, func(c *Config) { c.Parallelism = 2 })
			rec.on = func(ev Event) {
				if ev.Type == EventInstanceFinished && ev.Status == StatusDone {
					finished++
					if finished == k {
						cancel()
					}
				}
			}
			res, err := e.Run(ctx, clusterPlan(workers...), RunInput{OperationID: "op-r"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Operation.Status != protocol.StatusInterrupted {
				t.Fatalf("first run got: %s want: Interrupted\n%s", res.Operation.Status, statuses(res))
			}
			for _, in := range res.Instances {
				if in.Status == StatusSkipped || in.Status == StatusFailed {
					t.Errorf("%s: got: %s (%s) want: done, running or pending", in.ID, in.Status, in.Reason)
				}
			}
			fresh, _ := newTestEngine(n, nil)
			res2 := mustRun(t, fresh, clusterPlan(workers...), RunInput{OperationID: "op-r", Previous: &res.Operation})
			if res2.Operation.Status != protocol.StatusCompleted {
				t.Fatalf("second run got: %s want: Completed\n%s", res2.Operation.Status, statuses(res2))
			}
			for _, in := range res2.Instances {
				h := n.host(in.Host)
				if got := h.runCount(in.ID); got != 1 {
					t.Errorf("%s ran %d times on %s, want 1", in.ID, got, in.Host)
				}
			}
			if v, ok := res2.SecretValue("kubeadm.join_token", ""); !ok || v != testToken {
				t.Errorf("recovered token got: %q %v", v, ok)
			}
		})
	}
}

// A marker whose evidence no longer holds is drift: the job runs again.
func TestDriftRunsTheJobAgain(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)
	mustRun(t, e, clusterPlan("w1"), RunInput{})
	n.host("w1").set("runtime", "inactive") // someone stopped containerd
	res := mustRun(t, e, clusterPlan("w1"), RunInput{})
	in := wantStatus(t, res, "runtime[w1]", StatusDone)
	if want := "drift: evidence containerd_service_active failed: observed inactive, expected active (no longer holds); ran again"; in.Reason != want {
		t.Errorf("reason got: %q want: %q", in.Reason, want)
	}
	if got := n.host("w1").runCount("runtime[w1]"); got != 2 {
		t.Errorf("runtime[w1] ran %d times want 2", got)
	}
	wantStatus(t, res, "runtime[m1]", StatusSatisfied)
	wantStatus(t, res, "join[w1]", StatusSatisfied)
}

// An interrupted command is cut off after the grace period; the next run
// runs that instance again and nothing else twice.
func TestCancelCutsRunningCommandAfterGrace(t *testing.T) {
	n := clusterNet("w1")
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	n.hook = func(hctx context.Context, host, what string) error {
		if host == "w1" && what == "run" && n.host("w1").get("runtime") == "" {
			close(started)
			<-hctx.Done()
			return hctx.Err()
		}
		return nil
	}
	go func() { <-started; cancel() }()
	e, _ := newTestEngine(n, func(c *Config) { c.GracePeriod = -1 })
	res, err := e.Run(ctx, clusterPlan("w1"), RunInput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operation.Status != protocol.StatusInterrupted {
		t.Fatalf("got: %s want: Interrupted", res.Operation.Status)
	}
	wantStatus(t, res, "runtime[w1]", StatusInterrupted)
	wantStatus(t, res, "verify", StatusPending)
	n.hook = nil
	res = mustRun(t, e, clusterPlan("w1"), RunInput{Previous: &res.Operation})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("resume got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	wantStatus(t, res, "validate", StatusSatisfied)
}
