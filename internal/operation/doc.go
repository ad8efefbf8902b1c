// Package operation runs intents: it turns connection settings into an SSH
// pool, builds the engine with the scenario packs' scripts, runs a plan and
// reads secret artifacts and host facts back. It is plain Go shared by the
// provider's resources, data sources and ephemeral resources; a CLI could
// drive it the same way.
//
// # The lifecycle as lived
//
// An operation's timeline lists only the states it went through, each
// when it happened (lived.go):
//
//   - DraftIntent, PlanPreview and CapabilityResolution are recorded by
//     Planned when the caller converted the resource into an intent,
//     composed its plan and resolved its capability requirements. The
//     provider does this in apply, where it composes the plan again
//     (the plan shown at plan time, which apply must match); Terraform
//     gives a create no private state from plan, so these are the
//     apply's own steps, with the apply's times. The engine continues
//     the record straight to Running and stamps none of them.
//   - Running, Paused (RunInput.StopAfterStage), WaitingForApproval,
//     Failed, Interrupted, Cancelled and Completed are recorded by the
//     engine as the run reaches them.
//   - Diagnosing, then PlanPatchReview when a plan patch is proposed, or
//     back to Failed when none is, are recorded by Diagnosed after a
//     failure is diagnosed.
//   - The record is kept for the next apply (Kept, in the provider's
//     private state) and Continue decides what that apply goes on from:
//     a Paused operation resumes (Paused -> Running), a Failed one is
//     verified when interventions are given (Failed -> Verification ->
//     Running), a PlanPatchReview runs when the plan carries the proposed
//     patch and returns to Failed when it does not. A Completed or
//     Cancelled operation is over; the next change records a new one.
//
// A create that fails saves no state (nothing is tainted), so its record
// is not kept: the next apply records a new operation, which resumes on
// the hosts' markers. A failed update keeps the prior state and the
// record of the failed operation.
package operation
