package planner

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// edit is one change from a customization or a plan patch; both go
// through the same validation and application.
type edit struct {
	insert   string // job id to insert
	after    string
	inline   *protocol.Job
	params   map[string]string
	remove   string
	retry    string
	origin   protocol.Origin
	because  string
	rendered string // for Plan.Changes
}

// collectEdits turns the customization and the approved patches into
// edits, in order. An unapproved patch is an error saying who must approve.
func (b *builder) collectEdits(tmpl *protocol.PlanTemplate) ([]edit, error) {
	var out []edit
	if c := b.in.Customization; c != nil {
		if c.BaseTemplate != "" && c.BaseTemplate != tmpl.Ref() {
			return nil, fmt.Errorf("%w: customization is based on %s but the plan uses %s; rebase the customization", ErrEdit, c.BaseTemplate, tmpl.Ref())
		}
		for i, ch := range c.Changes {
			if err := ch.Validate(); err != nil {
				return nil, fmt.Errorf("%w: customization change %d: %w", ErrEdit, i, err)
			}
			e := edit{insert: ch.Inserted, after: ch.After, inline: ch.Job, remove: ch.Removed,
				origin: protocol.OriginCustomization, rendered: ch.String()}
			e.because = "customization of " + tmpl.Ref() + ": " + ch.String()
			out = append(out, e)
		}
	}
	for pi, p := range b.in.Patches {
		name := p.ID
		if name == "" {
			name = fmt.Sprintf("#%d", pi+1)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("%w: plan patch %s: %w", ErrEdit, name, err)
		}
		if !p.Approved() {
			who := "anyone allowed to approve plan patches"
			if len(p.Approval.Roles) > 0 {
				who = "a person with role " + strings.Join(p.Approval.Roles, " or ")
			}
			return nil, fmt.Errorf("%w: plan patch %s by %s (%s) requires approval by %s; set approval.approved_by once reviewed",
				ErrUnapproved, name, p.Author, p.Reason, who)
		}
		because := fmt.Sprintf("plan patch by %s: %s", p.Author, p.Reason)
		// by is how the plan's changes name the patch: its author, and
		// its risk when it has one (the intent sets the effective risk).
		by := p.Author
		if p.Risk != "" {
			by += " (risk " + p.Risk + ")"
		}
		for _, c := range p.Changes {
			switch {
			case c.InsertAfter != "":
				after := c.InsertAfter
				for _, j := range c.Jobs {
					if j.Job != nil && j.Job.ID != j.ID {
						return nil, fmt.Errorf("%w: plan patch %s: inline job id %q differs from %q", ErrEdit, name, j.Job.ID, j.ID)
					}
					out = append(out, edit{insert: j.ID, after: after, inline: j.Job, params: j.Parameters,
						origin: protocol.OriginPatch, because: because,
						rendered: fmt.Sprintf("patch by %s: inserted %s after %s", by, j.ID, after)})
					after = j.ID
				}
			case c.Remove != "":
				out = append(out, edit{remove: c.Remove, origin: protocol.OriginPatch, because: because,
					rendered: fmt.Sprintf("patch by %s: removed %s", by, c.Remove)})
			case c.Retry != nil:
				out = append(out, edit{retry: c.Retry.Job, origin: protocol.OriginPatch, because: because,
					rendered: fmt.Sprintf("patch by %s: retry %s", by, c.Retry.Job)})
			}
		}
	}
	return out, nil
}

// applyEdits changes the main operation's units: inserts and removes jobs
// and records ordering edits and retries for later.
func (b *builder) applyEdits(edits []edit) error {
	p := b.in.Pack
	for _, e := range edits {
		b.changes = append(b.changes, e.rendered)
		switch {
		case e.insert != "":
			y, ok := b.units[e.after]
			if !ok || y.job == nil {
				return fmt.Errorf("%w: %s: job %q to insert after is not in the plan (jobs: %s)", ErrEdit, e.rendered, e.after, b.unitList())
			}
			if _, dup := b.units[e.insert]; dup {
				return fmt.Errorf("%w: %s: job %q is already in the plan; insert a job once", ErrEdit, e.rendered, e.insert)
			}
			job := e.inline
			if job == nil {
				job = p.Jobs[e.insert]
			}
			if job == nil {
				return fmt.Errorf("%w: %s: job %q is neither in the job library of %s (library: %s) nor defined inline",
					ErrEdit, e.rendered, e.insert, p.Ref(), strings.Join(protocol.SortedKeys(p.Jobs), ", "))
			}
			if errs := job.Validate(); len(errs) > 0 {
				return fmt.Errorf("%w: %s: %w", ErrEdit, e.rendered, errs[0])
			}
			u := &unit{key: e.insert, job: job, pack: p, origin: e.origin, because: e.because, override: e.params, base: y.base}
			placeAfter(u, y)
			b.units[u.key] = u
			b.orders = append(b.orders, order{x: u.key, y: y.key, rewire: true, source: e.rendered})
		case e.remove != "":
			z, ok := b.units[e.remove]
			if !ok || z.job == nil {
				return fmt.Errorf("%w: %s: job %q is not in the plan (jobs: %s)", ErrEdit, e.rendered, e.remove, b.unitList())
			}
			b.removeUnit(z)
			b.removed[z.key] = e.rendered
			b.removedJobs = append(b.removedJobs, z)
		case e.retry != "":
			b.retries = append(b.retries, retry{job: e.retry, source: e.rendered})
		}
	}
	return nil
}

// checkRemovals fails when a removed job's outputs are required by a job
// still in the plan and nothing else provides them.
func (b *builder) checkRemovals() error {
	for _, z := range b.removedJobs {
		var consumers []string
		for _, s := range b.stages {
			for _, u := range s.units {
				if u.job == nil || u.prefix != "" {
					continue
				}
				for _, what := range b.lostInputs(u, z) {
					consumers = append(consumers, u.key+" (requires "+what+")")
				}
			}
		}
		if len(consumers) > 0 {
			return fmt.Errorf("%w: %s: jobs still in the plan need its outputs and nothing else provides them: %s; remove those jobs too or keep %s",
				ErrEdit, b.removed[z.key], strings.Join(consumers, ", "), z.key)
		}
	}
	return nil
}

// lostInputs lists what unit u requires that removed unit z provided and
// no other unit, binding or state provides.
func (b *builder) lostInputs(u, z *unit) []string {
	var out []string
	for _, r := range u.job.Inputs.Requires.Capabilities {
		if _, ok := z.job.Provided(r.Key); !ok || r.Optional {
			continue
		}
		if len(b.unitProvides[provKey{kind: 'c', key: r.Key}]) > 0 || b.decisions[r.Key] != nil || b.stateHasCapability(r.Key) {
			continue
		}
		out = append(out, "capability "+r.Key)
	}
	for _, a := range u.job.Inputs.Requires.Artifacts {
		if _, ok := z.job.ProducesArtifact(a.ID); !ok || a.Optional {
			continue
		}
		if len(b.unitProvides[provKey{kind: 'a', key: a.ID}]) > 0 || b.stateHasArtifact(a.ID) {
			continue
		}
		out = append(out, "artifact "+a.ID)
	}
	return out
}

func (b *builder) unitList() string {
	var ids []string
	for _, s := range b.stages {
		for _, u := range s.units {
			if u.prefix == "" && u.job != nil {
				ids = append(ids, u.key)
			}
		}
	}
	return strings.Join(ids, ", ")
}
