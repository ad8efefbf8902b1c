package planner

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Build plans one operation. See the package documentation for the rules.
func Build(in Input) (*protocol.Plan, error) {
	if in.Pack == nil {
		return nil, fmt.Errorf("plan: no scenario pack given for intent %q", in.Intent.Action)
	}
	if err := in.Intent.Validate(); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	action := in.Action
	if action == "" {
		action = in.Intent.Action
	}
	tmpl, err := in.Pack.Template(action)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	b := &builder{
		in: in, cluster: clusterName(&in.Intent),
		units: map[string]*unit{}, provides: map[provKey][]*node{}, unitProvides: map[provKey][]*unit{},
		decisions: map[string]*capability.Decision{}, decisionNodes: map[string][]*node{}, removed: map[string]string{}, consumed: map[string]bool{}, barriers: map[provKey]*node{},
	}
	for i := range in.Decisions {
		d := &in.Decisions[i]
		if prev, dup := b.decisions[d.Requirement.Key]; dup && prev.Kind != d.Kind {
			return nil, fmt.Errorf("plan: two decisions for %s (%s and %s); resolve each capability once", d.Requirement.Key, prev.Kind, d.Kind)
		}
		b.decisions[d.Requirement.Key] = d
	}
	if err := b.build(tmpl); err != nil {
		return nil, fmt.Errorf("plan %s: %w", tmpl.Ref(), err)
	}
	return b.plan, nil
}

func (b *builder) build(tmpl *protocol.PlanTemplate) error {
	subPacks := map[string]bool{}
	for _, d := range b.in.Decisions {
		if d.Create != nil {
			subPacks[d.Create.Pack] = true
		}
	}
	params, err := packParams(b.in.Pack, b.in.Intent.Parameters, func(p string) bool { return subPacks[p] })
	if err != nil {
		return err
	}
	b.noteMissing(b.in.Pack, "", "", params)
	if err := b.addTemplate(tmpl, b.in.Pack, "", "", params, protocol.OriginTemplate); err != nil {
		return err
	}
	edits, err := b.collectEdits(tmpl)
	if err != nil {
		return err
	}
	if err := b.applyEdits(edits); err != nil {
		return err
	}
	if err := b.expandAll(); err != nil {
		return err
	}
	if err := b.checkRemovals(); err != nil {
		return err
	}
	if err := b.addDecisions(); err != nil {
		return err
	}
	if err := b.addTemplateGates(tmpl, b.in.Pack, ""); err != nil {
		return err
	}
	if err := b.checkPackRequirements(); err != nil {
		return err
	}
	if err := b.resolveAll(); err != nil {
		return err
	}
	if err := b.addMissingInputGates(); err != nil {
		return err
	}
	b.orderingEdges()
	b.rollingEdges()
	if err := b.applyOrders(); err != nil {
		return err
	}
	b.gateUnconsumed()
	if err := b.applyRetries(); err != nil {
		return err
	}
	b.assemble(tmpl)
	if err := finishGraph(b.plan, b.nodes); err != nil {
		return err
	}
	return nil
}

// addTemplate adds a template's stages and jobs as units. prefix names a
// sub-operation ("minio/"); before places the stages ahead of that stage.
func (b *builder) addTemplate(tmpl *protocol.PlanTemplate, p *protocol.ScenarioPack, prefix, subOp string, params map[string]string, origin protocol.Origin) error {
	var added []*stage
	for _, st := range tmpl.Stages {
		s := &stage{id: prefix + st.ID, title: st.Title}
		if prefix != "" {
			s.title = p.Title + ": " + st.Title
			if p.Title == "" {
				s.title = p.ID + ": " + st.Title
			}
		}
		for _, jid := range st.Jobs {
			job := p.Jobs[jid]
			if job == nil {
				return fmt.Errorf("template %s stage %s names job %q, which is not in the job library of %s", tmpl.Ref(), st.ID, jid, p.Ref())
			}
			key := prefix + jid
			if _, dup := b.units[key]; dup {
				return fmt.Errorf("template %s names job %q twice; a job appears once per plan", tmpl.Ref(), jid)
			}
			u := &unit{key: key, prefix: prefix, job: job, pack: p, stage: s, origin: origin, subOp: subOp, base: params}
			s.units = append(s.units, u)
			b.units[key] = u
		}
		added = append(added, s)
	}
	b.stages = append(b.stages, added...)
	return nil
}

// expandAll expands every job unit and indexes what it provides.
func (b *builder) expandAll() error {
	for _, s := range b.stages {
		for _, u := range s.units {
			if u.job == nil || u.insts != nil {
				continue
			}
			if err := b.expand(u); err != nil {
				return err
			}
			b.index(u)
		}
	}
	return nil
}

// checkPackRequirements fails when a non-optional requirement of the pack
// is met by nothing: no decision, no state, no job of the plan.
func (b *builder) checkPackRequirements() error {
	for _, r := range b.in.Pack.Requires {
		if r.Optional || b.decisions[r.Capability] != nil || b.stateHasCapability(r.Capability) ||
			len(b.unitProvides[provKey{kind: 'c', key: r.Capability}]) > 0 {
			continue
		}
		return fmt.Errorf("%w: pack %s requires capability %s, but there is no capability decision for it, the resource state lacks it and no job of the plan provides it; resolve it (bind or create a provider) before planning",
			ErrMissingInput, b.in.Pack.Ref(), r.Capability)
	}
	return nil
}

// applyRetries marks the instances of retried jobs.
func (b *builder) applyRetries() error {
	for _, r := range b.retries {
		u, ok := b.units[r.job]
		if !ok || u.job == nil {
			return fmt.Errorf("%w: %s: job %q is not in the plan (jobs: %s)", ErrEdit, r.source, r.job, b.unitList())
		}
		u.retry = true
		for _, n := range u.insts {
			n.ji.Retry = true
		}
	}
	return nil
}

// assemble builds the plan's stages and instance list in stage order.
func (b *builder) assemble(tmpl *protocol.PlanTemplate) {
	p := &protocol.Plan{
		ID: b.in.PlanID, Template: tmpl.Ref(), Title: tmpl.Title, Intent: b.in.Intent,
		Customized: len(b.changes) > 0, Changes: b.changes, SubOps: b.subOps,
	}
	for _, pp := range b.in.Patches {
		p.Patches = append(p.Patches, pp)
	}
	for _, d := range b.in.Decisions {
		p.Bindings = append(p.Bindings, d.Binding)
	}
	ordered := make([]*node, 0, len(b.nodes))
	for _, s := range b.stages {
		ps := protocol.PlanStage{ID: s.id, Title: s.title}
		for _, u := range s.units {
			for _, n := range u.insts {
				ps.Instances = append(ps.Instances, n.ji.ID)
				ordered = append(ordered, n)
			}
		}
		if len(ps.Instances) > 0 {
			p.Stages = append(p.Stages, ps)
		}
	}
	p.Instances = make([]*protocol.JobInstance, len(ordered))
	for i, n := range ordered {
		p.Instances[i] = n.ji
	}
	b.plan = p
}
