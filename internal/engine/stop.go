package engine

import (
	"context"
	"errors"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// watchCancel is the run's stop path. When ctx is cancelled, running
// commands go on for Config.GracePeriod (none when the run was aborted
// through Config.Abort, lost its lock or ran out of time, or when the
// grace period is not positive). Then, on a locked run, the running jobs'
// process groups get TERM on every host (stopJobsCmd), killAfter later
// KILL; then the commands are cut off (cut). It returns when runDone closes.
func (lk *hostLocks) watchCancel(ctx context.Context, runDone <-chan struct{}, cut context.CancelFunc) {
	select {
	case <-runDone:
		return
	case <-ctx.Done():
	}
	if grace := lk.r.cfg.GracePeriod; grace > 0 && !lk.hardStop(ctx) {
		t := time.NewTimer(grace)
		select {
		case <-runDone:
			t.Stop()
			return
		case <-t.C:
		case <-lk.hard:
			t.Stop()
		}
	}
	if lk.enabled {
		lk.stopJobs("TERM")
		close(lk.termSent)
		t := time.NewTimer(killAfter)
		select {
		case <-runDone:
			t.Stop()
			cut()
			return
		case <-t.C:
		}
		lk.stopJobs("KILL")
	}
	cut()
}

// awaitStop waits, when the run was stopped without grace, until the
// running jobs have been sent TERM on every held host (at most
// StepTimeout), so that the run ends, and its result says what the stop
// did, only once every host was told.
func (lk *hostLocks) awaitStop(ctx context.Context) {
	if !lk.enabled || ctx.Err() == nil || (lk.r.cfg.GracePeriod > 0 && !lk.hardStop(ctx)) {
		return
	}
	t := time.NewTimer(lk.r.cfg.StepTimeout)
	defer t.Stop()
	select {
	case <-lk.termSent:
	case <-t.C:
	}
}

// hardStop says whether the run must stop without grace.
func (lk *hostLocks) hardStop(ctx context.Context) bool {
	select {
	case <-lk.hard:
		return true
	default:
	}
	c := context.Cause(ctx)
	return errors.Is(c, ErrAborted) || errors.Is(c, ErrLockLost) || isTimeout(c)
}

// stopJobs sends sig to the running jobs of the operation on every held
// host, in parallel, over the run's connections.
func (lk *hostLocks) stopJobs(sig string) {
	r := lk.r
	opDir := path.Join(r.cfg.StateDir, "run", pathSafe(r.em.op))
	var wg sync.WaitGroup
	for _, h := range lk.heldHosts() {
		lk.mu.Lock()
		since := lk.since[h]
		lk.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), min(r.cfg.StepTimeout, 10*time.Second))
			defer cancel()
			conn, err := r.conns.get(ctx, h, r.cfg.StepTimeout)
			var res transport.Result
			if err == nil {
				res, err = conn.Run(ctx, transport.Command{Cmd: stopJobsCmd, Become: r.cfg.StateBecome, Env: map[string]string{
					"CP_OP_RUN_DIR": opDir, "CP_SIGNAL": sig, "CP_SINCE": strconv.FormatInt(since, 10),
				}})
			}
			msg := sig + " sent to "
			switch {
			case err != nil:
				msg = sig + " not sent: " + err.Error()
			case res.ExitCode != 0:
				msg = sig + " not sent: exited " + strconv.Itoa(res.ExitCode) + ": " + lastLine(string(res.Stderr))
			default:
				msg += strconv.Itoa(strings.Count(string(res.Stdout), "@group ")) + " running job(s)"
			}
			r.noteStop(h, msg)
			r.em.emit(Event{Type: EventJobsStopped, Host: h, Message: msg})
		}()
	}
	wg.Wait()
}
