package engine

import (
	"container/heap"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// meshPlan is a full mesh over n hosts, as the planner writes it: keys on
// every host, then mesh on every host needing every keys instance as one
// group need ("keys[*]"), then one verify needing every mesh instance.
// Expanded to one edge per member it has n*n+n edges.
func meshPlan(n int) *protocol.Plan {
	p := &protocol.Plan{ID: fmt.Sprintf("mesh-%d", n), Title: "mesh"}
	keys := newJob("keys", evidence("keys_written", "state keys", "yes"))
	mesh := newJob("mesh", evidence("peers_up", "state mesh", "yes"))
	verify := newJob("verify", evidence("mesh_ready", "state verified", "yes"))
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("node-%05d", i)
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: hosts[i], Role: protocol.RoleWorker})
	}
	for _, h := range hosts {
		p.Instances = append(p.Instances, newInst(keys, "mesh", h))
	}
	for _, h := range hosts {
		p.Instances = append(p.Instances, newInst(mesh, "mesh", h, protocol.GroupNeed("keys")))
	}
	p.Instances = append(p.Instances, newInst(verify, "mesh", hosts[0], protocol.GroupNeed("mesh")))
	return p
}

// scheduleAll indexes p (buildStates) and runs the scheduler's release of
// dependents alone: every instance handed to its host's queue is taken in
// queue order, marked done and settled, until none is left. It returns the
// plan indexes in the order they ran.
func scheduleAll(tb testing.TB, p *protocol.Plan) []int {
	r := &run{plan: p, cfg: &Config{Parallelism: 50, PerHost: 2}}
	if err := r.buildStates(); err != nil {
		tb.Fatal(err)
	}
	s := &scheduler{r: r, hostQ: make([]intHeap, len(r.hosts)), hostFree: make([]int, len(r.hosts))}
	for _, st := range r.states {
		if st.pending == 0 {
			s.ready(st)
		}
	}
	ran := make([]int, 0, len(r.states))
	for more := true; more; {
		more = false
		for h := range s.hostQ {
			for s.hostQ[h].Len() > 0 {
				st := r.states[heap.Pop(&s.hostQ[h]).(int)]
				st.decided = true
				st.res.Status = StatusDone
				s.settle(st)
				ran = append(ran, st.idx)
				more = true
			}
		}
		s.hosts = s.hosts[:0]
	}
	return ran
}

// BenchmarkScheduleMesh measures what indexing and scheduling a full mesh
// of 100, 1,000 and 5,000 hosts costs the engine (B/op, allocs/op): the
// cost of its needs, with no transport.
func BenchmarkScheduleMesh(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		p := meshPlan(n)
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ran := scheduleAll(b, p); len(ran) != len(p.Instances) {
					b.Fatalf("ran %d of %d instances", len(ran), len(p.Instances))
				}
			}
		})
	}
}

// BenchmarkRunMesh runs the same mesh through the whole engine on the
// memory transport (every script and evidence succeeds), for 100, 1,000
// and 5,000 hosts: what apply costs beyond the scheduler (B/op, allocs/op).
func BenchmarkRunMesh(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		p := meshPlan(n)
		hosts := make([]string, n)
		for i, h := range p.Intent.Hosts {
			hosts[i] = h.Name
		}
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				net := newMemNet(hosts...)
				net.check = func(*memHost, string, map[string]string) (string, int) { return "yes\n", 0 }
				e := New(Config{Dialer: net, Scripts: memScripts, Parallelism: 50, PerHost: 2, Clock: fixedClock(),
					Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }, Actor: "bench"})
				res, err := e.Run(context.Background(), p, RunInput{})
				if err != nil || res.Operation.Status != protocol.StatusCompleted {
					b.Fatalf("run: %v %s: %v", err, res.Operation.Status, res.Err())
				}
			}
		})
	}
}

// TestScheduleMeshRunsEveryInstanceInOrder checks the benchmark's harness
// and the release of group needs: every instance runs once, each mesh
// instance after every keys instance, verify last.
func TestScheduleMeshRunsEveryInstanceInOrder(t *testing.T) {
	const n = 20
	p := meshPlan(n)
	ran := scheduleAll(t, p)
	if len(ran) != len(p.Instances) {
		t.Fatalf("ran %d of %d instances: %v", len(ran), len(p.Instances), ran)
	}
	at := make([]int, len(p.Instances))
	for pos, i := range ran {
		at[i] = pos
	}
	for m := n; m < 2*n; m++ {
		for k := range n {
			if at[k] > at[m] {
				t.Errorf("%s ran at %d, before %s at %d", p.Instances[m].ID, at[m], p.Instances[k].ID, at[k])
			}
		}
		if at[m] > at[2*n] {
			t.Errorf("verify ran at %d, before %s at %d", at[2*n], p.Instances[m].ID, at[m])
		}
	}
	if ran[len(ran)-1] != 2*n {
		t.Errorf("verify ran at %d, want last", at[2*n])
	}
}
