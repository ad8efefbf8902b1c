package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	pathpkg "path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// jobProcs lists the processes on a test host (same root) whose
// environment names a run directory under the env's StateDir: the job
// scripts and what they started.
func (e *itEnv) jobProcs(host string) []int {
	e.t.Helper()
	rp, err := e.c.RootPath(host)
	if err != nil {
		e.t.Fatal(err)
	}
	root, err := os.Readlink(rp)
	if err != nil {
		e.t.Fatal(err)
	}
	want := []byte("CP_RUN_DIR=" + pathpkg.Join(e.stateDir(), "run") + "/")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if r, err := os.Readlink("/proc/" + d.Name() + "/root"); err != nil || r != root {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) || !alive(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// lockedIT runs the hang script on every host with Abort closed once it
// runs, and returns how long after the abort the last job process on the
// hosts was gone (or -1 if some still ran 15 s later).
func lockedIT(t *testing.T, e *itEnv, lock *LockConfig, stepByStep bool) (time.Duration, *Result) {
	e.t = t
	b := e.plan("abort")
	b.stepByStep = stepByStep
	for _, h := range e.names {
		job := itJob("hang", "hang")
		job.Controls.Timeout = protocol.Duration(time.Minute)
		b.add(job, h, nil)
	}
	abort := make(chan struct{})
	eng, _ := e.engine(func(c *Config) { c.Lock, c.Abort, c.GracePeriod = lock, abort, 20*time.Second })
	done := make(chan *Result, 1)
	go func() { done <- e.run(eng, context.Background(), b.p, RunInput{OperationID: "op-abort"}) }()
	for _, h := range e.names {
		for end := time.Now().Add(20 * time.Second); ; {
			if _, err := e.hostFile(h, e.logPath()); err == nil {
				break
			}
			select {
			case res := <-done:
				t.Fatalf("the run ended before its jobs ran on %s:\n%s", h, dump(res))
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(end) {
				t.Fatalf("no job ran on %s within 20s", h)
			}
		}
	}
	t0 := time.Now()
	close(abort)
	gone := time.Duration(-1)
	for time.Since(t0) < 15*time.Second {
		n := 0
		for _, h := range e.names {
			n += len(e.jobProcs(h))
		}
		if n == 0 {
			gone = time.Since(t0)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := <-done
	// Whatever the engine left is ended here, so the hosts stop cleanly.
	for _, h := range e.names {
		for _, p := range e.jobProcs(h) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	return gone, res
}

// Over real SSH: an aborted run (the provider's caller went away) TERMs
// its jobs on the hosts at once and releases its locks, which are
// root-owned files under the StateDir. Without the lock (no stop path)
// the remote job processes outlive the run; the figure is logged.
func TestIntegrationLockAbortStopsRemoteJobs(t *testing.T) {
	e := startIT(t, "lk-1", "lk-2")
	for _, path := range []struct {
		name       string
		stepByStep bool
	}{{"one-command", false}, {"step-by-step", true}} {
		t.Run(path.name, func(t *testing.T) {
			locked := e.sub("lock-abort-" + path.name)
			gone, res := lockedIT(t, locked, &LockConfig{Lease: 10 * time.Second}, path.stepByStep)
			if res.Operation.Status != protocol.StatusInterrupted {
				t.Errorf("got: %s want: Interrupted\n%s", res.Operation.Status, dump(res))
			}
			if gone < 0 || gone > 3*time.Second {
				t.Errorf("with the lock: the last job process on the hosts was gone %s after the abort; want within 3s", gone)
			}
			t.Logf("with the lock's stop path: last remote job process gone %s after abort", gone)
			for _, h := range locked.names {
				if _, err := locked.hostFile(h, pathpkg.Join(locked.stateDir(), "lock", "held")); !os.IsNotExist(err) {
					t.Errorf("%s: lock not released: %v", h, err)
				}
			}
			plain := e.sub("nolock-abort-" + path.name)
			before, _ := lockedIT(t, plain, nil, path.stepByStep)
			if before < 0 {
				t.Logf("without the stop path: remote job processes still ran 15s after abort")
			} else {
				t.Logf("without the stop path: last remote job process gone %s after abort", before)
			}
		})
	}
}

// Over real SSH: a second engine is refused while the first holds the
// hosts, with the holder named; the lock file is root's, mode 0600.
func TestIntegrationLockSecondRunRefused(t *testing.T) {
	e := startIT(t, "lk-1", "lk-2")
	e = e.sub("lock-two")
	e.t = t
	b := e.plan("two")
	for _, h := range e.names {
		job := itJob("long", "long")
		b.add(job, h, nil)
	}
	first, _ := e.engine(func(c *Config) {
		c.Lock, c.GracePeriod = &LockConfig{Machine: "ci-runner", User: "root", PID: 4242}, time.Second
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() { done <- e.run(first, ctx, b.p, RunInput{OperationID: "op-first"}) }()
	for _, h := range e.names {
		e.waitHostFile(h, e.statePath("long["+h+"]")+".started", 20*time.Second)
	}
	rp, err := e.c.RootPath("lk-1")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(rp, e.stateDir(), "lock", "held"))
	if err != nil {
		t.Fatal(err)
	}
	if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("lock file: uid %d mode %v want: root's, 0600", sys.Uid, st.Mode().Perm())
	}

	second, rec := e.engine(func(c *Config) { c.Lock = &LockConfig{} })
	_, err = second.Run(context.Background(), b.p, RunInput{OperationID: "op-second"})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second run: got: %v want: a *LockedError", err)
	}
	for _, want := range []string{"host lk-1 is locked by operation op-first", "actor it-tester, root@ci-runner pid 4242", "lease renewed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error got: %s\nwant it to contain %q", err, want)
		}
	}
	if n := len(eventsOf(rec, EventInstanceStarted)); n != 0 {
		t.Errorf("the refused run started %d instances", n)
	}
	cancel()
	res := <-done
	if res.Operation.Status != protocol.StatusInterrupted {
		t.Errorf("first run got: %s", res.Operation.Status)
	}
	if got := e.runs(); got["long[lk-1]"] != 1 || got["long[lk-2]"] != 1 {
		t.Errorf("runs got: %v want: each long job once", got)
	}
}
