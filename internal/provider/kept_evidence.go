package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// The evidence a resource's state keeps is that of every job instance its
// operations ran, not only the last operation's (intent.KeepEvidence):
// the checks of an instance the newest run recorded replace the older
// ones, the others stay, so a refresh checks again the evidence of a
// create on the nodes an add_node did not touch; an earlier operation's
// check of an instance whose key in the own plan changed (an upgrade)
// goes when the later one completes (staleAfter). What belonged to a host
// that left (remove_node, uninstall_node) leaves the state at the refresh
// after the removal (dropGoneHosts): its evidence and its node-scoped
// artifacts. The plan of the removal keeps the artifacts known as they
// are, so its diff does not list the leaving node's artifacts in full,
// nor the unchanged ones around them, and apply leaves them so.

// keepRunEvidence sets c's evidence to that of the runs of results, in
// order (newest wins for an instance).
func keepRunEvidence(c computed, results []opResult) {
	runs := make([][]engine.InstanceEvidence, len(results))
	for i, r := range results {
		runs[i] = r.Result.Evidence
	}
	setRecordedEvidence(c, intent.KeepEvidence(nil, runs...))
}

// keepPriorEvidence puts the evidence the prior state kept under what the
// hooks recorded in c after the runs (record's, or on a failed update the
// prior state's as the resource keeps it), without the checks that
// stale says no longer hold for the resource's own plan.
func keepPriorEvidence(c computed, prior []engine.InstanceEvidence, stale func([]engine.InstanceEvidence) []engine.InstanceEvidence) {
	if stale != nil {
		prior = stale(prior)
	}
	setRecordedEvidence(c, intent.KeepEvidence(prior, recordedEvidence(c)))
}

// staleAfter drops the checks of the instances whose idempotency key in
// the resource's own plan changed from prior's intent to m's, or that m's
// own plan no longer holds (intent.DropStale): after an upgrade a
// create's checks of the old version's files, after a removal the
// removed host's checks of earlier operations.
func staleAfter[M any](b *intentBase, h intentHooks[M], prior, m *M) func([]engine.InstanceEvidence) []engine.InstanceEvidence {
	return func(evs []engine.InstanceEvidence) []engine.InstanceEvidence {
		return intent.DropStale(evs, ownKeysOf(b, h, prior), ownKeysOf(b, h, m))
	}
}

// ownKeysOf are the idempotency keys of the instances of m's own plan
// (ownOps) by instance id; nil when it cannot be made.
func ownKeysOf[M any](b *intentBase, h intentHooks[M], m *M) map[string]string {
	if m == nil {
		return nil
	}
	ops, err := ownOps(b, h, m)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, op := range ops {
		for _, in := range op.Composed.Plan.Instances {
			out[in.ID] = in.IdempotencyKey
		}
	}
	return out
}

// priorEvidence is the evidence m's state keeps, nil without a state.
func priorEvidence[M any](h intentHooks[M], m *M) []engine.InstanceEvidence {
	if m == nil {
		return nil
	}
	return recordedEvidence(h.computed(m))
}

// dropGoneHosts takes out of m's state what belongs to hosts its intent
// no longer lists (a node removed, a host that left the cluster a
// scenario runs on): their evidence, and the artifacts they produced that
// the resource's pack declares node-scoped; cluster-scoped ones stay. It
// runs no command: the hosts are the intent's (hooks.spec), the scopes
// the pack's.
func dropGoneHosts[M any](b *intentBase, h intentHooks[M], m *M) {
	if b.data == nil || b.data.Catalog == nil {
		return
	}
	c := h.computed(m)
	if c.Artifacts.IsUnknown() || c.Evidence.IsUnknown() {
		return
	}
	var local diag.Diagnostics
	ip := h.spec(m, m, b.data, &local)
	if local.HasError() || len(ip.spec.Hosts) == 0 {
		return
	}
	hosts := map[string]bool{}
	for _, a := range ip.spec.Hosts {
		hosts[a.Host.Name] = true
	}
	arts, evs := artifactsFromList(*c.Artifacts), recordedEvidence(c)
	var gone []string
	for _, a := range arts {
		if a.Host != "" && !hosts[a.Host] {
			gone = append(gone, a.Host)
		}
	}
	for _, e := range evs {
		if e.Host != "" && !hosts[e.Host] {
			gone = append(gone, e.Host)
		}
	}
	if len(gone) == 0 {
		return
	}
	slices.Sort(gone)
	gone = slices.Compact(gone)
	pack, err := b.data.Catalog.Get(ip.spec.Pack, ip.spec.Version)
	if err != nil {
		return
	}
	ops := []intentOp{{Composed: &planner.Composed{Pack: pack}}}
	if kept := intent.DropLeftArtifacts(arts, ops, gone); len(kept) != len(arts) {
		*c.Artifacts = artifactsList(kept)
	}
	if kept := intent.DropLeft(evs, gone); len(kept) != len(evs) {
		setRecordedEvidence(c, kept)
	}
}
