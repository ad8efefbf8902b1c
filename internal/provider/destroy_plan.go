package provider

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A destroy is planned like any change: `tofu plan -destroy` shows its
// DAG and gates in a warning (the planned state of a destroy is null, so
// there is no attribute to show them in), and `tofu destroy` checks every
// gate before any job runs, so a destroy never stops half-way at a gate
// with part of the resource uninstalled and the state still claiming it.

// planDestroy composes the destroy of the resource in state with the
// approvals it runs with: its own (from its last apply) and the provider's
// destroy_approvals for it, which are checked against the destroy's gates.
// resolve, at apply, reads the cluster handle's artifacts.
func planDestroy[M any](b *intentBase, h intentHooks[M], state *M, change intent.Change, resolve func(*intentPlan), diags *diag.Diagnostics) (intentPlan, []intentOp) {
	ip, ops := composeIntent(b, h, state, state, []intent.Change{change}, resolve, diags)
	if diags.HasError() {
		return ip, nil
	}
	extra := destroyApprovalsFor(b.data, state)
	checkDestroyApprovals(ops, extra, actorOf(b.data), diags)
	ip.inputs.Approvals = mergeDestroyApprovals(ip.inputs.Approvals, extra)
	return ip, ops
}

// destroyGate is one gate of a destroy with the decision it has.
type destroyGate struct {
	Action, Instance, Gate string
	Type                   protocol.GateType
	Options                []string
	Roles                  []string
	// Option is the option decided, "" when the gate waits; Cancel says
	// it cancels the destroy.
	Option string
	Cancel bool
}

// destroyGates are the gates of the destroy's operations with the
// decisions approvals give them (gateStates), in plan order.
func destroyGates(ops []intentOp, approvals []approvalModel, actor intent.Actor) []destroyGate {
	var out []destroyGate
	for _, op := range ops {
		p := op.Composed.Plan
		st := gateStates(p, approvals, actor)
		for _, in := range p.Instances {
			if !in.IsGate() {
				continue
			}
			g := destroyGate{Action: op.Action, Instance: in.ID, Gate: in.Gate.ID, Type: in.Gate.Type, Options: in.Gate.OptionIDs(),
				Roles: append([]string(nil), in.Gate.RequiredRoles...)}
			sort.Strings(g.Roles)
			if s, ok := st.Gates[in.ID]; ok && s.Approved {
				g.Option = s.Option
				if o, ok := in.Gate.Option(s.Option); ok && o.Effect == protocol.EffectCancel {
					g.Cancel = true
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// firstProceed is the first option of a gate that does not cancel, the
// one the HCL to paste proposes.
func firstProceed(ops []intentOp, gate string) string {
	for _, op := range ops {
		for _, in := range op.Composed.Plan.Instances {
			if in.IsGate() && in.Gate.ID == gate {
				for _, o := range in.Gate.Options {
					if o.Effect != protocol.EffectCancel {
						return o.ID
					}
				}
			}
		}
	}
	return ""
}

var pasteRE = regexp.MustCompile(`to decide, add to the resource: approvals = \[\{ gate = "([^"]*)", option = "([^"]*)" \}\]`)

// warnDestroy is the plan of a destroy for the reviewer: one warning with
// the compact view of its operations (stages, jobs with their hosts as
// ranges, gates with their state, digest), and for each gate still
// waiting the provider entry to paste.
func warnDestroy(m any, ops []intentOp, approvals []approvalModel, actor intent.Actor, diags *diag.Diagnostics) {
	if len(ops) == 0 {
		return
	}
	typ, names := destroyKey(m)
	text := renderOpViews(ops, approvals, actor).text()
	text = pasteRE.ReplaceAllStringFunc(text, func(s string) string {
		sm := pasteRE.FindStringSubmatch(s)
		return "to decide, add to the provider block: " + destroyHCL(m, sm[1], sm[2])
	})
	gates := destroyGates(ops, approvals, actor)
	var waiting []string
	for _, g := range gates {
		if g.Option == "" {
			waiting = append(waiting, g.Gate)
		}
	}
	actions := make([]string, len(ops))
	jobs := 0
	for i, op := range ops {
		actions[i] = op.Action
		for _, in := range op.Composed.Plan.Instances {
			if !in.IsGate() {
				jobs++
			}
		}
	}
	summary := fmt.Sprintf("Destroy of %s %s runs %s: %s, %s", typ, names[0], strings.Join(actions, ", "), plural(jobs, "job instance"), plural(len(gates), "gate"))
	if len(waiting) > 0 {
		summary += fmt.Sprintf(" (%d waiting)", len(waiting))
	}
	detail := text
	if len(waiting) > 0 {
		detail += fmt.Sprintf("\n`tofu destroy` runs nothing of this destroy until every gate is decided: waiting %s.", strings.Join(waiting, ", "))
	}
	diags.AddWarning(summary, strings.TrimRight(detail, "\n"))
}

// refuseUndecidedDestroy stops a destroy before any job runs when one of
// its gates would stop it: a gate without a decision, or decided with an
// option that cancels. It says whether it refused.
func refuseUndecidedDestroy(m any, ops []intentOp, approvals []approvalModel, actor intent.Actor, diags *diag.Diagnostics) bool {
	typ, names := destroyKey(m)
	var waiting []string
	for _, g := range destroyGates(ops, approvals, actor) {
		switch {
		case g.Cancel:
			diags.AddError(fmt.Sprintf("%s cancelled at gate %s by %s", g.Action, g.Gate, orDash(actor.Name)),
				fmt.Sprintf("Option %q of gate %s, chosen by actor %s, cancels the destroy of %s %s (Cancelled). Gates are decided before a destroy starts: no job ran, "+
					"and the resource stays in state as it is on its hosts.\n\nTo destroy it, choose another option (%s), in the resource's approvals and apply, or in the provider block:\n  %s",
					g.Option, g.Gate, orDash(actor.Name), typ, names[0], quoteAll(g.Options), destroyHCL(m, g.Gate, firstProceed(ops, g.Gate))))
			return true
		case g.Option == "":
			roles := "any actor"
			if len(g.Roles) > 0 {
				roles = "an actor with role " + strings.Join(g.Roles, " or ")
			}
			waiting = append(waiting, fmt.Sprintf("Gate %s (%s) of %s waits for a decision by %s; options: %s. To decide it, add to the provider block:\n  %s",
				g.Gate, strings.ReplaceAll(string(g.Type), "_", " "), g.Action, roles, quoteAll(g.Options), destroyHCL(m, g.Gate, firstProceed(ops, g.Gate))))
		}
	}
	if len(waiting) == 0 {
		return false
	}
	diags.AddError(fmt.Sprintf("Destroy of %s %s waits at %d gate(s)", typ, names[0], len(waiting)),
		strings.Join(waiting, "\n\n")+"\n\nGates are decided before a destroy starts: no job ran, and the resource stays in state as it is on its hosts. "+
			"Decide the gates and destroy again.")
	return true
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
