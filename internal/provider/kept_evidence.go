package provider

import (
	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The evidence a resource's state keeps is that of every job instance its
// operations ran, not only the last operation's (intent.KeepEvidence):
// the checks of an instance the newest run recorded replace the older
// ones, the others stay, so a refresh checks again the evidence of a
// create on the nodes an add_node did not touch. What belonged to a host
// that left with a completed remove_node or uninstall_node leaves the
// state with it (intent.DropLeft, intent.DropLeftArtifacts), as the plan
// of the removal predicts (plannedArtifacts).

// keepRunEvidence sets c's evidence to that of the runs of results, in
// order (newest wins for an instance), without the hosts that left in
// the runs that completed.
func keepRunEvidence(c computed, results []opResult) {
	runs := make([][]engine.InstanceEvidence, len(results))
	for i, r := range results {
		runs[i] = r.Result.Evidence
	}
	setRecordedEvidence(c, intent.DropLeft(intent.KeepEvidence(nil, runs...), leftIn(results)))
}

// keepPriorEvidence puts the evidence prior's state kept under what the
// hooks recorded in c after results ran (record's, or on a failed update
// the prior state's as the resource keeps it), without the hosts that
// left in the runs that completed.
func keepPriorEvidence(c computed, prior []engine.InstanceEvidence, results []opResult) {
	setRecordedEvidence(c, intent.DropLeft(intent.KeepEvidence(prior, recordedEvidence(c)), leftIn(results)))
}

// leftIn are the hosts that left in the operations of results that
// completed (intent.LeftHosts).
func leftIn(results []opResult) []string {
	var done []intentOp
	for _, r := range results {
		if r.Result != nil && r.Result.Operation.Status == protocol.StatusCompleted {
			done = append(done, r.Op)
		}
	}
	return intent.LeftHosts(done)
}

// priorEvidence is the evidence m's state keeps, nil without a state.
func priorEvidence[M any](h intentHooks[M], m *M) []engine.InstanceEvidence {
	if m == nil {
		return nil
	}
	return recordedEvidence(h.computed(m))
}
