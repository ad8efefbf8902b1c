package intent

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// HandleRerun is what decides whether a resource on a cluster handle
// runs its action again when only the handle changed (a worker added or
// removed): the prior operation and handle, the own intent, and the
// plans of the action under the prior and the new handle.
type HandleRerun struct {
	// PriorCompleted says the prior operation completed.
	PriorCompleted bool
	// SameOwnIntent says the resource's own arguments, cluster_handle
	// aside, are unchanged.
	SameOwnIntent bool
	// Prior and Next are the cluster handles the prior operation ran
	// under and the one the plan is on.
	Prior, Next Handle
	// PriorPlans are the plans of the action under Prior (what the prior
	// operation ran), NextPlans under Next.
	PriorPlans, NextPlans []*protocol.Plan
}

// NothingNew reports whether the action has nothing new to run under the
// new handle, so the resource plans no action: the prior operation
// completed, the own intent is unchanged, the first master, the API
// endpoint, the cluster's name, version, capabilities and artifacts are
// the prior handle's, and every job instance planned under the new
// handle is one the prior operation ran (same id, job, host, run-on
// host, parameters, needs, gate and idempotency key). A new instance (a
// per-host job on an added worker) or any other difference runs the
// action again.
func (r HandleRerun) NothingNew() bool {
	if !r.PriorCompleted || !r.SameOwnIntent || len(r.NextPlans) == 0 || len(r.PriorPlans) != len(r.NextPlans) {
		return false
	}
	if !sameClusterSide(r.Prior, r.Next) {
		return false
	}
	for i, next := range r.NextPlans {
		prior := r.PriorPlans[i]
		if prior == nil || next == nil || prior.Template != next.Template {
			return false
		}
		ran := map[string]bool{}
		for _, in := range prior.Instances {
			ran[instanceRun(in)] = true
		}
		for _, in := range next.Instances {
			if !ran[instanceRun(in)] {
				return false
			}
		}
	}
	return true
}

// sameClusterSide reports whether two cluster handles agree on all but
// the hosts after the first master: what jobs on the first master or at
// cluster scope consume.
func sameClusterSide(a, b Handle) bool {
	if a.Kind != b.Kind || a.Name != b.Name || a.Environment != b.Environment || a.Region != b.Region ||
		a.Version != b.Version || a.APIEndpoint != b.APIEndpoint || a.PackVersion != b.PackVersion || a.Record != b.Record {
		return false
	}
	ma, oka := firstMaster(a)
	mb, okb := firstMaster(b)
	if oka != okb || ma != mb {
		return false
	}
	return slices.EqualFunc(a.Artifacts, b.Artifacts, func(x, y HandleArtifact) bool { return x == y }) &&
		slices.EqualFunc(a.Capabilities, b.Capabilities, sameCapability)
}

func firstMaster(h Handle) (HandleHost, bool) {
	for _, x := range h.Hosts {
		if x.Role == protocol.RoleMaster {
			return x, true
		}
	}
	return HandleHost{}, false
}

func sameCapability(x, y protocol.Capability) bool {
	if x.Key != y.Key || x.Scope != y.Scope || len(x.Attributes) != len(y.Attributes) {
		return false
	}
	for k, v := range x.Attributes {
		if w, ok := y.Attributes[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// instanceRun is what one job instance runs, as one comparable string.
func instanceRun(in *protocol.JobInstance) string {
	parts := []string{in.ID, in.JobID, in.Stage, in.Host, in.RunOn, in.Pack, in.IdempotencyKey, strings.Join(in.Needs, ",")}
	if in.Gate != nil {
		parts = append(parts, "gate="+in.Gate.ID)
	}
	for _, k := range protocol.SortedKeys(in.Params) {
		parts = append(parts, k+"="+in.Params[k])
	}
	return strings.Join(parts, "\x00")
}
