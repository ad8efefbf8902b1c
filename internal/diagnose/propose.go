package diagnose

import (
	"fmt"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Planner proposes a patch for a diagnosis (seed 001 §14 Planner). The
// patch is a proposal: it still goes through the Reviewer and, in HCL,
// through a person's approval.
type Planner interface {
	Propose(f Failure, d Diagnosis) (*protocol.PlanPatch, error)
}

// RulePlanner proposes the patch of the built-in rule that made a
// diagnosis; nil Rules means BuiltinRules.
type RulePlanner struct {
	Rules Rules
}

// Propose returns the rule's patch, nil when the rule has nothing to
// propose (e.g. the failed job is not in the plan).
func (p RulePlanner) Propose(f Failure, d Diagnosis) (*protocol.PlanPatch, error) {
	rs := p.Rules
	if rs == nil {
		rs = BuiltinRules()
	}
	i := slices.IndexFunc(rs, func(r Rule) bool { return r.ID == d.Rule })
	if d.Rule == "" || i < 0 {
		return nil, fmt.Errorf("diagnose: diagnosis by %s names no built-in rule (%q)", d.Source, d.Rule)
	}
	r := rs[i]
	m, ok := r.match(f)
	if !ok {
		return nil, fmt.Errorf("diagnose: rule %s does not match the failure of %s", r.ID, f.Instance)
	}
	if r.Patch == nil {
		return nil, nil
	}
	draft := r.Patch(f, m)
	return patchFor(r, f, r.Diagnosis(m, draft, nil), draft), nil
}
