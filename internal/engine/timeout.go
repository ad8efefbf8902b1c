package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ErrTimedOut matches the cause of a run whose time limit ran out: a
// *TimeoutError the caller gave its context, or a bare deadline.
var ErrTimedOut = errors.New("timed out")

// TimeoutError is the cause a caller gives the context of a run that has
// a time limit:
//
//	ctx, cancel := context.WithTimeoutCause(ctx, d, &engine.TimeoutError{After: d, Limit: "timeouts.create"})
//
// When the limit runs out the run stops on time: running commands get no
// Config.GracePeriod, the running jobs' process groups get TERM on their
// hosts (KILL killAfter later), nothing more starts, the operation ends
// Interrupted with "timed out after d" in its timeline, and
// Result.TimedOut names the jobs that were running. Running the plan
// again resumes it. A context that merely has a deadline is treated the
// same way.
type TimeoutError struct {
	// After is the time limit.
	After time.Duration
	// Limit names the setting that set it ("timeouts.create"), for
	// messages; optional.
	Limit string
}

func (e *TimeoutError) Error() string {
	s := "timed out after " + e.After.String()
	if e.Limit != "" {
		s += " (" + e.Limit + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrTimedOut) hold.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimedOut }

// TimedOut reports a run stopped by its time limit.
type TimedOut struct {
	After time.Duration `json:"after"`
	Limit string        `json:"limit,omitempty"`
	// Running lists the instances that were running when the time ran out
	// (plan order); each was stopped on its host and is StatusInterrupted.
	Running []string `json:"running"`
	// Stopped says, per host in host order, what the stop did
	// ("node-1: TERM sent to 1 running job(s)").
	Stopped []string `json:"stopped,omitempty"`
}

// Error is the one line of the timeout, e.g. "timed out after 5s
// (timeouts.create)".
func (t *TimedOut) Error() string {
	return (&TimeoutError{After: t.After, Limit: t.Limit}).Error()
}

// timeoutOf returns the time limit that stopped ctx, or nil when ctx was
// not stopped by one. A bare deadline counts from the run's start.
func timeoutOf(ctx context.Context, started time.Time) *TimeoutError {
	if ctx.Err() == nil {
		return nil
	}
	c := context.Cause(ctx)
	var te *TimeoutError
	if errors.As(c, &te) {
		return te
	}
	if !errors.Is(c, context.DeadlineExceeded) {
		return nil
	}
	te = &TimeoutError{Limit: "the run's deadline"}
	if d, ok := ctx.Deadline(); ok {
		te.After = d.Sub(started).Round(time.Millisecond)
	}
	return te
}

// isTimeout says whether a cancellation cause is a time limit.
func isTimeout(cause error) bool {
	return errors.Is(cause, ErrTimedOut) || errors.Is(cause, context.DeadlineExceeded)
}

// noteStop keeps what stopping the jobs did on a host, for the timeout
// report.
func (r *run) noteStop(host, msg string) {
	r.stopMu.Lock()
	r.stops = append(r.stops, host+": "+msg)
	r.stopMu.Unlock()
}

// timedOutReport builds Result.TimedOut for a run stopped by te.
func (r *run) timedOutReport(te *TimeoutError) *TimedOut {
	t := &TimedOut{After: te.After, Limit: te.Limit}
	for _, st := range r.states {
		if st.res.Status == StatusInterrupted && !st.in.IsGate() {
			t.Running = append(t.Running, st.in.ID)
		}
	}
	r.stopMu.Lock()
	t.Stopped = slices.Clone(r.stops)
	r.stopMu.Unlock()
	slices.Sort(t.Stopped)
	return t
}

// recordTimeout writes the timeout into the operation's timeline: which
// limit ran out and which instances it stopped.
func (r *run) recordTimeout(t *TimedOut) {
	detail := t.Error()
	if len(t.Running) > 0 {
		detail += "; stopped: " + strings.Join(t.Running, ", ")
	}
	r.opMu.Lock()
	r.op.Timeline = append(r.op.Timeline, protocol.TimelineEntry{At: r.cfg.Clock(), Status: r.op.Status, Event: "timed_out", Subject: t.Limit, Detail: r.cfg.Redactor.String(detail), Actor: r.op.Actor})
	r.opMu.Unlock()
}

// interruptReason is the reason given to instances a stopped run did not
// start.
func (r *run) interruptReason() string {
	if te := timeoutOf(r.runCtx, r.begin); te != nil {
		return fmt.Sprintf("not started: the run %s", te.Error())
	}
	return "not started: the run was interrupted"
}
