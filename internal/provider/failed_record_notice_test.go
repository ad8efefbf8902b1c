package provider

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The plan's notice of a create that continues a failed one: the
// operation, its status, the record's host and path, where it stopped,
// and the path it resumes on: through Verification when interventions
// are given, straight to Running when none are.
func TestFailedCreateNotice(t *testing.T) {
	op := intentOp{ID: "ep.install.1234", Composed: &planner.Composed{Plan: &protocol.Plan{Template: "effects-probe.install@1.0.0"}}}
	k := operation.Kept{Operation: protocol.Operation{ID: op.ID, Status: protocol.StatusFailed, Timeline: []protocol.TimelineEntry{
		{Status: protocol.StatusRunning, Event: "status", Detail: "running plan"},
		{Status: protocol.StatusFailed, Event: "status", Detail: "1 instance(s) failed, first fail-until-fixed\nmore"},
		{Event: "note"},
	}}}
	for _, tc := range []struct {
		interventions int
		want, never   string
	}{
		{0, "resumes that operation rather than starting afresh: Failed > Running;", "Verification"},
		{2, "resumes that operation rather than starting afresh: Failed > Verification > Running, the 2 intervention(s) given verified first;", "Failed > Running;"},
	} {
		got := failedCreateNotice(op, k, "node-1", tc.interventions)
		for _, want := range []string{
			"effects-probe.install@1.0.0 did not complete before: operation ep.install.1234 is Failed, its record kept on node-1 (" + operation.FailedPath(op.ID) + ").",
			"It stopped with: 1 instance(s) failed, first fail-until-fixed. ",
			tc.want,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("interventions %d: notice lacks %q:\n%s", tc.interventions, want, got)
			}
		}
		if strings.Contains(got, tc.never) || strings.Contains(got, "more") {
			t.Errorf("interventions %d: notice holds %q or a second detail line:\n%s", tc.interventions, tc.never, got)
		}
	}
}
