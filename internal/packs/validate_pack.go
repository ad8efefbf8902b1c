package packs

import (
	"regexp"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var packID = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// riskLevels are the values of risk.default_level.
var riskLevels = []string{"high", "low", "medium"}

// validate checks the pack as a whole: its contract, templates and jobs and
// the references between them.
func (l *loaded) validate() {
	l.validatePack()
	jobs := l.jobIndex()
	for _, jf := range l.jobs {
		l.validateJob(jf, jobs)
	}
	l.validateTemplates(jobs)
	l.pack.Jobs = map[string]*protocol.Job{}
	for id, jf := range jobs {
		l.pack.Jobs[id] = jf.job
	}
	l.pack.Templates = map[string]*protocol.PlanTemplate{}
	for _, tf := range l.templates {
		if _, dup := l.pack.Templates[tf.tpl.Action]; !dup {
			l.pack.Templates[tf.tpl.Action] = tf.tpl
		}
	}
}

func (l *loaded) validatePack() {
	p, d := l.pack, l.packDoc
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	switch {
	case p.ID == "":
		add("id", "pack id is empty; set scenario_pack.id, e.g. id: kubernetes")
	case !packID.MatchString(p.ID):
		add("id", "pack id %q must start with a lower-case letter and hold only a-z, 0-9, '-' and '_'", p.ID)
	}
	if _, err := ParseVersion(p.Version); err != nil {
		add("version", "version %q is not a semantic version MAJOR.MINOR.PATCH; write e.g. version: 1.0.0", p.Version)
	}
	if len(p.ResourceTypes) == 0 {
		add("resource_types", "no resource_types; name the resource types the pack manages, e.g. kubernetes.cluster")
	}
	if len(p.Actions) == 0 {
		add("actions", "no actions; list the actions the pack offers, e.g. [install, uninstall]")
	}
	for i, a := range p.Actions {
		if j := slices.Index(p.Actions, a); j < i {
			add(indexed("actions", i), "action %q is listed twice (also actions[%d])", a, j)
		}
	}
	for i, r := range p.Requires {
		f := indexed("requires", i)
		if r.Capability == "" {
			add(f+".capability", "required capability is empty; name it, e.g. capability: kubernetes.cluster")
		}
		if !r.Scope.Valid() {
			add(f+".scope", "unknown capability scope %q; use cluster or node", r.Scope)
		}
	}
	for i, pr := range p.Provides {
		f := indexed("provides", i)
		if pr.Capability == "" {
			add(f+".capability", "provided capability is empty; name it, e.g. capability: observability.tracing")
		}
		if !pr.Scope.Valid() {
			add(f+".scope", "unknown capability scope %q; use cluster or node", pr.Scope)
		}
		for _, name := range protocol.SortedKeys(pr.Attributes) {
			for _, ph := range protocol.KeyParams(pr.Attributes[name]) {
				if _, ok := p.Parameters[ph]; !ok && !protocol.ExportValues[ph] {
					add(f+".attributes."+name, "attribute %s=%q names %q, which is neither a parameter of the pack nor one of %s",
						name, pr.Attributes[name], ph, strings.Join(protocol.SortedKeys(protocol.ExportValues), ", "))
				}
			}
		}
		for j, sh := range pr.ShapedBy {
			if err := sh.Validate(p.Parameters); err != nil {
				add(indexed(f+".shaped_by", j), "%v", err)
			}
		}
	}
	for _, name := range protocol.SortedKeys(p.Parameters) {
		l.validateParam(d, "parameters."+name, p.Parameters[name])
	}
	if p.Risk.DefaultLevel != "" && !slices.Contains(riskLevels, p.Risk.DefaultLevel) {
		add("risk.default_level", "risk level %q is not one of %s", p.Risk.DefaultLevel, strings.Join(riskLevels, ", "))
	}
	l.validateTemplateRefs()
}

// validateTemplateRefs checks plan_templates against actions.
func (l *loaded) validateTemplateRefs() {
	p, d := l.pack, l.packDoc
	byAction, byKind := map[string]int{}, map[string]int{}
	for i, ref := range p.PlanTemplates {
		f := indexed("plan_templates", i)
		if ref.ID == "" {
			l.rep.add(d.path, d.line(f), f+".id", "template id is empty; use <pack>.<action>, e.g. %s.%s", orDefault(p.ID, "pack"), orDefault(ref.Action, "install"))
		}
		switch {
		case ref.Action == "":
			l.rep.add(d.path, d.line(f), f+".action", "template action is empty; name one of the pack's actions")
		case !slices.Contains(p.Actions, ref.Action):
			l.rep.add(d.path, d.line(f+".action"), f+".action",
				"template %q is for action %q, which is not declared in actions %v; add the action or remove the template", ref.ID, ref.Action, p.Actions)
		}
		if j, dup := byAction[ref.Action]; dup && ref.Action != "" {
			l.rep.add(d.path, d.line(f+".action"), f+".action", "action %q already has a template at plan_templates[%d]; keep one template per action", ref.Action, j)
		}
		byAction[ref.Action] = i
		if ref.Entrypoint == "" {
			l.rep.add(d.path, d.line(f), f+".entrypoint", "entrypoint is empty; name the first job of the template")
		}
		if ref.Kind != "" && !slices.Contains(protocol.TemplateKinds, ref.Kind) {
			l.rep.add(d.path, d.line(f+".kind"), f+".kind", "template kind %q is not one of %s", ref.Kind, strings.Join(protocol.TemplateKinds, ", "))
		}
		if k := ref.LifecycleKind(); k != protocol.KindDay2 {
			if j, dup := byKind[k]; dup {
				l.rep.add(d.path, d.line(f), f+".kind", "template %q is a second %s template (also plan_templates[%d]); a pack has at most one, mark the other kind: day2", ref.ID, k, j)
			}
			byKind[k] = i
		}
	}
	for i, a := range p.Actions {
		if _, ok := byAction[a]; !ok {
			f := indexed("actions", i)
			l.rep.add(d.path, d.line(f), f, "action %q has no plan template; add an entry to plan_templates with action: %s", a, a)
		}
	}
}
