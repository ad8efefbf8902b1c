package protocol

import (
	"fmt"
	"time"
)

// OperationStatus is a state of the operation lifecycle (seed 001 §3).
type OperationStatus string

const (
	StatusDraftIntent          OperationStatus = "DraftIntent"
	StatusPlanPreview          OperationStatus = "PlanPreview"
	StatusCapabilityResolution OperationStatus = "CapabilityResolution"
	StatusWaitingForInput      OperationStatus = "WaitingForInput"
	StatusWaitingForApproval   OperationStatus = "WaitingForApproval"
	StatusRunning              OperationStatus = "Running"
	StatusPaused               OperationStatus = "Paused"
	StatusFailed               OperationStatus = "Failed"
	StatusDiagnosing           OperationStatus = "Diagnosing"
	StatusPlanPatchReview      OperationStatus = "PlanPatchReview"
	StatusVerification         OperationStatus = "Verification"
	StatusCompleted            OperationStatus = "Completed"
	// StatusInterrupted is an extension of the seed: the run was cancelled
	// (process stopped, context cancelled) and is resumed by running again.
	StatusInterrupted OperationStatus = "Interrupted"
	// StatusCancelled is an extension of the seed: a gate's cancel option
	// was chosen; nothing held by the gate ran. It is final.
	StatusCancelled OperationStatus = "Cancelled"
)

// transitions is the legal-move table. Every edge of seed 001 §3 is here;
// the extensions are marked.
var transitions = map[OperationStatus][]OperationStatus{
	StatusDraftIntent:          {StatusPlanPreview},
	StatusPlanPreview:          {StatusCapabilityResolution},
	StatusCapabilityResolution: {StatusWaitingForInput, StatusWaitingForApproval, StatusRunning},
	StatusWaitingForInput:      {StatusCapabilityResolution},
	StatusWaitingForApproval:   {StatusRunning},
	StatusRunning: {
		StatusPaused, StatusFailed, StatusCompleted,
		StatusWaitingForApproval, StatusWaitingForInput, // extension: a gate reached while running
		StatusInterrupted, // extension: cancelled
		StatusCancelled,   // extension: a gate's cancel option
	},
	StatusPaused: {StatusRunning},
	StatusFailed: {StatusDiagnosing, StatusRunning, StatusVerification},
	StatusDiagnosing: {
		StatusPlanPatchReview,
		StatusFailed, // extension: the diagnosis proposes no patch; the failure stands
	},
	StatusPlanPatchReview: {
		StatusRunning,
		StatusFailed, // extension: the next apply does not take the proposed patch
	},
	StatusVerification: {StatusRunning, StatusFailed},
	StatusInterrupted:  {StatusRunning}, // extension: resumed
	StatusCompleted:    {},
	StatusCancelled:    {}, // extension: final
}

// Statuses lists every status in lifecycle order.
var Statuses = []OperationStatus{
	StatusDraftIntent, StatusPlanPreview, StatusCapabilityResolution, StatusWaitingForInput,
	StatusWaitingForApproval, StatusRunning, StatusPaused, StatusFailed, StatusDiagnosing,
	StatusPlanPatchReview, StatusVerification, StatusCompleted, StatusInterrupted, StatusCancelled,
}

// CanTransition reports whether from -> to is a legal move.
func CanTransition(from, to OperationStatus) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Next returns the legal successors of s.
func Next(s OperationStatus) []OperationStatus {
	return append([]OperationStatus(nil), transitions[s]...)
}

// Terminal reports whether no move leaves s.
func (s OperationStatus) Terminal() bool { return len(transitions[s]) == 0 }

// TimelineEntry is one event of an operation's history.
type TimelineEntry struct {
	At      time.Time       `json:"at"`
	Status  OperationStatus `json:"status,omitempty"`
	Event   string          `json:"event"`
	Subject string          `json:"subject,omitempty"`
	Detail  string          `json:"detail,omitempty"`
	Actor   string          `json:"actor,omitempty"`
}

// Operation is one run of a plan.
type Operation struct {
	ID       string          `json:"id"`
	IntentID string          `json:"intent_id,omitempty"`
	PlanID   string          `json:"plan_id"`
	Status   OperationStatus `json:"status"`
	Actor    string          `json:"actor,omitempty"`
	Timeline []TimelineEntry `json:"timeline"`
}

// NewOperation starts an operation in DraftIntent.
func NewOperation(id, planID, actor string, now time.Time) *Operation {
	op := &Operation{ID: id, PlanID: planID, Status: StatusDraftIntent, Actor: actor}
	op.Timeline = append(op.Timeline, TimelineEntry{At: now, Status: StatusDraftIntent, Event: "created", Actor: actor})
	return op
}

// Transition moves the operation to a new status, recording it in the
// timeline, or returns an error naming the illegal move.
func (op *Operation) Transition(to OperationStatus, now time.Time, detail string) error {
	if !CanTransition(op.Status, to) {
		return fmt.Errorf("operation %s: illegal transition %s -> %s (legal: %v)", op.ID, op.Status, to, transitions[op.Status])
	}
	op.Status = to
	op.Timeline = append(op.Timeline, TimelineEntry{At: now, Status: to, Event: "status", Detail: detail, Actor: op.Actor})
	return nil
}
