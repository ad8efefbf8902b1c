package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// markScript counts its runs in the host's marks file; workScript records
// "<instance> <pid>" in starts, says where it works, and sleeps
// CP_PARAM_SLEEP. Both name $0, so they are executed and their pid is
// their own.
const (
	markScript = `#!/bin/sh
: "$0"
echo "$CP_INSTANCE" >>"$HOST_ROOT/marks"
echo yes >"$HOST_ROOT/marked"
`
	workScript = `#!/bin/sh
: "$0"
echo "$CP_INSTANCE $$" >>"$HOST_ROOT/starts"
echo "working on $CP_HOST"
sleep "$CP_PARAM_SLEEP"
echo yes >"$HOST_ROOT/worked"
`
)

// timeoutPlan runs mark then work on every host of e; work sleeps sleep
// seconds.
func timeoutPlan(e *lockEnv, sleep string) *protocol.Plan {
	p := e.plan("p-timeout", nil)
	p.Instances = nil
	mark := newJob("mark", evidence("marked", `cat "$HOST_ROOT/marked"`, "yes"))
	work := newJob("work", evidence("worked", `cat "$HOST_ROOT/worked"`, "yes"))
	for _, h := range e.hosts {
		p.Instances = append(p.Instances, newInst(mark, "mark", h))
		in := newInst(work, "work", h, "mark["+h+"]")
		in.Params = map[string]string{"sleep": sleep}
		p.Instances = append(p.Instances, in)
	}
	return p
}

func timeoutEngine(e *lockEnv) (*Engine, *recorder) {
	return e.engine(ident, func(c *Config) {
		c.Scripts = func(_, p string) ([]byte, error) {
			if p == "scripts/mark.sh" {
				return []byte(markScript), nil
			}
			return []byte(workScript), nil
		}
	})
}

func (e *lockEnv) lines(host, file string) []string {
	b, _ := os.ReadFile(filepath.Join(e.net.hostRoot(host), file))
	return strings.Fields(strings.TrimSpace(string(b)))
}

// A time limit stops the run on time although the grace period (30s)
// and the script's sleep (30s) are long: the running scripts get TERM on
// their hosts at once, the operation ends Interrupted with the timeout in
// its timeline, Result.TimedOut names the stopped instances and what the
// stop did per host, and each stopped instance keeps its log tail. A run
// with more time resumes: mark does not run twice, work starts over. The
// limit fires once both work scripts run (the cause a caller's
// WithTimeoutCause gives), so that the test does not depend on how fast
// the machine starts them.
func TestTimeoutStopsRunningJobsOnTime(t *testing.T) {
	e := newLockEnv(t, "m1", "w1")
	eng, rec := timeoutEngine(e)
	limit := 2 * time.Second
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := goRun(ctx, eng, timeoutPlan(e, "30"), "op-slow")
	e.waitFor("both work scripts", 20*time.Second, e.allStarted)
	t0 := time.Now()
	cancel(&TimeoutError{After: limit, Limit: "timeouts.create"})
	out := <-done
	elapsed := time.Since(t0)
	res, err := out.res, out.err
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("the run returned %s after the limit fired", elapsed)
	if elapsed > killAfter {
		t.Errorf("the run returned %s after the limit fired; want it stopped at once, not after the grace period (30s) or the sleep (30s)", elapsed)
	}
	if res.Operation.Status != protocol.StatusInterrupted {
		t.Fatalf("got: %s want: Interrupted\n%s", res.Operation.Status, statuses(res))
	}
	to := res.TimedOut
	if to == nil {
		t.Fatalf("Result.TimedOut is nil\n%s", statuses(res))
	}
	if to.After != limit || to.Limit != "timeouts.create" || to.Error() != "timed out after 2s (timeouts.create)" {
		t.Errorf("got: %+v %q want: after 2s, timeouts.create", to, to.Error())
	}
	if want := []string{"work[m1]", "work[w1]"}; !slices.Equal(to.Running, want) {
		t.Errorf("running got: %v want: %v", to.Running, want)
	}
	if want := []string{"m1: TERM sent to 1 running job(s)", "w1: TERM sent to 1 running job(s)"}; !slices.Equal(to.Stopped, want) {
		t.Errorf("stopped got: %q want: %q", to.Stopped, want)
	}
	for _, h := range e.hosts {
		for _, pid := range e.starts(h) {
			if alive(pid) {
				t.Errorf("script %d on %s still runs after the run returned", pid, h)
			}
		}
		in, _ := res.Instance("work[" + h + "]")
		if in.Status != StatusInterrupted || !strings.Contains(in.Reason, "timed out after 2s") {
			t.Errorf("work[%s] got: %s %q want: interrupted, timed out after 2s", h, in.Status, in.Reason)
		}
		if !slices.Contains(in.LogTail, "working on "+h) {
			t.Errorf("work[%s] log tail got: %q want: the script's output", h, in.LogTail)
		}
		if m, _ := res.Instance("mark[" + h + "]"); m.Status != StatusDone {
			t.Errorf("mark[%s] got: %s want: done", h, m.Status)
		}
		if _, err := os.Stat(e.lockFile(h)); !os.IsNotExist(err) {
			t.Errorf("lock of %s not released after the timeout: %v", h, err)
		}
	}
	var timeline []string
	for _, tl := range res.Operation.Timeline {
		if tl.Event == "timed_out" {
			timeline = append(timeline, tl.Subject+": "+tl.Detail)
		}
	}
	if want := "timeouts.create: timed out after 2s (timeouts.create); stopped: work[m1], work[w1]"; len(timeline) != 1 || timeline[0] != want {
		t.Errorf("timed_out entries got: %q want: [%q]", timeline, want)
	}
	if last := res.Operation.Timeline[len(res.Operation.Timeline)-1]; !strings.HasPrefix(last.Detail, "timed out after 2s") {
		t.Errorf("last status detail got: %q want: timed out after 2s...", last.Detail)
	}
	if n := len(eventsOf(rec, EventJobsStopped)); n != 2 {
		t.Errorf("jobs.stopped events got: %d want: one per host", n)
	}

	again, _ := timeoutEngine(e)
	res2, err := again.Run(context.Background(), timeoutPlan(e, "0"), RunInput{OperationID: "op-slow", Previous: &res.Operation})
	if err != nil || res2.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("resume got: %v %v want: Completed\n%s", err, res2.Operation.Status, statuses(res2))
	}
	for _, h := range e.hosts {
		if got := e.lines(h, "marks"); !slices.Equal(got, []string{"mark[" + h + "]"}) {
			t.Errorf("%s: mark runs got: %q want: one (the resume skips it)", h, got)
		}
		if m, _ := res2.Instance("mark[" + h + "]"); m.Status != StatusSatisfied {
			t.Errorf("mark[%s] on resume got: %s want: satisfied", h, m.Status)
		}
		if got := len(e.starts(h)); got != 2 {
			t.Errorf("%s: work starts got: %d want: 2 (stopped, then run again)", h, got)
		}
	}
	if res2.TimedOut != nil {
		t.Errorf("resume TimedOut got: %+v want: nil", res2.TimedOut)
	}
}

// A bare deadline is a time limit too: the run stops at once, and the
// report counts the limit from the run's start.
func TestDeadlineStopsLikeATimeout(t *testing.T) {
	e := newLockEnv(t, "m1")
	eng, _ := timeoutEngine(e)
	limit := 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	t0 := time.Now()
	res, err := eng.Run(ctx, timeoutPlan(e, "30"), RunInput{OperationID: "op-deadline"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if d := time.Since(t0); d > limit+killAfter {
		t.Errorf("the run returned after %s; want it stopped at the deadline", d)
	}
	to := res.TimedOut
	if to == nil || to.Limit != "the run's deadline" || to.After <= limit-time.Second || to.After > limit {
		t.Fatalf("got: %+v want: the run's deadline, about 5s", to)
	}
	if !slices.Equal(to.Running, []string{"work[m1]"}) {
		t.Errorf("running got: %v want: [work[m1]]", to.Running)
	}
}

// A cancellation that is not a time limit is not reported as a timeout.
func TestCancelIsNotATimeout(t *testing.T) {
	e := newLockEnv(t, "m1")
	eng, _ := e.engine(ident, func(c *Config) { c.GracePeriod = -1 })
	ctx, cancel := context.WithCancel(context.Background())
	done := goRun(ctx, eng, e.plan("p1", map[string]string{"sleep": "30"}), "op-cancel")
	e.waitFor("the jobs", 10*time.Second, e.allStarted)
	cancel()
	out := <-done
	if out.err != nil || out.res.Operation.Status != protocol.StatusInterrupted {
		t.Fatalf("got: %v %v want: Interrupted", out.err, out.res.Operation.Status)
	}
	if out.res.TimedOut != nil {
		t.Errorf("TimedOut got: %+v want: nil for a plain cancel", out.res.TimedOut)
	}
	if in, _ := out.res.Instance("work[m1]"); in.Status != StatusInterrupted || strings.Contains(in.Reason, "timed out") {
		t.Errorf("work[m1] got: %s %q want: interrupted, no timeout", in.Status, in.Reason)
	}
}
