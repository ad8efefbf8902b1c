package packs

import (
	"maps"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// stageOutputs are the contract names the jobs of a stage give: the
// capability keys they provide, the artifacts they produce and their
// evidence ids.
func stageOutputs(s protocol.Stage, jobs map[string]*jobFile) map[string]bool {
	out := map[string]bool{}
	for _, id := range s.Jobs {
		jf := jobs[id]
		if jf == nil {
			continue
		}
		for _, c := range jf.job.Outputs.Provides.Capabilities {
			out[c.Key] = true
		}
		for _, a := range jf.job.Outputs.Artifacts {
			out[a.ID] = true
		}
		for _, e := range jf.job.Outputs.Evidence {
			out[e.ID] = true
		}
	}
	return out
}

// stageInputs are the capability keys and artifact ids the jobs of a
// stage require.
func stageInputs(s protocol.Stage, jobs map[string]*jobFile) map[string]bool {
	in := map[string]bool{}
	for _, id := range s.Jobs {
		jf := jobs[id]
		if jf == nil {
			continue
		}
		for _, c := range jf.job.Inputs.Requires.Capabilities {
			in[c.Key] = true
		}
		for _, a := range jf.job.Inputs.Requires.Artifacts {
			in[a.ID] = true
		}
	}
	return in
}

// validateStageContracts checks each stage's produces and requires
// against the contracts of the jobs: a stage produces only what one of
// its jobs provides (a capability, an artifact or an evidence id), and
// requires only what an earlier stage of the template produces, what one
// of its jobs requires as input, or a capability the pack requires.
func (l *loaded) validateStageContracts(tf *templateFile, jobs map[string]*jobFile) {
	t, d := tf.tpl, tf.doc
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	packRequires := map[string]bool{}
	for _, r := range l.pack.Requires {
		packRequires[r.Capability] = true
	}
	earlier := map[string]bool{}
	for i, s := range t.Stages {
		f := indexed("stages", i)
		outs := stageOutputs(s, jobs)
		for k, name := range s.Produces {
			if !outs[name] {
				add(indexed(f+".produces", k), "template %s stage %q produces %q, which none of its jobs (%s) provides; name a capability key of their outputs.provides.capabilities, an artifact id of their outputs.artifacts or an evidence id (%s), or remove it",
					t.ID, s.ID, name, strings.Join(s.Jobs, ", "), strings.Join(slices.Sorted(maps.Keys(outs)), ", "))
			}
		}
		ins := stageInputs(s, jobs)
		for k, name := range s.Requires {
			if !earlier[name] && !ins[name] && !packRequires[name] {
				add(indexed(f+".requires", k), "template %s stage %q requires %q, which no earlier stage produces, none of its jobs (%s) requires as input and pack.yaml does not require; name one of %s, or remove it",
					t.ID, s.ID, name, strings.Join(s.Jobs, ", "), strings.Join(slices.Sorted(maps.Keys(union(earlier, ins, packRequires))), ", "))
			}
		}
		for name := range outs {
			earlier[name] = true
		}
	}
}

func union(ms ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}
