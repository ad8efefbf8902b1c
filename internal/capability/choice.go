package capability

import (
	"errors"
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ErrUnknownOption is wrapped by Resolve when a choice names an option
// that the gate does not have.
var ErrUnknownOption = errors.New("unknown gate option")

// bindOption is a gate option that binds candidate c.
func (r *resolution) bindOption(id string, c Candidate) protocol.GateOption {
	if r.candidates == nil {
		r.candidates = map[string]Candidate{}
	}
	r.candidates[c.Name] = c
	return protocol.GateOption{ID: id, Effect: protocol.EffectBind, Candidate: c.Name}
}

// createOption is a gate option that creates a provider with creator c.
func (r *resolution) createOption(id string, c Creator) protocol.GateOption {
	if r.creators == nil {
		r.creators = map[string]Creator{}
	}
	r.creators[c.Provider] = c
	return protocol.GateOption{ID: id, Effect: protocol.EffectCreate, Provider: c.Provider}
}

// choice applies the decision given for d's gate, if any. A bind option
// becomes a bind decision for its candidate and a create option a create
// decision for its provider; both keep the gate (Gate.Chosen names the
// option), so the jobs behind it wait for the decision's check at apply.
// Proceed and cancel options leave the gate as it is: the engine acts on
// them. A decision by an actor without the gate's roles, or without the
// roles of a require_approval rule that decided for what the option binds
// or creates, is not applied: the gate waits and Refused says why. An option the gate does not have
// is an error.
func (r *resolution) choice(d Decision) (Decision, error) {
	g := d.Gate
	if g == nil {
		return d, nil
	}
	var refused []string
	for _, c := range r.req.Choices {
		if c.Gate != g.ID {
			continue
		}
		o, ok := g.Option(c.Option)
		if !ok {
			return d, fmt.Errorf("%w: gate %s (%s) has no option %q; its options: %s", ErrUnknownOption, g.ID, g.Type, c.Option, strings.Join(quoted(g.OptionIDs()), ", "))
		}
		if err := c.CheckRoles(*g); err != nil {
			refused = append(refused, err.Error())
			continue
		}
		// A require_approval rule on what the option binds or creates
		// needs its roles too, whichever gate offers it.
		gate, err := r.checkOptionApproval(*g, o, c)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		why := fmt.Sprintf("option %q of gate %s chosen by %s", o.ID, g.ID, orSomeone(c.Actor))
		switch o.Effect {
		case protocol.EffectBind:
			cand, ok := r.candidates[o.Candidate]
			if !ok {
				return d, fmt.Errorf("%w: gate %s option %q binds %s, which is not a candidate of %s", ErrUnknownOption, g.ID, o.ID, o.Candidate, r.key)
			}
			gate.Chosen = o.ID
			out := r.bind(d, cand, fmt.Sprintf("%s: bind %s (%s); %s", why, cand.Name, cand.Provider, d.Reason))
			out.Gate = &gate
			return out, nil
		case protocol.EffectCreate:
			cr, ok := r.creators[o.Provider]
			if !ok {
				return d, fmt.Errorf("%w: gate %s option %q creates %s, which no pack can create for %s", ErrUnknownOption, g.ID, o.ID, o.Provider, r.key)
			}
			gate.Chosen = o.ID
			reason := fmt.Sprintf("%s: create %s with pack %s %s; %s", why, cr.Provider, cr.Pack, cr.Action, d.Reason)
			d.Kind = KindCreate
			d.Gate = &gate
			d.Create = r.newCreate(cr)
			d.Reason = reason
			d.Binding = protocol.Binding{Requirement: d.Requirement, Decision: string(KindCreate), Provider: cr.Provider, Reason: reason}
			return d, nil
		default:
			return d, nil
		}
	}
	if len(refused) > 0 {
		// Said in the plan: the gate waits, and why the decision given
		// does not pass it.
		d.Refused = strings.Join(refused, "; ")
		gate := *g
		gate.Reason += "; decision refused: " + d.Refused
		d.Gate = &gate
		d.Reason = gate.Reason
		d.Binding.Reason = gate.Reason
	}
	return d, nil
}

func orSomeone(actor string) string {
	if actor == "" {
		return "an actor with no name"
	}
	return actor
}

func quoted(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}
