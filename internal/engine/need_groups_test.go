package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// groupPlan is clusterPlan whose verify waits for "join[*]", every
// instance of the join group, as one group need.
func groupPlan(workers ...string) *protocol.Plan {
	p := clusterPlan(workers...)
	in, _ := p.Instance("verify")
	in.Needs = []string{protocol.GroupNeed("join")}
	return p
}

func TestGroupNeedWaitsForEveryInstanceOfTheGroup(t *testing.T) {
	workers := []string{"w1", "w2", "w3"}
	e, rec := newTestEngine(clusterNet(workers...), nil)
	res := mustRun(t, e, groupPlan(workers...), RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
	}
	started := rec.started()
	v := slices.Index(started, "verify")
	for _, w := range workers {
		if j := slices.Index(started, "join["+w+"]"); j < 0 || j > v {
			t.Errorf("join[%s] started at %d, verify at %d: want every join before verify (%v)", w, j, v, started)
		}
	}
}

func TestGroupNeedSkipsWhenOneInstanceOfTheGroupFails(t *testing.T) {
	workers := []string{"w1", "w2", "w3"}
	n := clusterNet(workers...)
	n.hosts["w2"].set("break:join", "join broke")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, groupPlan(workers...), RunInput{})
	wantStatus(t, res, "join[w1]", StatusDone)
	wantStatus(t, res, "join[w2]", StatusFailed)
	v := wantStatus(t, res, "verify", StatusSkipped)
	if !strings.Contains(v.Reason, "join[w2]") {
		t.Errorf("verify skipped because %q, want it to name join[w2]", v.Reason)
	}
}

func TestGroupNeedOfNoInstanceIsRefused(t *testing.T) {
	p := groupPlan("w1")
	in, _ := p.Instance("verify")
	in.Needs = []string{protocol.GroupNeed("ghost")}
	e, _ := newTestEngine(clusterNet("w1"), nil)
	_, err := e.Run(t.Context(), p, RunInput{})
	if err == nil || !strings.Contains(err.Error(), `instance verify needs every instance of job group ghost ("ghost[*]"), which has no instance in the plan`) {
		t.Errorf("got: %v want: the unknown group named", err)
	}
}
