package intent

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Approval is one gate decision a resource gives (approvals[i]).
type Approval struct {
	Gate   string
	Option string
}

// Actor is who decides: the provider's actor and actor_roles.
type Actor struct {
	Name  string
	Roles []string
}

// Decisions turns approvals into the decisions the planner (plan-time
// choices) and the engine (apply) take, made by actor.
func Decisions(approvals []Approval, actor Actor) []protocol.Decision {
	out := make([]protocol.Decision, 0, len(approvals))
	for _, a := range approvals {
		out = append(out, protocol.Decision{Gate: a.Gate, Option: a.Option, Actor: actor.Name, Roles: slices.Clone(actor.Roles)})
	}
	return out
}

// GateSet is what approvals are checked against: the gates of the planned
// operations, and those of the pack's other templates, which may be
// decided ahead (the removal gate of a node, approved when it is added).
type GateSet struct {
	Planned []protocol.Gate
	Later   []protocol.Gate
	// Partial says the planned operations are day-2 or destroy ones: the
	// gates capability resolution made when the resource was created
	// (approve-dedicated-minio, a provider selection) are in neither set,
	// so an approval naming a gate not found is left alone rather than
	// refused as unknown.
	Partial bool
}

// PlannedGates collects the gates of plans' instances, in plan order.
func PlannedGates(plans ...*protocol.Plan) []protocol.Gate {
	var out []protocol.Gate
	for _, p := range plans {
		for _, in := range p.Instances {
			if in.Gate != nil {
				out = append(out, *in.Gate)
			}
		}
	}
	return out
}

// TemplateGates collects the gates of every template of a pack, by
// action order.
func TemplateGates(p *protocol.ScenarioPack) []protocol.Gate {
	var out []protocol.Gate
	for _, a := range protocol.SortedKeys(p.Templates) {
		out = append(out, p.Templates[a].Gates...)
	}
	return out
}

func (s GateSet) find(id string) (protocol.Gate, bool, bool) {
	for _, g := range s.Planned {
		if g.ID == id {
			return g, true, true
		}
	}
	for _, g := range s.Later {
		if g.ID == id {
			return g, false, true
		}
	}
	return protocol.Gate{}, false, false
}

// CheckApprovals refuses, at plan, approvals that could not take effect:
// a gate neither the plan nor the pack has, an option the gate does not
// have (with the gate's options and what each does), and a gate decided
// twice. A decision by an actor without one of the gate's roles is a
// warning: the plan shows the gate waiting, and apply stops there.
// base is the approvals attribute.
func CheckApprovals(base Path, approvals []Approval, gates GateSet, actor Actor) Problems {
	var ps Problems
	first := map[string]int{}
	for i, a := range approvals {
		p := base.Index(i)
		g, planned, ok := gates.find(a.Gate)
		if !ok && gates.Partial {
			continue
		}
		if !ok {
			ids := make([]string, 0, len(gates.Planned))
			for _, pg := range gates.Planned {
				ids = append(ids, pg.ID)
			}
			ps.add(p.Attr("gate"), "Unknown gate", "neither the plan nor the pack has a gate %s; gates in this plan: %s. Remove the approval or name one of them.",
				paramtype.Quote(a.Gate), orNone(ids))
			continue
		}
		if j, dup := first[a.Gate]; dup {
			ps.add(p.Attr("gate"), "Gate decided twice", "gate %s is already decided by %s; keep one decision per gate.", a.Gate, base.Index(j))
			continue
		}
		first[a.Gate] = i
		o, ok := g.Option(a.Option)
		if !ok {
			ps.add(p.Attr("option"), "Unknown option", "gate %s (%s) has no option %s; its options: %s.",
				g.ID, g.Type, paramtype.Quote(a.Option), describeOptions(g))
			continue
		}
		d := protocol.Decision{Gate: g.ID, Option: o.ID, Actor: actor.Name, Roles: actor.Roles}
		if err := d.CheckRoles(g); err != nil {
			// The roles the actor lacks: the gate's, else those the
			// option requires on top of them (a require_approval rule's).
			roles := g.RequiredRoles
			if len(roles) == 0 || slices.ContainsFunc(actor.Roles, func(r string) bool { return slices.Contains(roles, r) }) {
				roles = g.OptionRoles[o.ID]
			}
			ps.warn(p, "Gate waits: the approver lacks its role", "gate %s waits: option %s needs an actor holding one of the roles %s, but actor %s holds %s, so apply stops at this gate with nothing after it run. "+
				"Apply with an actor holding one of them (the provider's actor and actor_roles), or remove the approval.",
				g.ID, paramtype.Quote(o.ID), quoteList(roles), paramtype.Quote(actor.Name), orNone(actor.Roles))
			continue
		}
		if planned && g.Chosen != "" && (o.Effect == protocol.EffectBind || o.Effect == protocol.EffectCreate) && o.ID != g.Chosen {
			ps.add(p.Attr("option"), "Option differs from the plan", "the plan of gate %s is built for %s; plan again with this decision.", g.ID, paramtype.Quote(g.Chosen))
		}
	}
	return ps
}

func describeOptions(g protocol.Gate) string {
	parts := make([]string, len(g.Options))
	for i, o := range g.Options {
		what := string(o.Effect)
		switch o.Effect {
		case protocol.EffectBind:
			what = "binds " + o.Candidate
		case protocol.EffectCreate:
			what = "creates " + o.Provider
		case protocol.EffectCancel:
			what = "cancels the operation"
		case protocol.EffectProceed:
			what = "proceeds"
		}
		parts[i] = paramtype.Quote(o.ID) + " (" + what + ")"
	}
	return strings.Join(parts, ", ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return quoteList(s)
}
