package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

const (
	defaultCreateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)

// withTimeout bounds ctx by the resource's timeout of one kind (create,
// update, delete). The limit is the context's cause, so the engine stops
// the operation on time when it runs out and reports it as a timeout.
func withTimeout(ctx context.Context, kind string, get func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	t, d := get(ctx, def)
	diags.Append(d...)
	return context.WithTimeoutCause(ctx, t, &engine.TimeoutError{After: t, Limit: "timeouts." + kind})
}

// reportTimedOut reports an operation its resource timeout stopped: the
// limit, the jobs and hosts that were running with their log tails, what
// finished and what did not start, and the two ways on. It is not a job
// failure: no diagnosis and no intervention advice.
func reportTimedOut(display string, res *engine.Result, redactor *transport.Redactor, diags *diag.Diagnostics) {
	diags.AddError(fmt.Sprintf("%s timed out after %s", display, res.TimedOut.After), redactor.String(timeoutDetail(res)))
}

// timeoutDetail is the detail of reportTimedOut.
func timeoutDetail(res *engine.Result) string {
	to := res.TimedOut
	var b strings.Builder
	fmt.Fprintf(&b, "%s ran out while the operation ran: it was stopped on time and recorded as %s, timed out.\n", limitName(to), res.Operation.Status)
	if len(to.Running) == 0 {
		b.WriteString("No job was running when the time ran out.\n")
	} else {
		b.WriteString("Running when the time ran out, stopped on their hosts:\n")
	}
	for _, id := range to.Running {
		in, _ := res.Instance(id)
		fmt.Fprintf(&b, "  job %s on host %s (instance %s)\n", in.Job, orDash(in.Host), id)
		if len(in.LogTail) > 0 {
			b.WriteString("    log tail:\n")
			for _, l := range tail(in.LogTail, 15) {
				b.WriteString("      " + l + "\n")
			}
		}
	}
	for _, s := range to.Stopped {
		b.WriteString("  stop on " + s + "\n")
	}
	var ran, pending []string
	for _, in := range res.Instances {
		switch in.Status {
		case engine.StatusDone, engine.StatusSatisfied, engine.StatusFixed:
			ran = append(ran, in.ID)
		case engine.StatusPending:
			pending = append(pending, in.ID)
		}
	}
	slices.Sort(ran)
	slices.Sort(pending)
	fmt.Fprintf(&b, "Finished before the timeout: %s\n", orNoneList(firstN(ran, 12)))
	fmt.Fprintf(&b, "Not started: %s\n", orNoneList(firstN(pending, 12)))
	b.WriteString("\nWhat to do: " + raiseAdvice(to) + ", and apply again; or apply again as it is. " +
		"Either way the operation resumes from the evidence on the hosts: finished jobs are checked and skipped, not run twice, " +
		"and the stopped jobs start over. The resource is not tainted.")
	return b.String()
}

// reportTimedOutBefore reports a timeout that ran out before an
// operation could start (while an earlier one ran or while waiting for
// a host lock); it says so and returns true, else it returns false.
func reportTimedOutBefore(ctx context.Context, display string, err error, redactor *transport.Redactor, diags *diag.Diagnostics) bool {
	var te *engine.TimeoutError
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &te) {
		return false
	}
	to := &engine.TimedOut{After: te.After, Limit: te.Limit}
	diags.AddError(fmt.Sprintf("%s timed out after %s", display, te.After),
		redactor.String(fmt.Sprintf("%s ran out before %s could start (%s); none of its jobs ran.\n\nWhat to do: %s, and apply again: what finished is not run twice.",
			limitName(to), display, err, raiseAdvice(to))))
	return true
}

func limitName(to *engine.TimedOut) string {
	if strings.HasPrefix(to.Limit, "timeouts.") {
		return fmt.Sprintf("%s (%s)", to.Limit, to.After)
	}
	return fmt.Sprintf("The time limit (%s)", to.After)
}

// raiseAdvice says which timeout to raise, with an example of twice the
// limit.
func raiseAdvice(to *engine.TimedOut) string {
	kind, ok := strings.CutPrefix(to.Limit, "timeouts.")
	if !ok {
		return "if the jobs need more time, raise the resource's timeouts"
	}
	return fmt.Sprintf("if the jobs need more time, raise %s in the resource, for example timeouts = { %s = %q }", to.Limit, kind, shortDuration(2*to.After))
}

// shortDuration writes d as a timeouts value: "10s", "2m", "1h30m".
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
