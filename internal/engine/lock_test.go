package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// The lock tests run the engine's real lock commands with /bin/sh on this
// machine (shellNet), each host's StateDir mapped into its own directory
// (chrootNet), so two runs meet on the hosts' lock files as they would on
// real hosts.

const lockState = "/cp-state"

// chrootNet is shellNet with the paths under lockState mapped into the
// host's directory, so every host has its own StateDir.
type chrootNet struct{ shellNet }

func (n *chrootNet) Dial(ctx context.Context, host string) (transport.Conn, error) {
	c, err := n.shellNet.Dial(ctx, host)
	if err != nil {
		return nil, err
	}
	return &chrootConn{Conn: c, root: n.hostRoot(host)}, nil
}

type chrootConn struct {
	transport.Conn
	root string
}

func (c *chrootConn) mapPath(v string) string {
	return strings.ReplaceAll(v, lockState, c.root+lockState)
}

func (c *chrootConn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	env := make(map[string]string, len(cmd.Env))
	for k, v := range cmd.Env {
		env[k] = c.mapPath(v)
	}
	cmd.Env = env
	return c.Conn.Run(ctx, cmd)
}

func (c *chrootConn) Upload(ctx context.Context, f transport.File) error {
	f.Path = c.mapPath(f.Path)
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return err
	}
	return c.Conn.Upload(ctx, f)
}

func (c *chrootConn) Download(ctx context.Context, p string, become bool) ([]byte, error) {
	return c.Conn.Download(ctx, c.mapPath(p), become)
}

// lockScript records "<instance> <pid>" in the host's starts file, waits
// for CP_PARAM_HOLD to exist and sleeps CP_PARAM_SLEEP when set. It names
// $0, so it is executed rather than sourced and its pid is its own.
const lockScript = `#!/bin/sh
: "$0"
echo "$CP_INSTANCE $$" >>"$HOST_ROOT/starts"
if [ -n "${CP_PARAM_HOLD:-}" ]; then while [ ! -f "$CP_PARAM_HOLD" ]; do sleep 0.05; done; fi
if [ -n "${CP_PARAM_SLEEP:-}" ]; then sleep "$CP_PARAM_SLEEP"; fi
echo yes >"$HOST_ROOT/worked"
`

type lockEnv struct {
	t     *testing.T
	net   *chrootNet
	hosts []string
}

// newLockEnv makes the hosts' directories; hosts[0] is the master.
func newLockEnv(t *testing.T, hosts ...string) *lockEnv {
	e := &lockEnv{t: t, net: &chrootNet{shellNet{root: t.TempDir()}}, hosts: hosts}
	for _, h := range hosts {
		if err := os.MkdirAll(e.net.hostRoot(h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// plan has one "work" instance per host, with params.
func (e *lockEnv) plan(id string, params map[string]string) *protocol.Plan {
	p := &protocol.Plan{ID: id, Template: "test.create@1.0.0"}
	p.Intent = protocol.Intent{Action: "create", Pack: "test", TargetResourceType: "kubernetes.cluster", TargetResource: "prod-k8s"}
	job := newJob("work", evidence("worked", `cat "$HOST_ROOT/worked"`, "yes"))
	for i, h := range e.hosts {
		role := protocol.RoleWorker
		if i == 0 {
			role = protocol.RoleMaster
		}
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Address: "10.0.0." + strconv.Itoa(i+1), Role: role})
		in := newInst(job, "work", h)
		in.Params = params
		p.Instances = append(p.Instances, in)
	}
	return p
}

func (e *lockEnv) engine(lock *LockConfig, mod func(*Config)) (*Engine, *recorder) {
	rec := &recorder{}
	cfg := Config{Dialer: e.net, Scripts: func(string, string) ([]byte, error) { return []byte(lockScript), nil },
		StateDir: lockState, Actor: "tester", Sinks: []Sink{rec}, Lock: lock, GracePeriod: 30 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg), rec
}

func (e *lockEnv) lockFile(host string) string {
	return filepath.Join(e.net.hostRoot(host), lockState, "lock", "held")
}

// starts returns the pids the work script recorded on a host.
func (e *lockEnv) starts(host string) []int {
	b, _ := os.ReadFile(filepath.Join(e.net.hostRoot(host), "starts"))
	var pids []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			n, _ := strconv.Atoi(f[1])
			pids = append(pids, n)
		}
	}
	return pids
}

func (e *lockEnv) waitFor(what string, d time.Duration, ok func() bool) {
	e.t.Helper()
	end := time.Now().Add(d)
	for !ok() {
		if time.Now().After(end) {
			e.t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *lockEnv) allStarted() bool {
	for _, h := range e.hosts {
		if len(e.starts(h)) == 0 {
			return false
		}
	}
	return true
}

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] != 'Z' // a zombie has ended
	}
	return true
}

type runOut struct {
	res *Result
	err error
}

func goRun(ctx context.Context, eng *Engine, p *protocol.Plan, op string) <-chan runOut {
	ch := make(chan runOut, 1)
	go func() {
		res, err := eng.Run(ctx, p, RunInput{OperationID: op})
		ch <- runOut{res, err}
	}()
	return ch
}

func eventsOf(rec *recorder, typ EventType) []Event {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []Event
	for _, ev := range rec.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var ident = &LockConfig{Machine: "ci-runner", User: "root", PID: 123}

// Every host is locked, in sorted host order, before any job starts; the
// lock file names the holder; it is gone when the run ends.
func TestLockTakenInHostOrderBeforeJobsAndReleased(t *testing.T) {
	e := newLockEnv(t, "m2", "a1", "z3")
	hold := filepath.Join(t.TempDir(), "go")
	eng, rec := e.engine(ident, nil)
	done := goRun(context.Background(), eng, e.plan("p1", map[string]string{"hold": hold}), "op-one")
	e.waitFor("every job to start", 10*time.Second, e.allStarted)
	for _, h := range e.hosts {
		b, err := os.ReadFile(e.lockFile(h))
		if err != nil {
			t.Fatalf("lock file of %s while the run runs: %v", h, err)
		}
		for _, want := range []string{"cp-lock 1\n", `"operation":"op-one"`, `"resource":"kubernetes.cluster prod-k8s"`, `"actor":"tester"`, `"machine":"ci-runner"`, `"pid":123`, "\nexpires "} {
			if !strings.Contains(string(b), want) {
				t.Errorf("lock file of %s: got:\n%s\nwant it to hold %q", h, b, want)
			}
		}
	}
	must(t, os.WriteFile(hold, nil, 0o644))
	out := <-done
	if out.err != nil || out.res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("run: %v %v", out.err, out.res.Operation.Status)
	}
	var order []string
	rec.mu.Lock()
	firstStart := -1
	for i, ev := range rec.events {
		switch ev.Type {
		case EventLockTaken:
			order = append(order, ev.Host)
			if firstStart >= 0 {
				t.Errorf("host %s locked after instance %d started", ev.Host, firstStart)
			}
		case EventInstanceStarted:
			if firstStart < 0 {
				firstStart = i
			}
		}
	}
	rec.mu.Unlock()
	if got := strings.Join(order, ","); got != "a1,m2,z3" {
		t.Errorf("lock order got: %s want: a1,m2,z3", got)
	}
	for _, h := range e.hosts {
		if _, err := os.Stat(e.lockFile(h)); !os.IsNotExist(err) {
			t.Errorf("lock file of %s after the run: %v, want it gone", h, err)
		}
	}
	if n := len(eventsOf(rec, EventLockReleased)); n != 3 {
		t.Errorf("released events got: %d want: 3", n)
	}
}

// A second run on the same hosts is refused at once (Wait 0) with the
// holder named, and runs nothing; the first is not disturbed.
func TestLockSecondRunRefusedWithHolder(t *testing.T) {
	e := newLockEnv(t, "m1", "w1")
	hold := filepath.Join(t.TempDir(), "go")
	first, _ := e.engine(ident, nil)
	done := goRun(context.Background(), first, e.plan("p1", map[string]string{"hold": hold}), "op-first")
	e.waitFor("the first run's jobs", 10*time.Second, e.allStarted)

	second, rec := e.engine(&LockConfig{Machine: "laptop", PID: 9}, nil)
	res, err := second.Run(context.Background(), e.plan("p2", nil), RunInput{OperationID: "op-second"})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second run: got: %v, %v want: a *LockedError", res, err)
	}
	msg := err.Error()
	for _, want := range []string{"kubernetes.cluster prod-k8s: host m1 is locked by operation op-first", "actor tester, root@ci-runner pid 123",
		"started ", "s ago, lease renewed ", "expires in ", "Wait for that operation to end", "/cp-state/lock/held on m1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error got: %s\nwant it to contain %q", msg, want)
		}
	}
	if le.Host != "m1" || le.Holder.Operation != "op-first" || le.Holder.PID != 123 {
		t.Errorf("LockedError got: %+v", le)
	}
	if n := len(eventsOf(rec, EventInstanceStarted)); n != 0 {
		t.Errorf("the refused run started %d instances", n)
	}
	for _, h := range e.hosts {
		if n := len(e.starts(h)); n != 1 {
			t.Errorf("%s: %d job starts, want 1 (the first run's)", h, n)
		}
		b, _ := os.ReadFile(e.lockFile(h))
		if !strings.Contains(string(b), `"operation":"op-first"`) {
			t.Errorf("%s: the refused run changed the lock: %s", h, b)
		}
	}
	must(t, os.WriteFile(hold, nil, 0o644))
	if out := <-done; out.err != nil || out.res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("first run: %v", out.err)
	}
}

// With Wait set, the second run waits for the first to release, says
// whom it waits for, and then runs.
func TestLockSecondRunWaitsThenRuns(t *testing.T) {
	e := newLockEnv(t, "m1", "w1")
	hold := filepath.Join(t.TempDir(), "go")
	first, _ := e.engine(ident, nil)
	done := goRun(context.Background(), first, e.plan("p1", map[string]string{"hold": hold}), "op-first")
	e.waitFor("the first run's jobs", 10*time.Second, e.allStarted)

	second, rec := e.engine(&LockConfig{Wait: 20 * time.Second, Poll: 50 * time.Millisecond}, nil)
	holdAt := make(chan time.Time, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		holdAt <- time.Now()
		must(t, os.WriteFile(hold, nil, 0o644))
	}()
	out2 := goRun(context.Background(), second, e.plan("p2", nil), "op-second")
	out := <-done
	if out.err != nil || out.res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("first run: %v", out.err)
	}
	o := <-out2
	if o.err != nil || o.res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("second run: %v %v", o.err, o.res)
	}
	released := <-holdAt
	w := eventsOf(rec, EventLockWaiting)
	if len(w) == 0 || !strings.Contains(w[0].Message, "locked by operation op-first") || !w[0].Time.Before(released) {
		t.Fatalf("waiting events got: %+v", w)
	}
	taken := eventsOf(rec, EventLockTaken)
	if len(taken) != 2 {
		t.Fatalf("taken events got: %+v", taken)
	}
	for _, ev := range taken {
		if ev.Time.Before(released) {
			t.Errorf("second run locked %s at %s, before the first let its job end (%s)", ev.Host, ev.Time, released)
		}
	}
	// The second run found the first's work done: nothing ran twice.
	for _, in := range o.res.Instances {
		if in.Status != StatusSatisfied {
			t.Errorf("%s: got: %s want: satisfied", in.ID, in.Status)
		}
	}
	for _, h := range e.hosts {
		if n := len(e.starts(h)); n != 1 {
			t.Errorf("%s: %d job starts, want 1", h, n)
		}
	}
}

// A lock whose lease expired (its holder was killed) is taken over, and
// the takeover names the stale holder.
func TestLockExpiredLeaseTakenOver(t *testing.T) {
	e := newLockEnv(t, "m1")
	past := time.Now().Unix() - 100
	stale := fmt.Sprintf("cp-lock 1\ntoken dead\nacquired %d\nrenewed %d\nexpires %d\nholder {\"operation\":\"op-dead\",\"token\":\"dead\",\"machine\":\"gone\",\"pid\":77,\"started\":\"2026-01-01T00:00:00Z\"}\n", past-30, past-30, past)
	must(t, os.MkdirAll(filepath.Dir(e.lockFile("m1")), 0o700))
	must(t, os.WriteFile(e.lockFile("m1"), []byte(stale), 0o600))
	eng, rec := e.engine(ident, nil)
	res := mustRun(t, eng, e.plan("p1", nil), RunInput{OperationID: "op-new"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s", res.Operation.Status)
	}
	taken := eventsOf(rec, EventLockTaken)
	if len(taken) != 1 || !strings.Contains(taken[0].Message, "took over the expired lease of operation op-dead of gone pid 77, last renewed 2m10s ago") {
		t.Fatalf("taken events got: %+v", taken)
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(e.lockFile("m1")), "stale"))
	if !strings.Contains(string(b), "op-dead") {
		t.Errorf("stale record got: %q", b)
	}

	// A lease that has not expired is not taken over.
	future := time.Now().Unix() + 100
	must(t, os.WriteFile(e.lockFile("m1"), []byte(strings.Replace(stale, fmt.Sprintf("expires %d", past), fmt.Sprintf("expires %d", future), 1)), 0o600))
	eng, _ = e.engine(ident, nil)
	_, err := eng.Run(context.Background(), e.plan("p1", nil), RunInput{OperationID: "op-new2"})
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "op-dead" {
		t.Fatalf("got: %v want: locked by op-dead", err)
	}
}

// The running apply renews its lease: after longer than the lease, a
// second run is still refused, and the lock file's renewal time moved.
func TestLockLeaseRenewed(t *testing.T) {
	e := newLockEnv(t, "m1")
	hold := filepath.Join(t.TempDir(), "go")
	first, _ := e.engine(&LockConfig{Lease: 2 * time.Second, Renew: 300 * time.Millisecond}, nil)
	done := goRun(context.Background(), first, e.plan("p1", map[string]string{"hold": hold}), "op-first")
	e.waitFor("the first run's job", 10*time.Second, e.allStarted)
	before, _ := os.ReadFile(e.lockFile("m1"))
	time.Sleep(3500 * time.Millisecond)
	after, _ := os.ReadFile(e.lockFile("m1"))
	h1, _ := parseLockFile(strings.Split(string(before), "\n"))
	h2, ok := parseLockFile(strings.Split(string(after), "\n"))
	if !ok || h2.Renewed <= h1.Renewed || h2.Acquired != h1.Acquired || h2.Expires-h2.Renewed != 2 {
		t.Errorf("lease not renewed: before %+v after %+v", h1, h2)
	}
	second, _ := e.engine(nil, nil)
	second.cfg.Lock = &LockConfig{}
	_, err := second.Run(context.Background(), e.plan("p2", nil), RunInput{OperationID: "op-second"})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Errorf("second run after the first's lease time: got: %v want: a *LockedError", err)
	}
	must(t, os.WriteFile(hold, nil, 0o644))
	<-done
}

// Abort stops the run at once despite a long grace period: the running
// script is sent TERM on its host, the run ends Interrupted, and the lock
// is released.
func TestLockAbortStopsJobsPromptly(t *testing.T) {
	e := newLockEnv(t, "m1", "w1")
	abort := make(chan struct{})
	eng, rec := e.engine(ident, func(c *Config) { c.Abort = abort })
	done := goRun(context.Background(), eng, e.plan("p1", map[string]string{"sleep": "60"}), "op-long")
	e.waitFor("the jobs", 10*time.Second, e.allStarted)
	pids := append(e.starts("m1"), e.starts("w1")...)
	t0 := time.Now()
	close(abort)
	e.waitFor("the scripts to end after abort", 4*time.Second, func() bool {
		for _, p := range pids {
			if alive(p) {
				return false
			}
		}
		return true
	})
	gone := time.Since(t0)
	var out runOut
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end within 10s of abort")
	}
	if out.err != nil || out.res.Operation.Status != protocol.StatusInterrupted {
		t.Fatalf("got: %v %v want: Interrupted", out.err, out.res.Operation.Status)
	}
	t.Logf("scripts gone %s after abort, run ended %s after", gone, time.Since(t0))
	stopped := eventsOf(rec, EventJobsStopped)
	if len(stopped) < 2 {
		t.Errorf("jobs.stopped events got: %d want: one per host", len(stopped))
	}
	for _, ev := range stopped[:min(2, len(stopped))] {
		if ev.Message != "TERM sent to 1 running job(s)" {
			t.Errorf("%s: jobs.stopped got: %q want: TERM sent to its job", ev.Host, ev.Message)
		}
	}
	for _, h := range e.hosts {
		if _, err := os.Stat(e.lockFile(h)); !os.IsNotExist(err) {
			t.Errorf("lock of %s not released after abort: %v", h, err)
		}
	}
}

// When another operation took the lock over (this run's lease expired),
// the next renewal sees it and the run stops at once, leaving the other
// operation's lock in place.
func TestLockLostStopsRun(t *testing.T) {
	e := newLockEnv(t, "m1")
	eng, rec := e.engine(&LockConfig{Lease: 2 * time.Second, Renew: 200 * time.Millisecond}, nil)
	done := goRun(context.Background(), eng, e.plan("p1", map[string]string{"sleep": "60"}), "op-slow")
	e.waitFor("the job", 10*time.Second, e.allStarted)
	pid := e.starts("m1")[0]
	now := time.Now().Unix()
	other := fmt.Sprintf("cp-lock 1\ntoken other\nacquired %d\nrenewed %d\nexpires %d\nholder {\"operation\":\"op-other\",\"token\":\"other\",\"machine\":\"elsewhere\",\"started\":\"2026-01-01T00:00:00Z\"}\n", now, now, now+60)
	must(t, os.WriteFile(e.lockFile("m1")+".x", []byte(other), 0o600))
	must(t, os.Rename(e.lockFile("m1")+".x", e.lockFile("m1")))
	e.waitFor("the script to end", 5*time.Second, func() bool { return !alive(pid) })
	out := <-done
	if out.res.Operation.Status != protocol.StatusInterrupted {
		t.Errorf("got: %s want: Interrupted", out.res.Operation.Status)
	}
	lost := eventsOf(rec, EventLockLost)
	if len(lost) != 1 || !strings.Contains(lost[0].Message, "operation op-other of elsewhere") {
		t.Errorf("lost events got: %+v", lost)
	}
	b, _ := os.ReadFile(e.lockFile("m1"))
	if string(b) != other {
		t.Errorf("the other operation's lock was changed: %q", b)
	}
}

// A host that cannot be reached when the locks are taken is not locked,
// and stays refused for the run even when it comes back.
func TestLockUnreachableHostStaysRefused(t *testing.T) {
	e := newLockEnv(t, "m1")
	must(t, os.MkdirAll(e.net.hostRoot("m1"), 0o755))
	e.hosts = append(e.hosts, "w1") // no directory: unreachable
	eng, rec := e.engine(ident, nil)
	var once sync.Once
	rec.on = func(ev Event) {
		if ev.Type == EventLockSkipped {
			once.Do(func() { _ = os.MkdirAll(e.net.hostRoot("w1"), 0o755) })
		}
	}
	res := mustRun(t, eng, e.plan("p1", nil), RunInput{OperationID: "op-partial"})
	if s := eventsOf(rec, EventLockSkipped); len(s) != 1 || s[0].Host != "w1" {
		t.Fatalf("skipped events got: %+v", s)
	}
	w := wantStatus(t, res, "work[w1]", StatusFailed)
	if !strings.Contains(w.Reason, "was not locked") {
		t.Errorf("reason got: %s", w.Reason)
	}
	if n := len(e.starts("w1")); n != 0 {
		t.Errorf("w1 ran %d jobs without its lock", n)
	}
	wantStatus(t, res, "work[m1]", StatusDone)
}

func TestLockConfigRenewMustBeShorterThanLease(t *testing.T) {
	e := newLockEnv(t, "m1")
	eng, _ := e.engine(&LockConfig{Lease: 2 * time.Second, Renew: 3 * time.Second}, nil)
	_, err := eng.Run(context.Background(), e.plan("p1", nil), RunInput{OperationID: "op"})
	if err == nil || !strings.Contains(err.Error(), "Renew (3s) must be shorter than Lease (2s)") {
		t.Fatalf("got: %v", err)
	}
	if _, err := os.Stat(e.lockFile("m1")); !os.IsNotExist(err) {
		t.Errorf("a lock was taken: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// On a fresh host the lock makes StateDir as the engine's other commands
// do (755, so jobs of other users reach their run directories) and only
// the lock directory private.
func TestLockDirectoriesOnAFreshHost(t *testing.T) {
	e := newLockEnv(t, "m1")
	eng, _ := e.engine(ident, nil)
	mustRun(t, eng, e.plan("p1", nil), RunInput{OperationID: "op"})
	for p, want := range map[string]os.FileMode{
		filepath.Join(e.net.hostRoot("m1"), lockState):         0o755,
		filepath.Join(e.net.hostRoot("m1"), lockState, "lock"): 0o700,
	} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode got: %v want: %v", p, st.Mode().Perm(), want)
		}
	}
}
