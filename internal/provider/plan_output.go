package provider

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// planOutputModel is the plan as computed attributes: text views for people
// (they read well in `tofu plan`), and structured lists for
// `tofu show -json`.
type planOutputModel struct {
	Template      types.String        `tfsdk:"template"`
	Display       types.String        `tfsdk:"display"`
	Customized    types.Bool          `tfsdk:"customized"`
	Changes       []string            `tfsdk:"changes"`
	Summary       types.String        `tfsdk:"summary"`
	Advanced      types.String        `tfsdk:"advanced"`
	Mermaid       types.String        `tfsdk:"mermaid"`
	JSON          types.String        `tfsdk:"json"`
	Instances     []planInstanceModel `tfsdk:"instances"`
	Planned       types.Map           `tfsdk:"planned_instances"`
	Digest        types.String        `tfsdk:"digest"`
	Gates         []packGateModel     `tfsdk:"gates"`
	Decisions     []decisionModel     `tfsdk:"decisions"`
	SubOperations []subOperationModel `tfsdk:"sub_operations"`
}

type planInstanceModel struct {
	ID      string   `tfsdk:"id"`
	Job     string   `tfsdk:"job"`
	Stage   string   `tfsdk:"stage"`
	Host    string   `tfsdk:"host"`
	Needs   []string `tfsdk:"needs"`
	Origin  string   `tfsdk:"origin"`
	Because string   `tfsdk:"because"`
	Gate    string   `tfsdk:"gate"`
	Retry   bool     `tfsdk:"retry"`
}

type decisionModel struct {
	Capability string                 `tfsdk:"capability"`
	Decision   string                 `tfsdk:"decision"`
	Provider   string                 `tfsdk:"provider"`
	Reason     string                 `tfsdk:"reason"`
	Candidates []candidateReportModel `tfsdk:"candidates"`
}

type candidateReportModel struct {
	Name     string   `tfsdk:"name"`
	Provider string   `tfsdk:"provider"`
	Accepted bool     `tfsdk:"accepted"`
	Reasons  []string `tfsdk:"reasons"`
	// DecidedBy is the policy rule or capability_policy entry that
	// decided whether the provider kind may serve.
	DecidedBy string `tfsdk:"decided_by"`
}

type subOperationModel struct {
	ID         string `tfsdk:"id"`
	Pack       string `tfsdk:"pack"`
	Template   string `tfsdk:"template"`
	Capability string `tfsdk:"capability"`
	Reason     string `tfsdk:"reason"`
}

func flattenPlan(c *planner.Composed) planOutputModel {
	p := c.Plan
	js, err := planner.RenderJSON(p)
	if err != nil {
		js = []byte("{}")
	}
	m := planOutputModel{
		Template:      types.StringValue(p.Template),
		Display:       types.StringValue(p.Display()),
		Customized:    types.BoolValue(p.Customized),
		Changes:       nonNil(p.Changes),
		Summary:       types.StringValue(planner.RenderSimple(p)),
		Advanced:      types.StringValue(planner.RenderAdvanced(p, planner.AdvancedOptions{})),
		Mermaid:       types.StringValue(planner.RenderMermaid(p)),
		JSON:          types.StringValue(string(js)),
		Instances:     []planInstanceModel{},
		Planned:       instancesMap(planner.Instances(p, planner.ViewState{})),
		Digest:        types.StringValue(planner.Digest(p)),
		Gates:         []packGateModel{},
		Decisions:     []decisionModel{},
		SubOperations: []subOperationModel{},
	}
	for _, in := range p.Instances {
		im := planInstanceModel{ID: in.ID, Job: in.JobID, Stage: in.Stage, Host: in.Host, Needs: nonNil(in.Needs),
			Origin: string(in.Origin), Because: in.Because, Retry: in.Retry}
		if in.Gate != nil {
			im.Gate = in.Gate.ID
			m.Gates = append(m.Gates, packGateModel{ID: in.Gate.ID, Type: string(in.Gate.Type), Reason: in.Gate.Reason,
				Options: nonNil(in.Gate.OptionIDs()), RequiredRoles: nonNil(in.Gate.RequiredRoles)})
		}
		m.Instances = append(m.Instances, im)
	}
	for _, d := range c.Decisions {
		m.Decisions = append(m.Decisions, flattenDecision(d))
	}
	for _, s := range p.SubOps {
		m.SubOperations = append(m.SubOperations, subOperationModel{ID: s.ID, Pack: s.Pack, Template: s.Template, Capability: s.Capability, Reason: s.Reason})
	}
	return m
}

func flattenDecision(d capability.Decision) decisionModel {
	dm := decisionModel{Capability: d.Requirement.Key, Decision: string(d.Kind), Reason: d.Reason, Candidates: []candidateReportModel{}}
	switch {
	case d.Create != nil:
		dm.Provider = d.Create.Provider
	case d.Binding.Provider != "":
		dm.Provider = d.Binding.Provider
	}
	for _, c := range d.Candidates {
		dm.Candidates = append(dm.Candidates, candidateReportModel{Name: c.Name, Provider: c.Provider, Accepted: c.Accepted, Reasons: nonNil(c.Reasons), DecidedBy: c.DecidedBy})
	}
	return dm
}

// opViews are the plan views of the operations apply will run, in order.
type opViews struct {
	ops   []intentOp
	views []planner.PlanViews
}

// renderOpViews renders every operation's views with the gate states
// that approvals give it (gateStates).
func renderOpViews(ops []intentOp, approvals []approvalModel, actor intent.Actor) opViews {
	ov := opViews{ops: ops}
	for _, op := range ops {
		ov.views = append(ov.views, planner.Views(op.Composed.Plan, gateStates(op.Composed.Plan, approvals, actor)))
	}
	return ov
}

// gateStates is what the configuration says of each gate of p: a gate
// with an approval naming it (by gate id or instance id) and one of its
// options is approved by actor with that option, when the actor holds one
// of the gate's roles; otherwise the gate waits, with the decision shown
// refused and why. The first such approval decides, as in the engine. No
// instance is satisfied here (that needs the hosts' evidence).
func gateStates(p *protocol.Plan, approvals []approvalModel, actor intent.Actor) planner.ViewState {
	st := planner.ViewState{Gates: map[string]planner.GateState{}}
	for _, in := range p.Instances {
		if !in.IsGate() {
			continue
		}
		for _, a := range approvals {
			g, opt := strOr(a.Gate, ""), strOr(a.Option, "")
			if g != in.Gate.ID && g != in.ID {
				continue
			}
			if _, ok := in.Gate.Option(opt); ok {
				d := protocol.Decision{Gate: in.Gate.ID, Option: opt, Actor: actor.Name, Roles: actor.Roles}
				if err := d.CheckRoles(*in.Gate); err != nil {
					st.Gates[in.ID] = planner.GateState{Actor: actor.Name, Option: opt,
						Refused: fmt.Sprintf("actor %s holds %s, not one of the gate's roles", actor.Name, rolesText(actor.Roles))}
					break
				}
				st.Gates[in.ID] = planner.GateState{Approved: true, Actor: actor.Name, Option: opt}
				break
			}
		}
	}
	return st
}

// text is the compact views, one operation after another.
func (ov opViews) text() string {
	var sb strings.Builder
	for i, v := range ov.views {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(v.Compact)
	}
	return sb.String()
}

// digest is the DAG digest of the one operation, or ACTION=DIGEST of
// each, comma-separated.
func (ov opViews) digest() string {
	if len(ov.views) == 1 {
		return ov.views[0].Digest
	}
	parts := make([]string, len(ov.views))
	for i, v := range ov.views {
		parts[i] = ov.ops[i].Action + "=" + v.Digest
	}
	return strings.Join(parts, ",")
}

// instances is the resource's planned_instances: every operation's
// instances by job group (planner.GroupInstances), keyed JOB[*] or by
// instance id, or ACTION/KEY when there are several operations (their
// keys may coincide).
func (ov opViews) instances() types.Map {
	elems := map[string]attr.Value{}
	for i, v := range ov.views {
		prefix := ""
		if len(ov.views) > 1 {
			prefix = ov.ops[i].Action + "/"
		}
		for key, g := range planner.GroupInstances(v.Instances) {
			elems[prefix+key] = instanceObject(g.InstanceView, g.Hosts, g.Count)
		}
	}
	return types.MapValueMust(plannedInstanceType, elems)
}

// instancesMap is cp_plan's planned_instances: every instance under its
// own id.
func instancesMap(v planner.InstanceViews) types.Map {
	elems := make(map[string]attr.Value, len(v))
	for id, in := range v {
		elems[id] = instanceObject(in, in.Host, 1)
	}
	return types.MapValueMust(plannedInstanceType, elems)
}

func instanceObject(in planner.InstanceView, hosts string, count int) types.Object {
	return types.ObjectValueMust(plannedInstanceType.AttrTypes, map[string]attr.Value{
		"job": types.StringValue(in.Job), "stage": types.StringValue(in.Stage), "host": types.StringValue(in.Host),
		"run_on": types.StringValue(in.RunOn), "needs": strList(in.Needs), "origin": types.StringValue(in.Origin),
		"because": types.StringValue(in.Because), "sub_operation": types.StringValue(in.SubOperation),
		"gate": types.StringValue(in.Gate), "idempotency_key": types.StringValue(in.IdempotencyKey),
		"status": types.StringValue(in.Status), "hosts": types.StringValue(hosts), "count": types.Int64Value(int64(count)),
	})
}

// warnWaiting adds a warning per gate still waiting, naming the gate, the
// roles that may decide it and the approvals entry to paste.
func (ov opViews) warnWaiting(diags *diag.Diagnostics) {
	for i, v := range ov.views {
		for _, w := range v.Waiting {
			roles := "any actor"
			if len(w.Roles) > 0 {
				roles = "an actor with role " + strings.Join(w.Roles, " or ") + " (provider actor and actor_roles)"
			}
			detail := fmt.Sprintf("%s stops at gate %s (%s) until it is decided by %s. To decide it, add to the resource:\n  %s",
				ov.ops[i].Action, w.ID, strings.ReplaceAll(w.Type, "_", " "), roles, w.Approval)
			if w.Refused != "" {
				detail += "\nThe decision given is refused: " + w.Refused
			}
			diags.AddWarning("Gate "+w.ID+" is waiting", detail)
		}
	}
}

// showIntentPlanViews is showPlanViews for the model m of an intent
// resource, with the approvals of its configuration.
func showIntentPlanViews[M any](h intentHooks[M], m *M, ops []intentOp, actor intent.Actor, diags *diag.Diagnostics) {
	approvals, _ := h.decisions(m)
	showPlanViews(h.computed(m), ops, approvals, actor, diags)
}

// showPlanViews sets the plan views of c from the operations and the
// approvals of the configuration, and warns of each gate still waiting.
func showPlanViews(c computed, ops []intentOp, approvals []approvalModel, actor intent.Actor, diags *diag.Diagnostics) {
	ov := renderOpViews(ops, approvals, actor)
	ov.set(c)
	ov.warnWaiting(diags)
}

// set stores the views in c's plan attributes.
func (ov opViews) set(c computed) {
	*c.Plan, *c.PlanDigest, *c.PlannedInstances = types.StringValue(ov.text()), types.StringValue(ov.digest()), ov.instances()
}

// rolesText is an actor's roles for messages: "roles a, b" or "no role".
func rolesText(roles []string) string {
	if len(roles) == 0 {
		return "no role"
	}
	return "roles " + strings.Join(roles, ", ")
}

// compactCountsRE and compactDigestRE read the header of an operation in
// the compact view (planner.RenderCompact): its counts and its DAG
// digest.
var (
	compactCountsRE = regexp.MustCompile(`^  \d+ stages?, (\d+) job instances? \([^)]*\), (\d+) gates?$`)
	compactDigestRE = regexp.MustCompile(`^  per-instance DAG: (\S+) `)
)

// completedPlan is the plan attribute of a completed operation: for each
// operation of the compact view text, one line of what ran, such as
// "Create Kubernetes cluster (kubernetes.create@1.0.0): completed, 43 job
// instances, 0 gates, per-instance DAG sha256:…". It is "" when text
// holds no such header (already short).
func completedPlan(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		head := lines[i]
		if head == "" || head[0] == ' ' {
			continue
		}
		j := i + 1
		if j < len(lines) && strings.HasPrefix(lines[j], "  hosts (") {
			j++
		}
		if j+1 >= len(lines) {
			continue
		}
		counts := compactCountsRE.FindStringSubmatch(lines[j])
		digest := compactDigestRE.FindStringSubmatch(lines[j+1])
		if counts == nil || digest == nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: completed, %s, %s, per-instance DAG %s", head,
			countText(counts[1], "job instance"), countText(counts[2], "gate"), digest[1]))
		i = j + 1
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// completedSummary is the plan_summary of a completed operation: each
// operation's header line (planner.RenderSimple) followed by
// ": completed". It is "" when text is already short.
func completedSummary(text string) string {
	var out []string
	long := false
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case l == "":
		case l[0] == ' ':
			long = true
		default:
			out = append(out, l+": completed")
		}
	}
	if !long {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// countText is n (decimal) things: "1 gate", "43 job instances".
func countText(n, what string) string {
	if n == "1" {
		return n + " " + what
	}
	return n + " " + what + "s"
}
