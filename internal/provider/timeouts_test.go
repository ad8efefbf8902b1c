package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// timedOutResult is a run stopped by timeouts.create (5s) while
// sleep-long ran on node-1, after mark-first finished; verify had not
// started.
func timedOutResult() *engine.Result {
	return &engine.Result{
		Operation: protocol.Operation{Status: protocol.StatusInterrupted},
		Instances: []engine.InstanceResult{
			{ID: "mark-first", Job: "mark-first", Host: "node-1", Status: engine.StatusDone},
			{ID: "sleep-long", Job: "sleep-long", Host: "node-1", Status: engine.StatusInterrupted,
				LogTail: []string{"sleeping 25s with token s3cr3t-value"}},
			{ID: "verify", Job: "verify", Host: "node-1", Status: engine.StatusPending},
		},
		TimedOut: &engine.TimedOut{After: 5 * time.Second, Limit: "timeouts.create",
			Running: []string{"sleep-long"}, Stopped: []string{"node-1: TERM sent to 1 running job(s)"}},
	}
}

func TestReportTimedOut(t *testing.T) {
	red := &transport.Redactor{}
	red.Add("s3cr3t-value")
	var diags diag.Diagnostics
	reportTimedOut("scenario.install@1.0.0", timedOutResult(), red, &diags)
	if len(diags) != 1 {
		t.Fatalf("got: %d diagnostics want: 1", len(diags))
	}
	d := diags[0]
	if got, want := d.Summary(), "scenario.install@1.0.0 timed out after 5s"; got != want {
		t.Errorf("summary got: %q want: %q", got, want)
	}
	want := `timeouts.create (5s) ran out while the operation ran: it was stopped on time and recorded as Interrupted, timed out.
Running when the time ran out, stopped on their hosts:
  job sleep-long on host node-1 (instance sleep-long)
    log tail:
      sleeping 25s with token [REDACTED]
  stop on node-1: TERM sent to 1 running job(s)
Finished before the timeout: mark-first
Not started: verify

What to do: if the jobs need more time, raise timeouts.create in the resource, for example timeouts = { create = "10s" }, and apply again; or apply again as it is. Either way the operation resumes from the evidence on the hosts: finished jobs are checked and skipped, not run twice, and the stopped jobs start over. The resource is not tainted.`
	if got := d.Detail(); got != want {
		t.Errorf("detail got:\n%s\nwant:\n%s", got, want)
	}
	for _, never := range []string{"interventions", "plan_patches", "s3cr3t-value"} {
		if strings.Contains(d.Detail(), never) {
			t.Errorf("detail holds %q", never)
		}
	}
}

func TestTimeoutAdvice(t *testing.T) {
	cases := []struct {
		limit string
		after time.Duration
		want  string
	}{
		{"timeouts.create", 5 * time.Second, `raise timeouts.create in the resource, for example timeouts = { create = "10s" }`},
		{"timeouts.update", 45 * time.Minute, `raise timeouts.update in the resource, for example timeouts = { update = "1h30m" }`},
		{"timeouts.delete", 30 * time.Minute, `raise timeouts.delete in the resource, for example timeouts = { delete = "1h" }`},
		{"timeouts.create", 90 * time.Second, `timeouts = { create = "3m" }`},
		{"the run's deadline", 5 * time.Second, "raise the resource's timeouts"},
	}
	for _, tc := range cases {
		got := raiseAdvice(&engine.TimedOut{After: tc.after, Limit: tc.limit})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: got: %q want: it to hold %q", tc.limit, tc.after, got, tc.want)
		}
	}
}

// withTimeout gives the context the limit as its cause, which the engine
// reads to stop on time and name the setting.
func TestWithTimeoutCause(t *testing.T) {
	var diags diag.Diagnostics
	get := func(context.Context, time.Duration) (time.Duration, diag.Diagnostics) {
		return 10 * time.Millisecond, nil
	}
	ctx, cancel := withTimeout(context.Background(), "update", get, time.Hour, &diags)
	defer cancel()
	<-ctx.Done()
	var te *engine.TimeoutError
	if !errors.As(context.Cause(ctx), &te) || te.After != 10*time.Millisecond || te.Limit != "timeouts.update" {
		t.Fatalf("cause got: %v want: a TimeoutError of 10ms, timeouts.update", context.Cause(ctx))
	}
	var before diag.Diagnostics
	if !reportTimedOutBefore(ctx, "tempo.install@1.0.0", errors.New("lock: waiting for host master-1"), &transport.Redactor{}, &before) {
		t.Fatal("reportTimedOutBefore: got: false want: true once the limit ran out")
	}
	if d := before[0]; d.Summary() != "tempo.install@1.0.0 timed out after 10ms" || !strings.Contains(d.Detail(), "none of its jobs ran") {
		t.Errorf("got: %q %q", d.Summary(), d.Detail())
	}
	var none diag.Diagnostics
	if reportTimedOutBefore(context.Background(), "x", errors.New("dial"), &transport.Redactor{}, &none) || len(none) != 0 {
		t.Errorf("a run that could not start without a timeout got reported as timed out: %v", none)
	}
}
