package packs

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// validateTemplates checks every plan template against its reference in
// pack.yaml and the job library.
func (l *loaded) validateTemplates(jobs map[string]*jobFile) {
	for _, tf := range l.templates {
		l.validateTemplate(tf, jobs)
	}
	l.validateGates()
}

func (l *loaded) validateTemplate(tf *templateFile, jobs map[string]*jobFile) {
	t, d := tf.tpl, tf.doc
	ref := l.pack.PlanTemplates[tf.ref]
	refField := indexed("plan_templates", tf.ref)
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	if t.ID != ref.ID {
		add("id", "template id %q differs from %q declared in pack.yaml %s; make them equal", t.ID, ref.ID, refField)
	}
	if t.Action != ref.Action {
		add("action", "template action %q differs from %q declared in pack.yaml %s; make them equal", t.Action, ref.Action, refField)
	}
	if t.Title == "" {
		add("title", "title is empty; give the template a title a person can read")
	}
	if len(t.Stages) == 0 {
		add("stages", "template has no stages; list at least one stage with jobs")
	}
	stageOf := map[string]string{}
	stageIdx := map[string]int{}
	for i, s := range t.Stages {
		f := indexed("stages", i)
		switch {
		case s.ID == "":
			add(f+".id", "stage id is empty; name the stage, e.g. id: install-runtime")
		default:
			if first, dup := stageIdx[s.ID]; dup {
				add(f+".id", "duplicate stage id %q: already used by stages[%d]; stage ids must be unique", s.ID, first)
			} else {
				stageIdx[s.ID] = i
			}
		}
		if len(s.Jobs) == 0 {
			add(f+".jobs", "stage %q has no jobs; list at least one job or remove the stage", s.ID)
		}
		for k, id := range s.Jobs {
			jf := indexed(f+".jobs", k)
			if jobs[id] == nil {
				add(jf, "job %q is not in the job library (no jobs/*.yaml declares it); add the job or fix the name", id)
				continue
			}
			if other, dup := stageOf[id]; dup {
				add(jf, "job %q is already in stage %q; a job belongs to one stage of a template", id, other)
				continue
			}
			stageOf[id] = s.ID
		}
	}
	if ref.Entrypoint != "" && stageOf[ref.Entrypoint] == "" {
		l.rep.add(l.packDoc.path, l.packDoc.line(refField+".entrypoint"), refField+".entrypoint",
			"entrypoint %q is not a job of template %s (%s); name one of its jobs", ref.Entrypoint, ref.ID, d.path)
	}
	gateIdx := map[string]int{}
	for i, g := range t.Gates {
		f := indexed("gates", i)
		if g.ID == "" {
			add(f+".id", "gate id is empty; name the gate, e.g. id: confirm-node-removal")
		} else if first, dup := gateIdx[g.ID]; dup {
			add(f+".id", "gate id %q is already used by gates[%d]", g.ID, first)
		} else {
			gateIdx[g.ID] = i
		}
		if !g.Type.Valid() {
			add(f+".type", "unknown gate type %q; use one of %v", g.Type, protocol.GateTypes)
		}
		if len(g.Options) == 0 {
			add(f+".options", "gate %q has no options; list the choices a person can make, e.g. [proceed, cancel operation]", g.ID)
		}
		if g.Reason == "" {
			add(f+".reason", "gate %q has no reason; say why the operation waits", g.ID)
		}
		for k, b := range g.Before {
			if stageOf[b] == "" {
				add(indexed(f+".before", k), "gate %q holds back job %q, which is not a job of this template", g.ID, b)
			}
		}
	}
	if !slices.Contains(l.pack.Actions, t.Action) && t.Action != "" && t.Action != ref.Action {
		add("action", "action %q is not declared in pack.yaml actions %s", t.Action, strings.Join(l.pack.Actions, ", "))
	}
	l.validateStageOrder(tf, jobs)
	l.validateStageContracts(tf, jobs)
}
