package engine

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestStartOrderIsPlanOrderWithParallelismOne(t *testing.T) {
	for range 5 {
		n := clusterNet("w1", "w2")
		e, rec := newTestEngine(n, func(c *Config) { c.Parallelism = 1 })
		mustRun(t, e, clusterPlan("w1", "w2"), RunInput{})
		got := strings.Join(rec.started(), " ")
		want := "validate runtime[m1] runtime[w1] runtime[w2] init[m1] join[w1] join[w2] verify"
		if got != want {
			t.Fatalf("start order got: %s want: %s", got, want)
		}
	}
}

// join[w1] must start as soon as its own needs are done, while runtime[w2]
// (same stage, another host) is still running.
func TestInstancesStartPerInstanceNotPerStage(t *testing.T) {
	n := clusterNet("w1", "w2")
	release := make(chan struct{})
	joined := make(chan struct{})
	base := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		if h.name == "w2" && strings.Contains(content, "runtime") {
			<-release // held until join[w1] has finished
		}
		code := base(h, content, env, out)
		if h.name == "w1" && strings.Contains(content, "join") {
			close(joined)
		}
		return code
	}
	go func() { <-joined; close(release) }()
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1", "w2"), RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
}

// concurrency tracks the most instances seen running at once per key.
type concurrency struct {
	mu      sync.Mutex
	now, hi map[string]int
}

func (c *concurrency) enter(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.now[k]++
		c.hi[k] = max(c.hi[k], c.now[k])
	}
}

func (c *concurrency) leave(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.now[k]--
	}
}

func TestLimitsPerHostPerJobAndGlobal(t *testing.T) {
	for range 10 {
		hosts := []string{"h1", "h2", "h3", "h4"}
		n := newMemNet(hosts...)
		c := &concurrency{now: map[string]int{}, hi: map[string]int{}}
		n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
			keys := []string{"all", "host:" + h.name, content}
			c.enter(keys...)
			for range 200 { // give others a chance to overlap
				c.mu.Lock()
				c.mu.Unlock()
			}
			c.leave(keys...)
			return 0
		}
		p := &protocol.Plan{ID: "limits"}
		rolling := newJob("rolling")
		rolling.Controls.Serial = 1
		for _, h := range hosts {
			p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Role: "worker"})
			for _, j := range []string{"a", "b", "c", "d"} {
				p.Instances = append(p.Instances, newInst(newJob(j), "s", h))
			}
			p.Instances = append(p.Instances, newInst(rolling, "s", h))
		}
		e, _ := newTestEngine(n, func(cfg *Config) { cfg.Parallelism = 5; cfg.PerHost = 2 })
		res := mustRun(t, e, p, RunInput{})
		if res.Operation.Status != protocol.StatusCompleted {
			t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
		}
		if c.hi["all"] > 5 {
			t.Errorf("global: got: %d at once want: <= 5", c.hi["all"])
		}
		for _, h := range hosts {
			if c.hi["host:"+h] > 2 {
				t.Errorf("host %s: got: %d at once want: <= 2", h, c.hi["host:"+h])
			}
		}
		if got := c.hi["script:scripts/rolling.sh"]; got != 1 {
			t.Errorf("serial job: got: %d at once want: 1", got)
		}
	}
}

func TestInvalidPlansAreRefused(t *testing.T) {
	j := newJob("a")
	cases := map[string]struct {
		p    *protocol.Plan
		want string
	}{
		"unknown need": {&protocol.Plan{ID: "p", Instances: []*protocol.JobInstance{newInst(j, "s", "h", "ghost")}}, `needs "ghost", which is not in the plan`},
		"cycle": {&protocol.Plan{ID: "p", Instances: []*protocol.JobInstance{
			{ID: "x", JobID: "a", Host: "h", Job: j, Needs: []string{"y"}}, {ID: "y", JobID: "a", Host: "h", Job: j, Needs: []string{"x"}}}}, "cycle"},
		"no host":   {&protocol.Plan{ID: "p", Instances: []*protocol.JobInstance{newInst(j, "s", "")}}, "no host"},
		"duplicate": {&protocol.Plan{ID: "p", Instances: []*protocol.JobInstance{newInst(j, "s", "h"), newInst(j, "s", "h")}}, "used twice"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, _ := newTestEngine(newMemNet("h"), nil)
			_, err := e.Run(t.Context(), tc.p, RunInput{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v want: an error containing %q", err, tc.want)
			}
		})
	}
}
