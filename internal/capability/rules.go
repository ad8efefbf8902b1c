package capability

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RuleEffect is what a matching policy rule does to a provider kind.
type RuleEffect string

// Rule effects.
const (
	// EffectAllow lets the provider serve, whatever the environment's
	// allowed_providers say.
	EffectAllow RuleEffect = "allow"
	// EffectDeny rejects it; no exception can grant it.
	EffectDeny RuleEffect = "deny"
	// EffectRequireApproval lets it serve once an actor holding one of the
	// rule's roles approves binding or creating it (a cost_confirmation
	// gate when the rule matched on cost, else an approval gate; among
	// several providers, choosing its option at the provider_selection
	// gate needs those roles, see checkOptionApproval).
	EffectRequireApproval RuleEffect = "require_approval"
	// EffectException rejects it unless an actor holding one of the rule's
	// roles grants an exception at a policy_exception gate.
	EffectException RuleEffect = "exception"
)

// RuleEffects lists the valid effects.
var RuleEffects = []RuleEffect{EffectAllow, EffectDeny, EffectRequireApproval, EffectException}

// Context is what policy rules match on besides capability and
// environment: the provider's organization, the intent's criticality
// and the compliance regimes it falls under.
type Context struct {
	Organization string   `json:"organization,omitempty"`
	Criticality  string   `json:"criticality,omitempty"`
	Compliance   []string `json:"compliance,omitempty"`
}

// Rule is one policy rule: it matches a provider kind for a requirement
// when every dimension it sets matches (an empty list matches anything),
// and the first matching rule, in order, decides for that kind.
type Rule struct {
	Name          string   `json:"name"`
	Capability    string   `json:"capability,omitempty"`
	Environments  []string `json:"environments,omitempty"`
	Organizations []string `json:"organizations,omitempty"`
	Criticality   []string `json:"criticality,omitempty"`
	// Compliance matches when the intent falls under one of these.
	Compliance []string `json:"compliance,omitempty"`
	Providers  []string `json:"providers,omitempty"`
	// MinMonthlyUSD matches only the creation of a provider whose pack
	// declares at least this monthly cost; an existing candidate never
	// matches it.
	MinMonthlyUSD *float64   `json:"min_monthly_usd,omitempty"`
	Effect        RuleEffect `json:"effect"`
	Roles         []string   `json:"roles,omitempty"`
	Reason        string     `json:"reason,omitempty"`
}

// ruleHit is the rule that decided for one provider kind.
type ruleHit struct {
	index int // 1-based
	rule  *Rule
}

func (h ruleHit) name() string { return fmt.Sprintf("rule %d %q", h.index, h.rule.Name) }

// why is the reason text of a hit: `rule 2 "pci" (compliance pci): deny: reason`.
func (h ruleHit) why(provider string, matched []string) string {
	s := fmt.Sprintf("%s %s provider %s", h.name(), effectVerb(h.rule.Effect), provider)
	if len(matched) > 0 {
		s += " (" + strings.Join(matched, ", ") + ")"
	}
	if h.rule.Reason != "" {
		s += ": " + h.rule.Reason
	}
	return s
}

func effectVerb(e RuleEffect) string {
	switch e {
	case EffectAllow:
		return "allows"
	case EffectDeny:
		return "denies"
	case EffectRequireApproval:
		return "requires approval for"
	default:
		return "forbids, save by exception,"
	}
}

// matchRule returns the first rule matching provider kind p (creator says
// whether it would be created, at cost usd) and what it matched on.
func (r *resolution) matchRule(p string, creator bool, cost float64) (ruleHit, []string, bool) {
	ctx := r.req.Context
	for i := range r.req.Rules {
		ru := &r.req.Rules[i]
		var on []string
		in := func(dim string, list []string, v string) bool {
			if len(list) == 0 {
				return true
			}
			if slices.Contains(list, v) {
				on = append(on, dim+" "+v)
				return true
			}
			return false
		}
		if ru.Capability != "" && ru.Capability != r.key {
			continue
		}
		if !in("environment", ru.Environments, r.env) || !in("organization", ru.Organizations, ctx.Organization) ||
			!in("criticality", ru.Criticality, ctx.Criticality) || !in("provider", ru.Providers, p) {
			continue
		}
		if len(ru.Compliance) > 0 {
			hit := ""
			for _, c := range ctx.Compliance {
				if slices.Contains(ru.Compliance, c) {
					hit = c
					break
				}
			}
			if hit == "" {
				continue
			}
			on = append(on, "compliance "+hit)
		}
		if ru.MinMonthlyUSD != nil {
			if !creator || cost < *ru.MinMonthlyUSD {
				continue
			}
			on = append(on, fmt.Sprintf("cost %s USD a month >= %s", usd(cost), usd(*ru.MinMonthlyUSD)))
		}
		return ruleHit{index: i + 1, rule: ru}, on, true
	}
	return ruleHit{}, nil, false
}

// verdict is the policy's say on one provider kind.
type verdict struct {
	msg       string
	allowed   bool
	decidedBy string
	// exceptionRoles are set when an exception may grant a forbidden kind.
	exceptionRoles []string
	// approval is set when serving needs an approval (require_approval).
	approval *ruleHit
	costRule bool
}

// judge decides whether provider kind p may serve: the first matching
// rule, else the environment's policy.
func (r *resolution) judge(p string, creator bool, cost float64) verdict {
	if h, on, ok := r.matchRule(p, creator, cost); ok {
		v := verdict{msg: h.why(p, on), decidedBy: h.name()}
		switch h.rule.Effect {
		case EffectAllow:
			v.allowed = true
		case EffectRequireApproval:
			v.allowed = true
			hh := h
			v.approval = &hh
			v.costRule = h.rule.MinMonthlyUSD != nil
		case EffectException:
			v.exceptionRoles = h.rule.Roles
		}
		return v
	}
	msg, allowed := r.providerAllowed(p)
	v := verdict{msg: msg, allowed: allowed, decidedBy: "no policy"}
	if r.hasPolicy {
		v.decidedBy = fmt.Sprintf("capability_policy %s %s", r.key, r.envName())
	}
	if !allowed {
		v.exceptionRoles = r.policy.ExceptionRoles
	}
	return v
}

// CheckRule refuses a rule that could never take effect or says nothing.
func CheckRule(ru Rule) error {
	if !slices.Contains(RuleEffects, ru.Effect) {
		return fmt.Errorf("effect %q is not one of allow, deny, require_approval, exception", ru.Effect)
	}
	if (ru.Effect == EffectRequireApproval || ru.Effect == EffectException) && len(ru.Roles) == 0 {
		return fmt.Errorf("effect %s needs roles: the roles that may approve or grant", ru.Effect)
	}
	if (ru.Effect == EffectAllow || ru.Effect == EffectDeny) && len(ru.Roles) > 0 {
		return fmt.Errorf("effect %s takes no roles (no one decides at a gate); remove roles or use require_approval or exception", ru.Effect)
	}
	if ru.MinMonthlyUSD != nil && *ru.MinMonthlyUSD < 0 {
		return fmt.Errorf("min_monthly_cost_usd %s is negative; give 0 or more", usd(*ru.MinMonthlyUSD))
	}
	return nil
}

func (r *resolution) noteApproval(name string, v verdict) {
	if v.approval == nil {
		return
	}
	if r.approvals == nil {
		r.approvals = map[string]verdict{}
	}
	r.approvals[name] = v
}

// bindApproval holds the binding of c, which a require_approval rule
// lets serve, at an approval gate the rule's roles pass.
func (r *resolution) bindApproval(d Decision, c Candidate, v verdict) Decision {
	opts := []protocol.GateOption{r.bindOption("bind "+c.Name, c)}
	reason := fmt.Sprintf("%s in %s: binding %s (%s) needs approval: %s", r.key, r.envName(), c.Name, c.Provider, v.msg)
	bound := d
	d = r.gate(d, protocol.GateApproval, "approve-bind-"+slug(c.Name), reason, opts, v.approval.rule.Roles)
	d.Gate.Chosen = opts[0].ID
	d.Binding.Provider, d.Binding.Capability = bound.Binding.Provider, bound.Binding.Capability
	return d
}

// createApproval holds the creation by c at a gate the rule's roles pass:
// cost_confirmation when the rule matched on cost, else approval.
func (r *resolution) createApproval(d Decision, c Creator, v verdict) Decision {
	opts := []protocol.GateOption{r.createOption("create "+c.Provider, c)}
	typ, id := protocol.GateApproval, "approve-"+slug(c.Provider)
	if v.costRule {
		typ, id = protocol.GateCostConfirmation, "confirm-cost-"+slug(c.Provider)
	}
	reason := fmt.Sprintf("%s in %s: creating %s (pack %s %s)%s needs approval: %s", r.key, r.envName(), c.Provider, c.Pack, c.Action, costNote(c), v.msg)
	d = r.gate(d, typ, id, reason, opts, v.approval.rule.Roles)
	d.Gate.Chosen = opts[0].ID
	return d
}

// shapedNote says which parameters of the creating pack the constraints
// set: "; shaped by the constraints: storage_size 200Gi (min_capacity_gb 200)".
func shapedNote(c *Create) string {
	if c == nil || len(c.Shaped) == 0 {
		return ""
	}
	return "; shaped by the constraints: " + strings.Join(c.Shaped, ", ")
}

// withCandidates records, when rules were weighed, every candidate's
// verdict on the binding the plan keeps.
func (r *resolution) withCandidates(d Decision) Decision {
	if len(r.req.Rules) == 0 {
		return d
	}
	d.Binding.Candidates = nil
	for _, c := range d.Candidates {
		d.Binding.Candidates = append(d.Binding.Candidates, protocol.BindingCandidate{
			Name: c.Name, Provider: c.Provider, Accepted: c.Accepted, DecidedBy: c.DecidedBy, Reason: strings.Join(c.Reasons, "; ")})
	}
	return d
}
