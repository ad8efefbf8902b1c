package planner

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RenderCompact is the default view of a plan for the diff of `tofu plan`:
// a header with the hosts, counts and the digest of the per-instance DAG
// (which the view references instead of printing), changes against the
// template, bindings, sub-operations, gates with their state and the HCL
// that approves them, then the stages in order with each job once: its
// hosts as ranges, a count, where it runs when not on its hosts, why it is
// not from the template, and which instances apply will skip. Its size
// grows with the number of jobs, not of hosts, except where a job's hosts
// do not form ranges.
func RenderCompact(p *protocol.Plan, st ViewState) string {
	return renderCompact(p, st, Digest(p))
}

// PlanViews are the views of one plan that a caller stores: the compact
// text, the per-instance DAG keyed by id, its digest (full form) and the
// gates still waiting.
type PlanViews struct {
	Compact   string
	Instances InstanceViews
	Digest    string
	Waiting   []WaitingGate
}

// Views renders every view of PlanViews, hashing the DAG once.
func Views(p *protocol.Plan, st ViewState) PlanViews {
	d := Digest(p)
	return PlanViews{Compact: renderCompact(p, st, d), Instances: Instances(p, st), Digest: d, Waiting: WaitingGates(p, st)}
}

func renderCompact(p *protocol.Plan, st ViewState, digest string) string {
	var sb strings.Builder
	title := p.Title
	if title == "" {
		title = p.Template
	}
	fmt.Fprintf(&sb, "%s (%s)\n", title, p.Display())
	writeCompactHeader(&sb, p, st, digest)
	writeCompactChanges(&sb, p)
	writeCompactGates(&sb, p, st)
	ahead := gatesAhead(p)
	for i, s := range p.Stages {
		writeCompactStage(&sb, p, st, ahead, i, s)
	}
	return sb.String()
}

func writeCompactHeader(sb *strings.Builder, p *protocol.Plan, st ViewState, digest string) {
	var hosts []string
	for _, h := range p.Intent.Hosts {
		hosts = append(hosts, h.Name)
	}
	if len(hosts) > 0 {
		fmt.Fprintf(sb, "  hosts (%d): %s\n", len(hosts), HostRanges(hosts))
	}
	jobs, gates, satisfied, repair := 0, 0, 0, 0
	for _, in := range p.Instances {
		switch {
		case in.IsGate():
			gates++
		case st.JobStatus(in.ID) == StatusRepair:
			repair++
			jobs++
		case st.Satisfied[in.ID]:
			satisfied++
			jobs++
		default:
			jobs++
		}
	}
	counts := fmt.Sprintf("%d will run, %d satisfied", jobs-satisfied-repair, satisfied)
	if repair > 0 {
		counts = fmt.Sprintf("%d repair, ", repair) + counts
	}
	fmt.Fprintf(sb, "  %d %s, %d job %s (%s), %d %s\n",
		len(p.Stages), plural(len(p.Stages), "stage", "stages"), jobs, plural(jobs, "instance", "instances"),
		counts, gates, plural(gates, "gate", "gates"))
	fmt.Fprintf(sb, "  per-instance DAG: %s (keyed by instance id in planned_instances and cp_plan)\n", ShortDigest(digest))
}

func writeCompactChanges(sb *strings.Builder, p *protocol.Plan) {
	if len(p.Changes) > 0 {
		sb.WriteString("Changes against the template:\n")
		for _, c := range p.Changes {
			fmt.Fprintf(sb, "  - %s\n", c)
		}
	}
	if len(p.Bindings) > 0 {
		sb.WriteString("Bindings:\n")
		bs := slices.Clone(p.Bindings)
		slices.SortFunc(bs, func(a, b protocol.Binding) int { return strings.Compare(a.Requirement.Key, b.Requirement.Key) })
		for _, b := range bs {
			prov := ""
			if b.Provider != "" {
				prov = " " + b.Provider
			}
			fmt.Fprintf(sb, "  - %s: %s%s\n", b.Requirement.Key, b.Decision, prov)
			writeBindingCandidates(sb, b)
		}
	}
	if len(p.SubOps) > 0 {
		sb.WriteString("Sub-operations:\n")
		subs := slices.Clone(p.SubOps)
		slices.SortFunc(subs, func(a, b protocol.SubOperation) int { return strings.Compare(a.ID, b.ID) })
		for _, s := range subs {
			fmt.Fprintf(sb, "  - %s: %s (%s) provides %s\n", s.ID, s.Pack, s.Template, s.Capability)
		}
	}
}

// WaitingGate is a gate of the plan that no passing decision releases yet,
// for the caller's warning diagnostic.
type WaitingGate struct {
	ID   string
	Type string
	// Roles are the gate's required roles, sorted: a decision passes when
	// the actor holds one of them.
	Roles []string
	// Refused says why the decision given does not pass; empty when none
	// was given.
	Refused string
	// Approval is the approvals entry that decides it, as HCL to paste
	// into the resource.
	Approval string
}

// WaitingGates lists the gates of p that st does not show approved,
// sorted by id.
func WaitingGates(p *protocol.Plan, st ViewState) []WaitingGate {
	var out []WaitingGate
	for _, in := range sortedGates(p) {
		gs := st.gate(in.ID)
		if gs.Approved {
			continue
		}
		out = append(out, WaitingGate{ID: in.ID, Type: string(in.Gate.Type), Roles: slices.Sorted(slices.Values(in.Gate.RequiredRoles)),
			Refused: gs.Refused, Approval: fmt.Sprintf("approvals = [{ gate = %q, option = %q }]", in.ID, pasteOption(in.Gate, gs))})
	}
	return out
}

func sortedGates(p *protocol.Plan) []*protocol.JobInstance {
	var gates []*protocol.JobInstance
	for _, in := range p.Instances {
		if in.IsGate() {
			gates = append(gates, in)
		}
	}
	slices.SortFunc(gates, func(a, b *protocol.JobInstance) int { return strings.Compare(a.ID, b.ID) })
	return gates
}

// writeCompactGates lists the gates sorted by id with their state; a
// waiting gate gets the approvals entry to paste.
func writeCompactGates(sb *strings.Builder, p *protocol.Plan, st ViewState) {
	gates := sortedGates(p)
	if len(gates) == 0 {
		return
	}
	waiting := map[string]WaitingGate{}
	for _, w := range WaitingGates(p, st) {
		waiting[w.ID] = w
	}
	sb.WriteString("Gates:\n")
	for _, in := range gates {
		g, gs := in.Gate, st.gate(in.ID)
		fmt.Fprintf(sb, "  - %s (%s): %s\n", in.ID, strings.ReplaceAll(string(g.Type), "_", " "), gateStateText(g, gs))
		fmt.Fprintf(sb, "      reason: %s\n", g.Reason)
		fmt.Fprintf(sb, "      options: %s\n", gateOptionsText(g))
		if w, ok := waiting[in.ID]; ok {
			fmt.Fprintf(sb, "      to decide, add to the resource: %s\n", w.Approval)
		}
	}
}

// gateOptionsText lists the options in the gate's order, quoted as the
// approvals entry takes them, each with what it does unless it proceeds.
func gateOptionsText(g *protocol.Gate) string {
	opts := make([]string, len(g.Options))
	for i, o := range g.Options {
		opts[i] = strconv.Quote(o.ID)
		switch o.Effect {
		case protocol.EffectBind:
			opts[i] += " (binds " + o.Candidate + ")"
		case protocol.EffectCreate:
			opts[i] += " (creates " + o.Provider + ")"
		case protocol.EffectCancel:
			opts[i] += " (cancels the operation)"
		}
	}
	return strings.Join(opts, ", ")
}

func gateStateText(g *protocol.Gate, gs GateState) string {
	if gs.Approved {
		return fmt.Sprintf("approved by %s with option %q", gs.Actor, gs.Option)
	}
	s := "waiting for a decision"
	if len(g.RequiredRoles) > 0 {
		roles := slices.Sorted(slices.Values(g.RequiredRoles))
		s += " by an actor with role " + strings.Join(roles, " or ")
	}
	if gs.Refused != "" {
		s += fmt.Sprintf("; the decision of %s (option %q) is refused: %s", orDash(gs.Actor), gs.Option, gs.Refused)
	}
	return s
}

// pasteOption is the option of the approvals entry shown for a waiting
// gate: the refused decision's option when it is one of the gate's, else
// the first option that does not cancel.
func pasteOption(g *protocol.Gate, gs GateState) string {
	if _, ok := g.Option(gs.Option); ok && gs.Option != "" {
		return gs.Option
	}
	for _, o := range g.Options {
		if o.Effect != protocol.EffectCancel {
			return o.ID
		}
	}
	return g.Options[0].ID
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// compactGroup is the instances of one job in one stage.
type compactGroup struct {
	key   string
	insts []*protocol.JobInstance
}

func writeCompactStage(sb *strings.Builder, p *protocol.Plan, st ViewState, ahead map[string][]string, i int, s protocol.PlanStage) {
	var groups []*compactGroup
	byKey := map[string]*compactGroup{}
	held := map[string]bool{}
	subs := map[string]bool{}
	n := 0
	for _, id := range s.Instances {
		in, ok := p.Instance(id)
		if !ok {
			continue
		}
		for _, g := range ahead[id] {
			held[g] = true
		}
		if in.SubOperation != "" {
			subs[in.SubOperation] = true
		}
		if in.IsGate() {
			continue
		}
		n++
		k := GroupKey(in)
		g := byKey[k]
		if g == nil {
			g = &compactGroup{key: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.insts = append(g.insts, in)
	}
	fmt.Fprintf(sb, "Stage %d/%d %s: %s (%d %s, %d %s)", i+1, len(p.Stages), s.ID, s.Title,
		len(groups), plural(len(groups), "job", "jobs"), n, plural(n, "instance", "instances"))
	if len(subs) > 0 {
		fmt.Fprintf(sb, ", sub-operation %s", strings.Join(slices.Sorted(maps.Keys(subs)), ", "))
	}
	if len(held) > 0 {
		fmt.Fprintf(sb, ", after gate %s", strings.Join(slices.Sorted(maps.Keys(held)), ", "))
	}
	sb.WriteString("\n")
	for _, id := range s.Instances {
		if in, ok := p.Instance(id); ok && in.IsGate() {
			state := StatusWaiting
			if st.gate(in.ID).Approved {
				state = StatusApproved
			}
			fmt.Fprintf(sb, "  - gate %s: %s\n", in.ID, state)
		}
	}
	for _, g := range groups {
		writeCompactGroup(sb, g, st)
	}
}

func writeCompactGroup(sb *strings.Builder, g *compactGroup, st ViewState) {
	var hosts, runOn, satisfied []string
	for _, in := range g.insts {
		if in.Host != "" {
			hosts = append(hosts, in.Host)
		}
		if in.RunOn != "" && in.RunOn != in.Host {
			runOn = append(runOn, in.RunOn)
		}
		if st.JobStatus(in.ID) == StatusSatisfied {
			satisfied = append(satisfied, hostOrID(in))
		}
	}
	line := "  - " + g.key
	if len(g.insts) > 1 {
		line += fmt.Sprintf(" (%d)", len(g.insts))
	}
	if len(hosts) > 0 {
		line += ": " + HostRanges(hosts)
	}
	sb.WriteString(line + "\n")
	if len(runOn) > 0 {
		fmt.Fprintf(sb, "      runs on: %s\n", HostRanges(runOn))
	}
	writeOrigins(sb, g.insts)
	var retry []string
	for _, in := range g.insts {
		if in.Retry {
			retry = append(retry, hostOrID(in))
		}
	}
	if len(retry) > 0 {
		fmt.Fprintf(sb, "      retried by a patch: %s\n", HostRanges(retry))
	}
	if len(satisfied) > 0 {
		fmt.Fprintf(sb, "      satisfied, apply skips (%d): %s\n", len(satisfied), HostRanges(satisfied))
	}
	writeRepairs(sb, g.insts, st)
}

// writeOrigins says why instances not from the template are in the plan:
// one line per distinct origin and reason, sorted, at most three; the
// rest are counted.
func writeOrigins(sb *strings.Builder, insts []*protocol.JobInstance) {
	type why struct{ origin, because string }
	hosts := map[why][]string{}
	for _, in := range insts {
		if in.Origin == protocol.OriginTemplate || in.Origin == protocol.OriginSubOperation || in.Origin == protocol.OriginGate {
			continue
		}
		w := why{string(in.Origin), in.Because}
		hosts[w] = append(hosts[w], hostOrID(in))
	}
	keys := slices.SortedFunc(maps.Keys(hosts), func(a, b why) int {
		if c := strings.Compare(a.origin, b.origin); c != 0 {
			return c
		}
		return strings.Compare(a.because, b.because)
	})
	const shown = 3
	for i, w := range keys {
		if i == shown {
			fmt.Fprintf(sb, "      and %d more reasons (per instance in planned_instances)\n", len(keys)-shown)
			break
		}
		s := "      " + w.origin
		if len(keys) > 1 || len(hosts[w]) != len(insts) {
			s += " on " + HostRanges(hosts[w])
		}
		if w.because != "" {
			s += ": " + w.because
		}
		sb.WriteString(s + "\n")
	}
}

func hostOrID(in *protocol.JobInstance) string {
	if in.Host != "" {
		return in.Host
	}
	return in.ID
}
