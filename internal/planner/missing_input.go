package planner

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// missingParam is a pack parameter marked missing_input that the intent
// left without a value.
type missingParam struct {
	pack    *protocol.ScenarioPack
	prefix  string // unit key prefix of the pack's operation ("" or "minio/")
	subOp   string
	name    string // the pack's name for it
	display string // the intent's name for it ("minio.bucket" in a sub-operation)
}

// noteMissing records the missing_input parameters of a pack that params
// (the merged values) lacks.
func (b *builder) noteMissing(p *protocol.ScenarioPack, prefix, subOp string, params map[string]string) {
	for _, k := range protocol.SortedKeys(p.Parameters) {
		if !p.Parameters[k].MissingInput || params[k] != "" {
			continue
		}
		display := k
		if subOp != "" {
			display = subOp + "." + k
		}
		b.missingParams = append(b.missingParams, missingParam{pack: p, prefix: prefix, subOp: subOp, name: k, display: display})
	}
}

// addMissingInputGates puts a missing_input gate, named for the parameter,
// ahead of every job of the pack's operation that reads a missing
// parameter and has no value for it. Only those jobs and what depends on
// them wait; the other branches run. The gate's one option cancels: it
// passes when the parameter is set and the plan made again.
func (b *builder) addMissingInputGates() error {
	for _, m := range b.missingParams {
		var held []*unit
		for _, s := range b.stages {
			for _, u := range s.units {
				if u.job == nil || u.prefix != m.prefix || len(u.insts) == 0 {
					continue
				}
				if _, reads := u.job.Inputs.Parameters[m.name]; reads && u.params[m.name] == "" {
					held = append(held, u)
				}
			}
		}
		if len(held) == 0 {
			continue
		}
		names := make([]string, len(held))
		for i, u := range held {
			names[i] = u.key
		}
		g := &protocol.Gate{
			ID: m.prefix + "missing-input-" + m.name, Type: protocol.GateMissingInput, Parameter: m.display,
			Reason: fmt.Sprintf("parameter %s of %s has no value; %s wait for it while the other jobs run; set parameters[%q] and plan again",
				m.display, m.pack.Ref(), strings.Join(names, ", "), m.display),
			Options: []protocol.GateOption{protocol.Cancel(OptionCancelOperation)},
		}
		u := &unit{key: g.ID, gate: g, pack: m.pack, origin: protocol.OriginGate, because: g.Reason, subOp: m.subOp, prefix: m.prefix}
		if _, dup := b.units[u.key]; dup {
			return fmt.Errorf("missing_input gate id %q is already used in the plan", u.key)
		}
		placeBefore(held[0].stage, u, held[0])
		b.units[u.key] = u
		gn := b.gateNode(u)
		for _, h := range held {
			for _, n := range h.insts {
				n.needs = append(n.needs, gn.idx)
			}
		}
	}
	return nil
}

// OptionCancelOperation is the id of the cancel option of the gates the
// planner makes.
const OptionCancelOperation = "cancel operation"
