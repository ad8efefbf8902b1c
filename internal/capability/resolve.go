package capability

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ErrUnsatisfiable is wrapped by Resolve when no candidate matches and no
// allowed provider can be created.
var ErrUnsatisfiable = errors.New("capability requirement cannot be satisfied")

// OptionCancel is the last option of every gate Resolve creates.
const OptionCancel = "cancel operation"

// resolution carries the state of one Resolve call.
type resolution struct {
	req         Request
	key         string
	env         string
	policy      EnvPolicy
	hasPolicy   bool
	constraints map[string]string
	// forbidden and forbiddenCreators would satisfy the requirement but
	// for the policy's allowed providers (policy exception material).
	forbidden         []Candidate
	forbiddenCreators []Creator
	// exceptionRoles may grant the forbidden ones (the environment's
	// exception_roles, or an exception rule's roles).
	exceptionRoles []string
	// approvals are the rules requiring approval to bind a candidate (by
	// name) or create a provider (by kind).
	approvals map[string]verdict
	// candidates and creators are the accepted ones, by name and provider,
	// for options chosen at a gate.
	candidates map[string]Candidate
	creators   map[string]Creator
}

// Resolve decides how a requirement is satisfied: bind one candidate,
// create a provider through a creator pack, or stop at a gate. It returns
// an error wrapping ErrUnsatisfiable, saying what would satisfy the
// requirement, when nothing can.
func Resolve(req Request) (Decision, error) {
	r := &resolution{req: req, key: req.Requirement.Key, env: req.Environment}
	d, err := r.resolve()
	if err != nil {
		return d, err
	}
	return r.withCandidates(d), nil
}

func (r *resolution) resolve() (Decision, error) {
	req := r.req
	if err := req.Requirement.Validate(); err != nil {
		return Decision{}, fmt.Errorf("resolve: %w", err)
	}
	r.policy, r.hasPolicy = req.Policy.Lookup(r.key, r.env)
	r.constraints = make(map[string]string, len(req.Requirement.Constraints)+1)
	for k, v := range req.Requirement.Constraints {
		r.constraints[k] = v
	}
	if r.policy.RequireEncryption {
		// The policy's requirement wins over a consumer that does not
		// need encryption.
		if v, set := r.constraints["encryption"]; !set || v == ValueNotRequired {
			r.constraints["encryption"] = ValueRequired
		}
	}

	d := Decision{Requirement: req.Requirement}
	d.Requirement.Constraints = r.constraints
	accepted := r.judgeCandidates(&d)
	creators := r.judgeCreators(&d)

	switch {
	case len(accepted) == 1:
		c := accepted[0]
		d = r.bind(d, c, fmt.Sprintf("%s (%s) is the only matching candidate of %d", c.Name, c.Provider, len(req.Candidates)))
		if v, ok := r.approvals[c.Name]; ok {
			return r.choice(r.bindApproval(d, c, v))
		}
		return d, nil
	case len(accepted) > 1:
		return r.choice(r.chooseCandidate(d, accepted))
	case len(creators) > 0:
		return r.choice(r.chooseCreator(d, creators))
	case r.exceptionPossible():
		return r.choice(r.exception(d))
	default:
		return d, r.unsatisfiable(d)
	}
}

func (r *resolution) judgeCandidates(d *Decision) []Candidate {
	cands := slices.Clone(r.req.Candidates)
	slices.SortFunc(cands, func(a, b Candidate) int {
		return strings.Compare(a.Name+"\x00"+a.Provider, b.Name+"\x00"+b.Provider)
	})
	var accepted []Candidate
	for _, c := range cands {
		rep := CandidateReport{Name: c.Name, Provider: c.Provider}
		var ok, bad []string
		if c.Capability.Key != r.key {
			bad = append(bad, fmt.Sprintf("provides %s, not %s", c.Capability.Key, r.key))
		}
		v := r.judge(c.Provider, false, 0)
		allowed := v.allowed
		rep.DecidedBy = v.decidedBy
		if allowed {
			ok = append(ok, v.msg)
		} else {
			bad = append(bad, v.msg)
		}
		for _, chk := range MatchConstraints(r.constraints, c.Capability.Attributes, r.req.Workload) {
			if chk.OK {
				ok = append(ok, chk.Detail)
			} else {
				bad = append(bad, chk.Detail)
			}
		}
		rep.Accepted = len(bad) == 0
		rep.Reasons = prefixed(ok, bad, rep.Accepted)
		d.Candidates = append(d.Candidates, rep)
		if rep.Accepted {
			accepted = append(accepted, c)
			r.noteApproval(c.Name, v)
		} else if !allowed && len(bad) == 1 && len(v.exceptionRoles) > 0 {
			r.forbidden = append(r.forbidden, c)
			r.addExceptionRoles(v.exceptionRoles)
		}
	}
	return accepted
}

func (r *resolution) judgeCreators(d *Decision) []Creator {
	var mine []Creator
	for _, c := range r.req.Creators {
		if c.Capability == r.key {
			mine = append(mine, c)
		}
	}
	slices.SortFunc(mine, func(a, b Creator) int { return strings.Compare(a.Provider+"\x00"+a.Pack, b.Provider+"\x00"+b.Pack) })
	var accepted []Creator
	for _, c := range mine {
		rep := CandidateReport{Name: creatorName(c), Provider: c.Provider, Create: true}
		v := r.judge(c.Provider, true, c.MonthlyUSD)
		rep.Accepted = v.allowed
		rep.DecidedBy = v.decidedBy
		if v.allowed {
			rep.Reasons = []string{"accepted: " + v.msg, fmt.Sprintf("accepted: pack %s %s can create it", c.Pack, c.Action)}
			accepted = append(accepted, c)
			r.noteApproval(c.Provider, v)
		} else {
			rep.Reasons = []string{"rejected: " + v.msg}
			if len(v.exceptionRoles) > 0 {
				r.forbiddenCreators = append(r.forbiddenCreators, c)
				r.addExceptionRoles(v.exceptionRoles)
			}
		}
		d.Candidates = append(d.Candidates, rep)
	}
	return accepted
}

func creatorName(c Creator) string { return "new " + c.Provider + " (" + c.Pack + " " + c.Action + ")" }

func prefixed(ok, bad []string, accepted bool) []string {
	src, p := ok, "accepted: "
	if !accepted {
		src, p = bad, "rejected: "
	}
	out := make([]string, len(src))
	for i, s := range src {
		out[i] = p + s
	}
	return out
}

func (r *resolution) envName() string {
	if r.env == "" {
		return "(no environment)"
	}
	return r.env
}

// providerAllowed says whether the policy allows a provider kind and why.
func (r *resolution) providerAllowed(p string) (string, bool) {
	if !r.hasPolicy {
		return fmt.Sprintf("provider %s allowed: no policy for %s in %s", p, r.key, r.envName()), true
	}
	if len(r.policy.AllowedProviders) == 0 {
		return fmt.Sprintf("provider %s allowed: the %s policy of %s lists no allowed providers", p, r.envName(), r.key), true
	}
	allowed := slices.Sorted(slices.Values(r.policy.AllowedProviders))
	if r.policy.Allows(p) {
		return fmt.Sprintf("provider %s allowed in %s", p, r.envName()), true
	}
	return fmt.Sprintf("provider %s not allowed in %s (allowed: %s)", p, r.envName(), strings.Join(allowed, ", ")), false
}

func (r *resolution) bind(d Decision, c Candidate, reason string) Decision {
	capa := c.Capability
	d.Kind = KindBind
	d.Reason = reason
	d.Binding = protocol.Binding{Requirement: d.Requirement, Decision: string(KindBind), Provider: c.Name, Capability: &capa, Reason: reason}
	return d
}

func (r *resolution) chooseCandidate(d Decision, accepted []Candidate) Decision {
	names := make([]string, len(accepted))
	for i, c := range accepted {
		names[i] = c.Name
	}
	if def := r.policy.DefaultProvider; def != "" {
		var hits []Candidate
		for _, c := range accepted {
			if c.Provider == def {
				hits = append(hits, c)
			}
		}
		if len(hits) == 1 {
			d = r.bind(d, hits[0], fmt.Sprintf("default provider %s in %s chooses %s among %d matching candidates (%s)",
				def, r.envName(), hits[0].Name, len(accepted), strings.Join(names, ", ")))
			if v, ok := r.approvals[hits[0].Name]; ok {
				return r.bindApproval(d, hits[0], v)
			}
			return d
		}
	}
	opts := make([]protocol.GateOption, 0, len(accepted)+1)
	for _, c := range accepted {
		opts = append(opts, r.bindOption("bind "+c.Name, c))
	}
	reason := fmt.Sprintf("%s: %d candidates match (%s) and no default provider in %s chooses one%s", r.key, len(accepted), strings.Join(names, ", "), r.envName(), r.approvalNote(opts))
	return r.gate(d, protocol.GateProviderSelection, "select-"+slug(r.key)+"-provider", reason, opts, nil)
}

func (r *resolution) chooseCreator(d Decision, creators []Creator) Decision {
	pick := -1
	why := ""
	if len(creators) == 1 {
		pick, why = 0, fmt.Sprintf("%s is the only provider allowed in %s that a pack can create", creators[0].Provider, r.envName())
	} else if def := r.policy.DefaultProvider; def != "" {
		for i, c := range creators {
			if c.Provider == def {
				pick, why = i, fmt.Sprintf("default provider %s in %s", def, r.envName())
				break
			}
		}
	}
	none := fmt.Sprintf("no existing provider matches %s", r.key)
	if len(r.req.Candidates) == 0 {
		none = fmt.Sprintf("no existing provider of %s was offered", r.key)
	}
	if pick < 0 {
		opts := make([]protocol.GateOption, 0, len(creators)+1)
		kinds := make([]string, 0, len(creators))
		for _, c := range creators {
			opts = append(opts, r.createOption("create "+c.Provider, c))
			kinds = append(kinds, c.Provider+costNote(c))
		}
		reason := fmt.Sprintf("%s; %d providers can be created (%s) and no default provider in %s chooses one%s",
			none, len(creators), strings.Join(kinds, ", "), r.envName(), r.approvalNote(opts))
		var roles []string
		if r.policy.RequireApproval {
			roles = r.policy.ApprovalRoles
		}
		return r.gate(d, protocol.GateProviderSelection, "select-"+slug(r.key)+"-provider", reason, opts, roles)
	}
	c := creators[pick]
	d.Create = r.newCreate(c)
	if v, ok := r.approvals[c.Provider]; ok {
		return r.createApproval(d, c, v)
	}
	if r.policy.RequireApproval {
		// Only options that can take effect: no existing provider matches,
		// so there is nothing to bind instead.
		opts := []protocol.GateOption{r.createOption("create "+c.Provider, c)}
		reason := fmt.Sprintf("%s in %s and no existing %s provider matches; policy requires approval to create %s (pack %s %s)%s",
			r.key, r.envName(), r.envName(), c.Provider, c.Pack, c.Action, costNote(c))
		if desc := Describe(r.constraints, r.req.Workload); desc != "" {
			reason = fmt.Sprintf("%s (%s) is required in %s and no existing provider matches; policy requires approval to create %s (pack %s %s)%s",
				r.key, desc, r.envName(), c.Provider, c.Pack, c.Action, costNote(c))
		}
		d = r.gate(d, protocol.GateApproval, "approve-"+slug(c.Provider), reason, opts, r.policy.ApprovalRoles)
		d.Gate.Chosen = opts[0].ID // the plan holds this creation behind the gate
		return d
	}
	if over, why := r.overCost(c); over {
		return r.costGate(d, c, why)
	}
	reason := fmt.Sprintf("%s; create %s with pack %s %s: %s%s%s", none, c.Provider, c.Pack, c.Action, why, r.costWithin(c), shapedNote(d.Create))
	d.Kind = KindCreate
	d.Reason = reason
	d.Binding = protocol.Binding{Requirement: d.Requirement, Decision: string(KindCreate), Provider: c.Provider, Reason: reason}
	return d
}

func (r *resolution) gate(d Decision, typ protocol.GateType, id, reason string, opts []protocol.GateOption, roles []string) Decision {
	g := &protocol.Gate{ID: id, Type: typ, Reason: reason, Options: append(opts, protocol.Cancel(OptionCancel)), RequiredRoles: slices.Clone(roles)}
	d.Kind = KindGate
	d.Gate = g
	d.Reason = reason
	d.Binding = protocol.Binding{Requirement: d.Requirement, Decision: string(KindGate), Reason: reason}
	return d
}

// unsatisfiable builds the error that says what would satisfy the
// requirement and why each candidate failed.
func (r *resolution) unsatisfiable(d Decision) error {
	kinds := "any provider"
	if r.hasPolicy && len(r.policy.AllowedProviders) > 0 {
		kinds = "a provider of kind " + strings.Join(slices.Sorted(slices.Values(r.policy.AllowedProviders)), " or ")
	}
	want := ""
	if desc := Describe(r.constraints, r.req.Workload); desc != "" {
		want = " with " + desc
	}
	var considered []string
	for _, c := range d.Candidates {
		considered = append(considered, c.Name+": "+strings.Join(c.Reasons, "; "))
	}
	seen := "no candidates or creators were offered"
	if len(considered) > 0 {
		seen = "considered: " + strings.Join(considered, " | ")
	}
	return fmt.Errorf("%w: %s in %s: no candidate matches and no allowed provider can be created; declare %s%s as a candidate, or add a pack that creates one of those providers (%s)",
		ErrUnsatisfiable, r.key, r.envName(), kinds, want, seen)
}

// slug turns a name into a gate-id friendly form: object_storage.s3 ->
// object-storage-s3.
func slug(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '-'
	}, s)
}
