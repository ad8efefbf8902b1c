package engine

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Whether a job succeeds, fails or finds its marker satisfied, on either
// path, its run directory is gone when the run ends; the first preparation
// of a host removes what an earlier run left there.
func TestRunDirectoriesRemovedOnEveryOutcome(t *testing.T) {
	for _, stepByStep := range []bool{false, true} {
		t.Run(map[bool]string{false: "one-session", true: "step-by-step"}[stepByStep], func(t *testing.T) {
			n := clusterNet("w1", "w2")
			n.host("w2").set("break:join", "join broke")
			n.host("w1").put("/var/lib/cp/run/op-old/join@w1/in/kubeadm.join_token", []byte("stale"))
			e, _ := newTestEngine(n, func(c *Config) { c.StateBecome = stepByStep })
			plan := clusterPlan("w1", "w2")
			res := mustRun(t, e, plan, RunInput{OperationID: "op-1"})
			wantStatus(t, res, "join[w1]", StatusDone)
			wantStatus(t, res, "join[w2]", StatusFailed)
			for _, h := range []string{"m1", "w1", "w2"} {
				if left := n.host(h).under("/var/lib/cp/run"); len(left) != 0 {
					t.Errorf("host %s keeps under /var/lib/cp/run: %v", h, left)
				}
			}
			res = mustRun(t, e, plan, RunInput{OperationID: "op-2"})
			wantStatus(t, res, "join[w1]", StatusSatisfied)
			if res.Operation.Status != protocol.StatusFailed {
				t.Errorf("second run got: %s want: Failed (join[w2] still broken)", res.Operation.Status)
			}
			for _, h := range []string{"m1", "w1", "w2"} {
				if left := n.host(h).under("/var/lib/cp/run"); len(left) != 0 {
					t.Errorf("second run: host %s keeps under /var/lib/cp/run: %v", h, left)
				}
			}
		})
	}
}
