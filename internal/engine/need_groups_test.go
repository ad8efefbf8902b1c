package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
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

func TestGroupNeedWithOtherNeedsWaitsForAllOfThem(t *testing.T) {
	workers := []string{"w1", "w2"}
	p := groupPlan(workers...)
	in, _ := p.Instance("verify")
	in.Needs = []string{protocol.GroupNeed("join"), protocol.GroupNeed("runtime"), "init[m1]", "join[w1]"}
	e, rec := newTestEngine(clusterNet(workers...), nil)
	res := mustRun(t, e, p, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
	}
	started := rec.started()
	v := slices.Index(started, "verify")
	for _, id := range []string{"runtime[m1]", "runtime[w1]", "runtime[w2]", "init[m1]", "join[w1]", "join[w2]"} {
		if j := slices.Index(started, id); j < 0 || j > v {
			t.Errorf("%s started at %d, verify at %d: want it before verify (%v)", id, j, v, started)
		}
	}
	if v != len(started)-1 {
		t.Errorf("verify started at %d of %d, want last (%v)", v, len(started), started)
	}
}

func TestGroupNeedSkipsWhenAMemberOfTheGroupIsSkipped(t *testing.T) {
	workers := []string{"w1", "w2", "w3"}
	n := clusterNet(workers...)
	n.hosts["w2"].set("break:runtime", "runtime broke")
	p := groupPlan(workers...)
	after := newInst(newJob("report"), "verify", "m1", "verify")
	p.Instances = append(p.Instances, after)
	e, rec := newTestEngine(n, nil)
	res := mustRun(t, e, p, RunInput{})
	wantStatus(t, res, "runtime[w2]", StatusFailed)
	wantStatus(t, res, "join[w2]", StatusSkipped)
	wantStatus(t, res, "join[w1]", StatusDone)
	for _, id := range []string{"verify", "report[m1]"} {
		v := wantStatus(t, res, id, StatusSkipped)
		if !strings.Contains(v.Reason, "runtime[w2]") {
			t.Errorf("%s skipped because %q, want the root cause runtime[w2] named", id, v.Reason)
		}
	}
	finished := 0
	for _, ev := range rec.events {
		if ev.Type == EventInstanceFinished && ev.Instance == "verify" {
			finished++
		}
	}
	if finished != 1 {
		t.Errorf("verify finished %d times, want once", finished)
	}
}

func TestGroupNeedSkipsOnceWhenSeveralMembersFail(t *testing.T) {
	workers := []string{"w1", "w2", "w3"}
	n := clusterNet(workers...)
	n.hosts["w1"].set("break:join", "join broke")
	n.hosts["w3"].set("break:join", "join broke")
	e, rec := newTestEngine(n, nil)
	res := mustRun(t, e, groupPlan(workers...), RunInput{})
	wantStatus(t, res, "join[w1]", StatusFailed)
	wantStatus(t, res, "join[w2]", StatusDone)
	wantStatus(t, res, "join[w3]", StatusFailed)
	v := wantStatus(t, res, "verify", StatusSkipped)
	if !strings.Contains(v.Reason, "join[w1]") && !strings.Contains(v.Reason, "join[w3]") {
		t.Errorf("verify skipped because %q, want a failed join named", v.Reason)
	}
	finished := 0
	for _, ev := range rec.events {
		if ev.Type == EventInstanceFinished && ev.Instance == "verify" {
			finished++
		}
	}
	if finished != 1 {
		t.Errorf("verify finished %d times, want once", finished)
	}
}

func TestGroupNeedOfItsOwnGroupIsRefused(t *testing.T) {
	p := groupPlan("w1", "w2")
	in, _ := p.Instance("join[w2]")
	in.Needs = append(in.Needs, protocol.GroupNeed("join"))
	e, _ := newTestEngine(clusterNet("w1", "w2"), nil)
	_, err := e.Run(t.Context(), p, RunInput{})
	if err == nil || !strings.Contains(err.Error(), "instance join[w2] needs itself") {
		t.Errorf("got: %v want: join[w2] refused for needing its own group", err)
	}
}

func TestGroupNeedCycleIsRefused(t *testing.T) {
	p := groupPlan("w1", "w2")
	in, _ := p.Instance("init[m1]")
	in.Needs = append(in.Needs, protocol.GroupNeed("join")) // join needs init[m1]
	e, _ := newTestEngine(clusterNet("w1", "w2"), nil)
	_, err := e.Run(t.Context(), p, RunInput{})
	if err == nil || !strings.Contains(err.Error(), "the needs form a cycle through instance init[m1]") {
		t.Errorf("got: %v want: the cycle through init[m1] named", err)
	}
}

// An artifact produced by a member of a group the consumer needs whole is
// one of the consumer's direct needs: it is preferred to an earlier
// producer the consumer does not need.
func TestArtifactOfAGroupMemberIsADirectNeed(t *testing.T) {
	p := &protocol.Plan{ID: "plan-art", Intent: protocol.Intent{Hosts: []protocol.Host{{Name: "h1"}, {Name: "h2"}}}}
	other, mine, use := newJob("other"), newJob("mine"), newJob("use")
	p.Instances = []*protocol.JobInstance{newInst(other, "s", "h1"), newInst(mine, "s", "h2"), newInst(use, "s", "h1", protocol.GroupNeed("mine"))}
	r := &run{plan: p, cfg: &Config{}}
	if err := r.buildStates(); err != nil {
		t.Fatal(err)
	}
	store, err := newArtifactStore(&transport.Redactor{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.add(protocol.Artifact{ID: "tok", Sensitivity: protocol.SensitivityPublic}, []byte("other"), 0)
	store.add(protocol.Artifact{ID: "tok", Sensitivity: protocol.SensitivityPublic}, []byte("mine"), 1)
	consumer := r.byID["use[h1]"]
	sa := store.pick(protocol.ArtifactRef{ID: "tok"}, "h1", func(i int) bool { return directNeed(consumer, r.states[i]) })
	if sa == nil || string(sa.value) != "mine" {
		t.Errorf("got: %v want: the artifact of mine[h2], the group the consumer needs", sa)
	}
	if directNeed(consumer, r.byID["other[h1]"]) {
		t.Error("other[h1] counted as a need of use[h1]")
	}
}
