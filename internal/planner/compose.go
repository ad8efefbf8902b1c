package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Catalog is what Compose needs of a pack catalog: lookup by id and
// constraint, and the list of every pack (to find creators).
// packs.Catalog satisfies it.
type Catalog interface {
	PackSource
	List() []*protocol.ScenarioPack
}

// Request is an intent as a caller (the provider, a CLI) states it: the
// pack action, hosts and parameters, plus the environment's policy, the
// capability candidates it knows of and what previous operations left.
type Request struct {
	PlanID      string
	Catalog     Catalog
	PackID      string
	PackVersion string // constraint; empty means newest
	Intent      protocol.Intent
	Environment string
	Policy      capability.Policy
	// Candidates are capabilities exported by other resources or declared
	// as external providers.
	Candidates    []capability.Candidate
	State         State
	Customization *protocol.Customization
	Patches       []protocol.PlanPatch
	Now           time.Time
	// Choices are the gate decisions known at plan (the resource's
	// approvals, with the provider's actor and roles): a choice at a
	// capability gate builds the plan for the chosen candidate or provider.
	Choices []protocol.Decision
	// Requirements are the consumer's constraints per required capability
	// key, set over the pack's own: they filter candidates and shape a
	// provider created for it.
	Requirements map[string]map[string]string
	// Rules and Context are the policy rules and what they match on.
	Rules   []capability.Rule
	Context capability.Context
}

// Composed is a built plan with the capability decisions behind it.
type Composed struct {
	Pack      *protocol.ScenarioPack
	Plan      *protocol.Plan
	Decisions []capability.Decision
}

// CreatorPrefix names the provider kind a pack creates: a requirement that
// no candidate meets may be satisfied by a new, dedicated instance of a pack
// providing the capability, e.g. dedicated_minio for object_storage.s3.
const CreatorPrefix = "dedicated_"

// Creators lists, for every pack of the catalog that provides a capability
// through an install action (packs that need hosts of their own, such as a cluster create, are bound, never created on the fly), the creator of a dedicated instance.
func Creators(cat Catalog) []capability.Creator {
	var out []capability.Creator
	for _, p := range cat.List() {
		action := ""
		for _, a := range []string{"install"} {
			if _, ok := p.Templates[a]; ok {
				action = a
				break
			}
		}
		if action == "" {
			continue
		}
		for _, pr := range p.Provides {
			c := capability.Creator{
				Capability: pr.Capability, Provider: CreatorPrefix + p.ID, Pack: p.ID, Version: "=" + p.Version, Action: action,
			}
			if p.Cost != nil {
				c.MonthlyUSD = p.Cost.MonthlyUSD
			}
			c.ShapedBy = pr.ShapedBy
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b capability.Creator) int {
		if a.Capability != b.Capability {
			return strings.Compare(a.Capability, b.Capability)
		}
		return strings.Compare(a.Provider, b.Provider)
	})
	return out
}

// Compose resolves the pack's capability requirements and builds the plan.
// A requirement already provided in State is not resolved again.
func Compose(req Request) (*Composed, error) {
	pack, err := req.Catalog.Get(req.PackID, req.PackVersion)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", req.PackID, err)
	}
	in := req.Intent
	in.Pack = pack.ID
	if in.Constraints == nil {
		in.Constraints = map[string]string{}
	}
	if _, ok := in.Constraints["environment"]; !ok && req.Environment != "" {
		in.Constraints["environment"] = req.Environment
	}
	// The target's name is the cluster name unless the intent says otherwise.
	if _, ok := pack.Parameters["cluster_name"]; ok && in.TargetResource != "" && in.Parameters["cluster_name"] == "" {
		params := map[string]string{"cluster_name": in.TargetResource}
		for k, v := range in.Parameters {
			params[k] = v
		}
		in.Parameters = params
	}
	workload := map[string]string{}
	for k, v := range in.Parameters {
		workload[k] = v
	}
	for k, v := range in.Constraints {
		workload[k] = v
	}
	creators := Creators(req.Catalog)
	var decisions []capability.Decision
	for _, r := range pack.Requires {
		if stateProvides(req.State, r.Capability) {
			continue
		}
		d, err := capability.Resolve(capability.Request{
			Requirement: withConstraints(r.Requirement(), req.Requirements[r.Capability]), Environment: req.Environment, Workload: workload,
			Candidates: req.Candidates, Creators: creators, Policy: req.Policy, Choices: req.Choices,
			Consumer: in.ID, Rules: req.Rules, Context: req.Context,
		})
		if err != nil {
			if r.Optional {
				continue
			}
			return nil, fmt.Errorf("pack %s requires %s: %w", pack.Ref(), r.Capability, err)
		}
		decisions = append(decisions, d)
	}
	plan, err := Build(Input{
		PlanID: req.PlanID, Intent: in, Pack: pack, Action: in.Action, Decisions: decisions,
		State: req.State, Customization: req.Customization, Patches: req.Patches, Now: req.Now, Packs: req.Catalog,
	})
	if err != nil {
		return nil, err
	}
	return &Composed{Pack: pack, Plan: plan, Decisions: decisions}, nil
}

func stateProvides(s State, key string) bool {
	for _, c := range s.Capabilities {
		if c.Key == key {
			return true
		}
	}
	return false
}

// withConstraints sets the consumer's constraints over the pack's.
func withConstraints(r protocol.CapabilityRequirement, extra map[string]string) protocol.CapabilityRequirement {
	if len(extra) == 0 {
		return r
	}
	cons := make(map[string]string, len(r.Constraints)+len(extra))
	for k, v := range r.Constraints {
		cons[k] = v
	}
	for k, v := range extra {
		cons[k] = v
	}
	r.Constraints = cons
	return r
}
