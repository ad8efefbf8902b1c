package protocol

import (
	"testing"
	"time"
)

func TestLegalTransitions(t *testing.T) {
	legal := []struct{ from, to OperationStatus }{
		{StatusDraftIntent, StatusPlanPreview},
		{StatusPlanPreview, StatusCapabilityResolution},
		{StatusCapabilityResolution, StatusWaitingForInput},
		{StatusWaitingForInput, StatusCapabilityResolution},
		{StatusCapabilityResolution, StatusWaitingForApproval},
		{StatusWaitingForApproval, StatusRunning},
		{StatusCapabilityResolution, StatusRunning},
		{StatusRunning, StatusPaused},
		{StatusPaused, StatusRunning},
		{StatusRunning, StatusFailed},
		{StatusFailed, StatusDiagnosing},
		{StatusDiagnosing, StatusPlanPatchReview},
		{StatusPlanPatchReview, StatusRunning},
		{StatusFailed, StatusRunning},
		{StatusFailed, StatusVerification},
		{StatusVerification, StatusRunning},
		{StatusVerification, StatusFailed},
		{StatusRunning, StatusCompleted},
		{StatusRunning, StatusWaitingForApproval},
		{StatusRunning, StatusWaitingForInput},
		{StatusRunning, StatusInterrupted},
		{StatusInterrupted, StatusRunning},
		{StatusRunning, StatusCancelled},
		{StatusDiagnosing, StatusFailed},
		{StatusPlanPatchReview, StatusFailed},
	}
	count := 0
	for _, next := range transitions {
		count += len(next)
	}
	if count != len(legal) {
		t.Fatalf("transition table has %d moves, test lists %d: got: %d want: %d", count, len(legal), count, len(legal))
	}
	for _, tc := range legal {
		t.Run(string(tc.from)+"->"+string(tc.to), func(t *testing.T) {
			if !CanTransition(tc.from, tc.to) {
				t.Fatalf("got: illegal want: legal")
			}
			op := &Operation{ID: "op-1", Status: tc.from}
			if err := op.Transition(tc.to, time.Unix(0, 0), "test"); err != nil {
				t.Fatalf("Transition: %v", err)
			}
			if op.Status != tc.to || len(op.Timeline) != 1 {
				t.Fatalf("got: status %s timeline %d want: %s and 1 entry", op.Status, len(op.Timeline), tc.to)
			}
		})
	}
}

func TestIllegalTransitions(t *testing.T) {
	illegal := []struct{ from, to OperationStatus }{
		{StatusDraftIntent, StatusRunning},
		{StatusDraftIntent, StatusCompleted},
		{StatusPlanPreview, StatusRunning},
		{StatusWaitingForApproval, StatusCompleted},
		{StatusWaitingForInput, StatusRunning},
		{StatusCompleted, StatusRunning},
		{StatusCompleted, StatusFailed},
		{StatusFailed, StatusCompleted},
		{StatusDiagnosing, StatusRunning},
		{StatusPlanPatchReview, StatusCompleted},
		{StatusVerification, StatusCompleted},
		{StatusPaused, StatusCompleted},
		{StatusInterrupted, StatusCompleted},
		{StatusRunning, StatusDraftIntent},
	}
	for _, tc := range illegal {
		t.Run(string(tc.from)+"->"+string(tc.to), func(t *testing.T) {
			op := &Operation{ID: "op-1", Status: tc.from}
			err := op.Transition(tc.to, time.Unix(0, 0), "")
			if err == nil {
				t.Fatalf("got: nil error want: illegal transition")
			}
			if op.Status != tc.from || len(op.Timeline) != 0 {
				t.Fatalf("a refused transition changed the operation: status %s", op.Status)
			}
		})
	}
}

func TestEveryStatusInTable(t *testing.T) {
	for _, s := range Statuses {
		if _, ok := transitions[s]; !ok {
			t.Errorf("status %s has no row in the transition table", s)
		}
	}
	if !StatusCompleted.Terminal() || StatusRunning.Terminal() {
		t.Fatal("only Completed is terminal")
	}
}
