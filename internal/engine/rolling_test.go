package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var rollHosts = []string{"h1", "h2", "h3", "h4"}

// rollingPlan has a serial job roll on h1..h4 (plan order) and, on each
// host, after that needs roll there.
func rollingPlan(serial, maxFailures int) *protocol.Plan {
	p := &protocol.Plan{ID: "rolling", Template: "test.upgrade@1.0.0"}
	roll := newJob("roll", evidence("rolled", "state rolled", "yes"))
	roll.Controls.Serial, roll.Controls.MaxFailures = serial, maxFailures
	after := newJob("after", evidence("after", "state after", "yes"))
	for _, h := range rollHosts {
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Role: protocol.RoleWorker})
		p.Instances = append(p.Instances, newInst(roll, "roll", h))
	}
	for _, h := range rollHosts {
		p.Instances = append(p.Instances, newInst(after, "after", h, "roll["+h+"]"))
	}
	return p
}

// rollingNet fails roll on the hosts in broken. roll on host n waits
// until roll on host n-1 has finished in the scheduler (its
// instance.finished event), so that with serial 2 the outcome of the
// earlier host is counted before the later one ends: the runs are
// deterministic while two instances are started at once.
func rollingNet(rec *recorder, broken ...string) *memNet {
	n := newMemNet(rollHosts...)
	var mu sync.Mutex
	finished := map[string]chan struct{}{}
	ch := func(id string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if finished[id] == nil {
			finished[id] = make(chan struct{})
		}
		return finished[id]
	}
	rec.on = func(e Event) {
		if e.Type == EventInstanceFinished && strings.HasPrefix(e.Instance, "roll[") {
			close(ch(e.Instance))
		}
	}
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		job := strings.TrimSuffix(strings.TrimPrefix(content, "script:scripts/"), ".sh")
		if job == "after" {
			h.set("after", "yes")
			return 0
		}
		if i := slices.Index(rollHosts, h.name); i > 0 {
			select {
			case <-ch("roll[" + rollHosts[i-1] + "]"):
			case <-time.After(10 * time.Second):
				fmt.Fprintln(out, "the previous host never finished")
				return 2
			}
		}
		if slices.Contains(broken, h.name) {
			fmt.Fprintf(out, "roll broke on %s\n", h.name)
			return 1
		}
		h.set("rolled", "yes")
		return 0
	}
	n.check = func(h *memHost, cmd string, env map[string]string) (string, int) {
		if key, ok := strings.CutPrefix(cmd, "state "); ok {
			return h.get(key) + "\n", 0
		}
		return "unknown command " + cmd, 127
	}
	return n
}

// A serial job stops rolling at its first failed host unless
// controls.max_failures allows more: hosts after the stop are not
// started (skipped, "not run"), and neither is what needs them; with
// serial 2 the instance already running next to the failed one finishes.
func TestRollingStopsAtFailures(t *testing.T) {
	const (
		done   = StatusDone
		failed = StatusFailed
		notRun = StatusSkipped
	)
	cases := []struct {
		name        string
		serial, max int
		broken      []string
		want        []Status // roll on h1..h4
		reason      string   // of the instances not run
		stop        string   // Result.RollingStops, as "job failed/max: not run"
		overlap     bool     // roll[h2] started before roll[h1] finished
	}{
		{name: "serial 1, 0 failures allowed: stops at the first failed host", serial: 1, max: 0, broken: []string{"h2"},
			want: []Status{done, failed, notRun, notRun}, reason: "not run: rolling job roll stopped at its first failed host (roll[h2]); controls.max_failures is 0",
			stop: "roll roll[h2]/0: roll[h3] roll[h4]"},
		{name: "serial 1, 1 failure allowed: goes on past one", serial: 1, max: 1, broken: []string{"h2"},
			want: []Status{done, failed, done, done}},
		{name: "serial 1, 1 failure allowed: stops at the second", serial: 1, max: 1, broken: []string{"h2", "h3"},
			want: []Status{done, failed, failed, notRun}, reason: "not run: rolling job roll stopped after 2 failed hosts (roll[h2], roll[h3]), more than controls.max_failures 1",
			stop: "roll roll[h2] roll[h3]/1: roll[h4]"},
		{name: "serial 2, 0 failures allowed: the running one finishes, the rest do not start", serial: 2, max: 0, broken: []string{"h1"},
			want: []Status{failed, done, notRun, notRun}, reason: "not run: rolling job roll stopped at its first failed host (roll[h1]); controls.max_failures is 0", overlap: true,
			stop: "roll roll[h1]/0: roll[h3] roll[h4]"},
		{name: "serial 2, 1 failure allowed: stops after the second", serial: 2, max: 1, broken: []string{"h1", "h2"},
			want: []Status{failed, failed, done, notRun}, reason: "not run: rolling job roll stopped after 2 failed hosts (roll[h1], roll[h2]), more than controls.max_failures 1", overlap: true,
			stop: "roll roll[h1] roll[h2]/1: roll[h4]"},
		{name: "serial 2, nothing fails", serial: 2, max: 0,
			want: []Status{done, done, done, done}, overlap: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			n := rollingNet(rec, tc.broken...)
			e, _ := newTestEngine(n, func(c *Config) { c.Sinks = []Sink{rec}; c.Parallelism = 8; c.PerHost = 2 })
			res := mustRun(t, e, rollingPlan(tc.serial, tc.max), RunInput{})
			for i, h := range rollHosts {
				roll, _ := res.Instance("roll[" + h + "]")
				after, _ := res.Instance("after[" + h + "]")
				if roll.Status != tc.want[i] {
					t.Errorf("roll[%s] got: %s (%s) want: %s", h, roll.Status, roll.Reason, tc.want[i])
				}
				if tc.want[i] == notRun {
					if roll.Reason != tc.reason {
						t.Errorf("roll[%s] reason got: %q want: %q", h, roll.Reason, tc.reason)
					}
					if runs := n.host(h).runCount("roll[" + h + "]"); runs != 0 {
						t.Errorf("roll[%s] got: %d runs want: none (not started)", h, runs)
					}
				}
				wantAfter := StatusDone
				if tc.want[i] != done {
					wantAfter = StatusSkipped
				}
				if after.Status != wantAfter {
					t.Errorf("after[%s] got: %s (%s) want: %s", h, after.Status, after.Reason, wantAfter)
				}
			}
			wantOp := protocol.StatusCompleted
			if len(tc.broken) > 0 {
				wantOp = protocol.StatusFailed
			}
			if res.Operation.Status != wantOp {
				t.Errorf("operation got: %s want: %s", res.Operation.Status, wantOp)
			}
			var stops []string
			for _, rs := range res.RollingStops {
				stops = append(stops, fmt.Sprintf("%s %s/%d: %s", rs.Job, strings.Join(rs.Failed, " "), rs.MaxFailures, strings.Join(rs.NotRun, " ")))
			}
			if got := strings.Join(stops, "; "); got != tc.stop {
				t.Errorf("rolling stops got: %q want: %q", got, tc.stop)
			}
			if got := startedBeforeFinished(rec, "roll[h2]", "roll[h1]"); got != tc.overlap {
				t.Errorf("roll[h2] started before roll[h1] finished got: %v want: %v (serial %d)", got, tc.overlap, tc.serial)
			}
		})
	}
}

// startedBeforeFinished says whether instance a started before b finished.
func startedBeforeFinished(rec *recorder, a, b string) bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, e := range rec.events {
		switch {
		case e.Type == EventInstanceStarted && e.Instance == a:
			return true
		case e.Type == EventInstanceFinished && e.Instance == b:
			return false
		}
	}
	return false
}
