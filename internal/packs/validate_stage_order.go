package packs

import (
	"fmt"
	"sort"
)

// need is one edge the planner derives for a job of a template: the job
// waits for provider because of what (a capability, an artifact or an
// after entry).
type need struct {
	provider string
	what     string
}

// validateStageOrder reports a job placed in a stage before the stage of a
// job it needs. Needs are derived as the planner derives edges: a required
// capability or artifact (optional ones too) makes a job wait for every job
// of the template that provides it, and after names a job to wait for. A
// job providing what it requires does not wait for itself, and jobs of one
// stage may need each other.
func (l *loaded) validateStageOrder(tf *templateFile, jobs map[string]*jobFile) {
	t, d := tf.tpl, tf.doc
	stageIdx := map[string]int{} // job id -> index of its (first) stage
	for i, s := range t.Stages {
		for _, id := range s.Jobs {
			if _, seen := stageIdx[id]; !seen && jobs[id] != nil {
				stageIdx[id] = i
			}
		}
	}
	providers := map[string][]string{} // "capability X" / "artifact Y" -> job ids
	for id := range stageIdx {
		j := jobs[id].job
		for _, c := range j.Outputs.Provides.Capabilities {
			providers["capability "+c.Key] = append(providers["capability "+c.Key], id)
		}
		for _, a := range j.Outputs.Artifacts {
			providers["artifact "+a.ID] = append(providers["artifact "+a.ID], id)
		}
	}
	for _, ids := range providers {
		sort.Strings(ids)
	}
	for i, s := range t.Stages {
		for k, id := range s.Jobs {
			if stageIdx[id] != i || jobs[id] == nil {
				continue // unknown, or reported as in two stages
			}
			for _, n := range jobNeeds(jobs[id].job.ID, jobs, providers) {
				at, ok := stageIdx[n.provider]
				if !ok || at <= i {
					continue
				}
				field := indexed(indexed("stages", i)+".jobs", k)
				l.rep.add(d.path, d.line(field), field,
					"job %q in stage %q needs %s from job %q, which is in the later stage %q (stages[%d]); "+
						"the planner runs %q first, so move stage %q before %q or move one of the jobs",
					id, s.ID, n.what, n.provider, t.Stages[at].ID, at, n.provider, t.Stages[at].ID, s.ID)
			}
		}
	}
}

// jobNeeds lists the jobs of the template that job id waits for, sorted by
// provider and reason.
func jobNeeds(id string, jobs map[string]*jobFile, providers map[string][]string) []need {
	j := jobs[id].job
	var out []need
	add := func(key, what string) {
		for _, p := range providers[key] {
			if p != id {
				out = append(out, need{provider: p, what: what})
			}
		}
	}
	for _, r := range j.Inputs.Requires.Capabilities {
		add("capability "+r.Key, fmt.Sprintf("capability %s", r.Key))
	}
	for _, a := range j.Inputs.Requires.Artifacts {
		add("artifact "+a.ID, fmt.Sprintf("artifact %s", a.ID))
	}
	for _, a := range j.After {
		if a != id {
			out = append(out, need{provider: a, what: "ordering (after)"})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].provider != out[b].provider {
			return out[a].provider < out[b].provider
		}
		return out[a].what < out[b].what
	})
	return out
}
