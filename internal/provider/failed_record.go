package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// A create that does not complete saves no state, so its operation record
// cannot wait in private state for the next apply: it is kept on the host
// where the resource's records live (operation.FailedHost: the first
// master), and the next create of the same operation id reads it back and
// continues it (Failed > Verification > Running when interventions are
// given). The record is removed once the create completes.

// failedRecords are the records of failed creates found before a create
// runs: the one it continues, and the hosts each was read on.
type failedRecords struct {
	prev  *operation.Kept
	found map[string]operation.HostAccess // operation id -> host
}

// readFailedCreates reads, for each create operation, the record a create
// of the same intent left on its host. The first record of the same
// operation id is the one continued; a record of another operation id is
// ignored. A record that cannot be read is a warning: a new operation is
// recorded.
func readFailedCreates(ctx context.Context, ops []intentOp, diags *diag.Diagnostics) failedRecords {
	out := failedRecords{found: map[string]operation.HostAccess{}}
	for _, op := range ops {
		h, ok := operation.FailedHost(op.Hosts)
		if !ok {
			continue
		}
		b, err := operation.ReadFailed(ctx, h, op.ID)
		if err == nil && len(b) > 0 {
			var k *operation.Kept
			if k, err = operation.ChooseFailed(b, op.ID); k != nil {
				out.found[op.ID] = h
				if out.prev == nil {
					out.prev = k
				}
			}
		}
		if err != nil {
			diags.AddWarning("Cannot read the record of the failed create",
				fmt.Sprintf("%s: %v\n\nThis apply records a new operation %s.", h.Host.Name, err, op.ID))
		}
	}
	return out
}

// keepFailedCreates, after a create that did not complete (failed),
// writes the record of each operation that ran and is not over on its
// host, redacted with the run's secret values, and removes the record of
// one that is over (Cancelled). After a create that saved its state
// (Completed, or Paused: private state keeps it from then on) it removes
// every record read. A record that cannot be kept is a warning: the next
// apply records a new operation.
func keepFailedCreates(ctx context.Context, ip intentPlan, results []opResult, read failedRecords, failed bool, diags *diag.Diagnostics) {
	if !failed {
		for _, id := range slices.Sorted(maps.Keys(read.found)) {
			dropFailedCreate(ctx, id, read, diags)
		}
		return
	}
	redactor := recordRedactor(ip, results)
	for _, r := range results {
		op := r.Result.Operation
		h, ok := operation.FailedHost(r.Op.Hosts)
		if !ok {
			continue
		}
		if op.Status.Terminal() {
			dropFailedCreate(ctx, r.Op.ID, read, diags)
			continue
		}
		k := operation.Kept{Operation: op, Action: r.Op.Action, Targets: r.Op.Targets}
		for _, c := range ip.inputs.Changes {
			if c.Action == r.Op.Action {
				k.IDParts, k.Resumable = c.IDParts, resumable(c)
			}
		}
		b, err := operation.EncodeFailed(k, redactor.String)
		if err == nil {
			err = operation.WriteFailed(ctx, h, r.Op.ID, b)
		}
		if err != nil {
			diags.AddWarning("Cannot keep the record of the failed create",
				fmt.Sprintf("%v\n\nThe next apply records a new operation %s instead of continuing this one.", err, r.Op.ID))
		}
	}
}

// dropFailedCreate removes the record read for operation id, if one was.
func dropFailedCreate(ctx context.Context, id string, read failedRecords, diags *diag.Diagnostics) {
	h, ok := read.found[id]
	if !ok {
		return
	}
	if err := operation.RemoveFailed(ctx, h, id); err != nil {
		diags.AddWarning("Cannot remove the record of the failed create",
			fmt.Sprintf("%v\n\nOperation %s is over; its record on %s is ignored by later creates of another operation. Remove %s there by hand.", err, id, h.Host.Name, operation.FailedPath(id)))
	}
}

// recordRedactor masks in a kept record the secret values the create was
// given or produced.
func recordRedactor(ip intentPlan, results []opResult) *transport.Redactor {
	r := &transport.Redactor{}
	for _, s := range ip.inputs.Secrets {
		r.Add(s.SecretValue)
	}
	for _, v := range ip.inputs.Values {
		if v.Sensitivity == string(protocol.SensitivitySecret) {
			r.Add(v.Value)
		}
	}
	for _, res := range results {
		for _, a := range res.Result.Artifacts {
			if a.Sensitivity != protocol.SensitivitySecret {
				continue
			}
			if v, ok := res.Result.SecretValue(a.ID, a.Producer); ok {
				r.Add(v)
			}
		}
	}
	return r
}

// planReadTimeout bounds, at plan, the read of a failed create's record:
// a host that does not answer in time is not waited for (the plan then
// says nothing of a resume; apply reads the record again).
const planReadTimeout = 10 * time.Second

// showFailedCreates says, at the plan of a create, which of its
// operations continue a create that failed before (its record kept on
// its host, readFailedCreates): apply resumes that operation, with its
// timeline, rather than starting afresh. It reads the records only when
// the provider checks hosts at plan (refresh_evidence); a record that
// cannot be read is passed over quietly, as the resource does not exist
// yet. interventions is how many the resource gives.
func showFailedCreates(ctx context.Context, data *providerData, ops []intentOp, interventions int, diags *diag.Diagnostics) {
	if data == nil || !data.RefreshEvidence || len(ops) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, planReadTimeout)
	defer cancel()
	for _, op := range ops {
		h, ok := operation.FailedHost(op.Hosts)
		if !ok {
			continue
		}
		b, err := operation.ReadFailed(ctx, h, op.ID)
		if err != nil || len(b) == 0 {
			continue
		}
		if k, err := operation.ChooseFailed(b, op.ID); err == nil && k != nil {
			diags.AddWarning(fmt.Sprintf("Operation %s continues the failed create", op.ID), failedCreateNotice(op, *k, h.Host.Name, interventions))
		}
	}
}

// failedCreateNotice is the detail of showFailedCreates' warning.
func failedCreateNotice(op intentOp, k operation.Kept, host string, interventions int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s did not complete before: operation %s is %s, its record kept on %s (%s). ", op.Composed.Plan.Display(), op.ID, k.Operation.Status, host, operation.FailedPath(op.ID))
	if last := lastDetail(k.Operation); last != "" {
		fmt.Fprintf(&b, "It stopped with: %s. ", last)
	}
	b.WriteString("This apply resumes that operation rather than starting afresh: ")
	if interventions > 0 {
		fmt.Fprintf(&b, "%s > Verification > Running, the %d intervention(s) given verified first; ", k.Operation.Status, interventions)
	} else {
		fmt.Fprintf(&b, "%s > Running; ", k.Operation.Status)
	}
	b.WriteString("the jobs that finished are checked by their evidence and not run again, and operation.timeline keeps the earlier runs. " +
		"If the cause is not fixed, the same job fails again: fix it on the host and record it in interventions, or change the configuration.")
	return b.String()
}

// lastDetail is the detail of the last timeline entry that has one.
func lastDetail(op protocol.Operation) string {
	for i := len(op.Timeline) - 1; i >= 0; i-- {
		if d := strings.TrimSpace(op.Timeline[i].Detail); d != "" {
			line, _, _ := strings.Cut(d, "\n")
			return line
		}
	}
	return ""
}
