package intent

import (
	"maps"
	"slices"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Spec is an intent in plain values: what every intent resource converts
// its model into before anything is planned.
type Spec struct {
	Pack, Version string // pack id and version constraint
	// Name is the intent's target: the cluster's name (also for cp_node,
	// which acts on its cluster), the scenario's.
	Name string
	// ResourceType is the intent's target resource type, e.g.
	// kubernetes.cluster; empty for a generic scenario.
	ResourceType string
	Environment  string
	// Hosts are the hosts with how to reach each, in inventory order.
	Hosts       []operation.HostAccess
	Params      map[string]string
	Constraints map[string]string
	Candidates  []capability.Candidate
	// State is what earlier operations left: artifacts with their expiry,
	// capabilities already provided.
	State         planner.State
	Customization *protocol.Customization
	Patches       []protocol.PlanPatch
	// Choices are the resource's approvals as decisions of the provider's
	// actor (Decisions): a choice at a provider-selection or creation gate
	// builds the plan for the chosen candidate or provider.
	Choices []protocol.Decision
	// Requirements are the consumer's constraints per required capability
	// (CheckRequirements); Context is what policy rules match on.
	Requirements map[string]map[string]string
	Context      capability.Context
}

// Change is one operation a change of the intent needs.
type Change struct {
	Action  string
	Targets []string
	// Hosts replaces the spec's hosts for this operation (remove_node
	// plans over the old and new hosts); nil means the spec's.
	Hosts []operation.HostAccess
	// Params are set over the spec's parameters for this operation only.
	Params map[string]string
	// IDParts name the change in its operation id (see OpID).
	IDParts []string
}

// Planning is what planning needs besides the intent.
type Planning struct {
	Catalog planner.Catalog
	Policy  capability.Policy
	Rules   []capability.Rule
	Now     time.Time
}

// Request is the planner request of one change. The pack's template kind
// decides what applies: a create action gets the customizations and
// every plan patch (the planner refuses one naming no job of the plan); a
// day-2 or destroy action acts on what create bound (Bound) and gets only
// the patches naming its jobs (PatchesFor). Each patch carries its
// effective risk (WithPatchRisk), which the plan shows.
func (s Spec) Request(env Planning, c Change) planner.Request {
	pack, _ := env.Catalog.Get(s.Pack, s.Version)
	hosts := s.Hosts
	if c.Hosts != nil {
		hosts = c.Hosts
	}
	params := s.Params
	if len(c.Params) > 0 {
		params = make(map[string]string, len(s.Params)+len(c.Params))
		maps.Copy(params, s.Params)
		maps.Copy(params, c.Params)
	}
	req := planner.Request{
		PlanID: OpID(s.Name, c.Action, c.IDParts...), Catalog: env.Catalog, PackID: s.Pack, PackVersion: s.Version,
		Environment: s.Environment, Policy: env.Policy, Now: env.Now, Candidates: s.Candidates, State: s.State,
		Customization: s.Customization, Patches: WithPatchRisk(pack, s.Patches), Choices: slices.Clone(s.Choices),
		Requirements: s.Requirements, Rules: env.Rules, Context: s.Context,
		Intent: protocol.Intent{ID: s.Name, Action: c.Action, TargetResource: s.Name, TargetResourceType: s.ResourceType,
			Parameters: params, Constraints: maps.Clone(s.Constraints), Hosts: hostsOf(hosts), Targets: c.Targets},
	}
	if !IsCreate(pack, c.Action) {
		req.Customization = nil
		req.Patches = WithPatchRisk(pack, PatchesFor(pack, c.Action, s.Patches))
		req.State.Capabilities = Bound(pack, s.State.Capabilities)
	}
	return req
}

// Compose plans one change. On error the op still holds the request, so
// the caller can say which attribute caused it; the planner's error is
// returned as it is (it names the pack, the job and the requirement).
func (s Spec) Compose(env Planning, c Change) (Op, error) {
	req := s.Request(env, c)
	hosts := s.Hosts
	if c.Hosts != nil {
		hosts = c.Hosts
	}
	op := Op{Action: c.Action, Targets: c.Targets, ID: req.PlanID, Hosts: slices.Clone(hosts), Req: req}
	composed, err := planner.Compose(req)
	if err != nil {
		return op, err
	}
	op.Composed = composed
	return op, nil
}

// ComposeAll plans the changes in order and stops at the first that
// cannot be planned, returning the ops planned before it and its op.
func (s Spec) ComposeAll(env Planning, changes []Change) ([]Op, *Op, error) {
	var ops []Op
	for _, c := range changes {
		op, err := s.Compose(env, c)
		if err != nil {
			return ops, &op, err
		}
		ops = append(ops, op)
	}
	return ops, nil, nil
}

func hostsOf(access []operation.HostAccess) []protocol.Host {
	if access == nil {
		return nil
	}
	out := make([]protocol.Host, len(access))
	for i, a := range access {
		out[i] = a.Host
	}
	return out
}
