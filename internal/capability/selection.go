package capability

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// optionApproval is the require_approval verdict on what option o binds
// or creates, if a rule asks for one.
func (r *resolution) optionApproval(o protocol.GateOption) (verdict, bool) {
	switch o.Effect {
	case protocol.EffectBind:
		v, ok := r.approvals[o.Candidate]
		return v, ok && v.approval != nil
	case protocol.EffectCreate:
		v, ok := r.approvals[o.Provider]
		return v, ok && v.approval != nil
	}
	return verdict{}, false
}

// approvalNote says, for a gate offering several providers, which options
// a require_approval rule holds and whose approval each needs: `; option
// "bind aws-s3-eu" needs approval by one of finops: rule 1 "aws" requires
// approval for provider aws_s3`. Empty when no rule asks.
func (r *resolution) approvalNote(opts []protocol.GateOption) string {
	var parts []string
	for _, o := range opts {
		if v, ok := r.optionApproval(o); ok {
			parts = append(parts, fmt.Sprintf("option %q needs approval by one of %s: %s", o.ID, strings.Join(v.approval.rule.Roles, ", "), v.msg))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// checkOptionApproval checks a decision choosing option o of gate g
// against the require_approval rule that decided for what o binds or
// creates. With no such rule g is returned as it is. An actor holding one
// of the rule's roles both chooses and approves, and the gate the plan
// keeps holds every role set the choice was checked against, so that
// apply (the engine's protocol.Decision.CheckRoles) checks the same
// again: the gate requires the rule's roles when it required none of its
// own; when it did (the capability policy's approval_roles), it keeps
// them and the chosen option requires the rule's as well. Its reason
// names the rule. An actor without the rule's roles is refused with the
// rule and its roles.
func (r *resolution) checkOptionApproval(g protocol.Gate, o protocol.GateOption, c protocol.Decision) (protocol.Gate, error) {
	v, ok := r.optionApproval(o)
	if !ok {
		return g, nil
	}
	roles := v.approval.rule.Roles
	held := ""
	for _, ro := range c.Roles {
		if slices.Contains(roles, ro) {
			held = ro
			break
		}
	}
	if held == "" {
		return g, fmt.Errorf("gate %q: option %q needs approval by one of %q (%s), but actor %q has roles %q",
			g.ID, o.ID, roles, v.msg, c.Actor, c.Roles)
	}
	if len(g.RequiredRoles) == 0 {
		g.RequiredRoles = slices.Clone(roles)
	} else {
		g.OptionRoles = map[string][]string{o.ID: slices.Clone(roles)}
	}
	g.Reason += fmt.Sprintf("; option %q approved by %s (role %s): %s", o.ID, orSomeone(c.Actor), held, v.msg)
	return g, nil
}
