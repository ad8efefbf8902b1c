package packs

import (
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// templateGateTypes are the gate types a template may declare; the others
// are produced by capability resolution (provider_selection,
// policy_exception, cost_confirmation) or by the planner (missing_input).
var templateGateTypes = []protocol.GateType{protocol.GateApproval, protocol.GateDestructive}

// templateEffects are the effects a template gate's options may have: bind
// and create name candidates and providers only resolution knows.
var templateEffects = []protocol.OptionEffect{protocol.EffectCancel, protocol.EffectProceed}

// validateGates checks what the pack declares for decisions: the options of
// every template gate, the pack's cost and the parameters that wait at a
// missing_input gate.
func (l *loaded) validateGates() {
	for _, tf := range l.templates {
		l.validateGateOptions(tf)
	}
	l.validateCost()
	l.validateMissingInputParams()
}

// validateGateOptions checks each option of a template's gates: an id
// once per gate, an effect a template can have, a bare string only where
// it means what it says (proceed), and at least one option that proceeds.
func (l *loaded) validateGateOptions(tf *templateFile) {
	d := tf.doc
	for i, g := range tf.tpl.Gates {
		f := indexed("gates", i)
		add := func(field, format string, args ...any) {
			l.rep.add(d.path, d.line(field), field, format, args...)
		}
		if g.Type.Valid() && !containsType(templateGateTypes, g.Type) {
			add(f+".type", "gate %q: type %s is produced by the planner, not declared in a template; a template gate is approval or destructive", g.ID, g.Type)
		}
		seen := map[string]int{}
		proceeds := false
		for k, o := range g.Options {
			of := indexed(f+".options", k)
			switch {
			case o.ID == "":
				add(of+".id", "option id is empty; name the choice, e.g. {id: uninstall, effect: proceed}")
				continue
			case o.Plain && isCancelWord(o.ID):
				add(of, "option %q is a bare string, which proceeds; write {id: %s, effect: cancel} to cancel the operation", o.ID, o.ID)
				continue
			}
			if first, dup := seen[o.ID]; dup {
				add(of, "option %q is already listed as options[%d]; option ids are unique in a gate", o.ID, first)
			} else {
				seen[o.ID] = k
			}
			if !containsEffect(templateEffects, o.Effect) {
				add(of+".effect", "option %q: effect %q is not one a template gate can have; use proceed (release the held jobs) or cancel (end the operation); bind and create are offered by capability resolution", o.ID, o.Effect)
				continue
			}
			if o.Candidate != "" || o.Provider != "" {
				add(of, "option %q: candidate and provider belong to bind and create options; remove them", o.ID)
			}
			if o.Effect == protocol.EffectProceed {
				proceeds = true
			}
		}
		if len(g.Options) > 0 && !proceeds {
			add(f+".options", "gate %q has no option that proceeds, so the jobs it holds could never run; add one, e.g. {id: proceed, effect: proceed}", g.ID)
		}
	}
}

// isCancelWord reports whether a bare option reads as a refusal.
func isCancelWord(id string) bool {
	w := strings.ToLower(strings.TrimSpace(id))
	for _, p := range []string{"cancel", "abort", "reject", "stop", "no"} {
		if w == p || strings.HasPrefix(w, p+" ") {
			return true
		}
	}
	return false
}

// validateCost checks pack.yaml cost: a monthly amount that is not
// negative.
func (l *loaded) validateCost() {
	c := l.pack.Cost
	if c == nil {
		return
	}
	if c.MonthlyUSD < 0 {
		l.rep.add(l.packDoc.path, l.packDoc.line("cost.monthly_usd"), "cost.monthly_usd", "monthly cost %v is negative; declare what one instance costs a month in USD, or remove cost", c.MonthlyUSD)
	}
}

// validateMissingInputParams checks parameters that wait at a
// missing_input gate: they have no default (which would always apply) and
// some job reads them (else nothing would wait).
func (l *loaded) validateMissingInputParams() {
	d := l.packDoc
	for _, name := range protocol.SortedKeys(l.pack.Parameters) {
		s := l.pack.Parameters[name]
		if !s.MissingInput {
			continue
		}
		f := "parameters." + name + ".missing_input"
		if s.Default != "" {
			l.rep.add(d.path, d.line(f), f, "parameter %s has a default, so it is never missing; remove the default or missing_input", name)
		}
		read := false
		for _, jf := range l.jobs {
			if _, ok := jf.job.Inputs.Parameters[name]; ok {
				read = true
				break
			}
		}
		if !read {
			l.rep.add(d.path, d.line(f), f, "no job reads parameter %s, so a missing value would hold nothing; list it in a job's inputs.parameters or remove missing_input", name)
		}
	}
}

func containsType(ts []protocol.GateType, t protocol.GateType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func containsEffect(es []protocol.OptionEffect, e protocol.OptionEffect) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}
