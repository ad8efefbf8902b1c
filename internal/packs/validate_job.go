package packs

import (
	"path"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// jobTypes are the values of job.type.
var jobTypes = []string{"automation", "verification"}

// jobIndex maps job ids to their files, reporting ids declared twice.
func (l *loaded) jobIndex() map[string]*jobFile {
	out := map[string]*jobFile{}
	for _, jf := range l.jobs {
		id := jf.job.ID
		if id == "" {
			continue // reported by validateJob
		}
		if first, dup := out[id]; dup {
			l.rep.add(jf.doc.path, jf.doc.line("id"), "id", "job id %q is already declared in %s:%d; job ids must be unique within a pack",
				id, l.rep.file(first.doc.path), first.doc.line("id"))
			continue
		}
		out[id] = jf
	}
	return out
}

// validateJob checks one job file and its references to the pack.
func (l *loaded) validateJob(jf *jobFile, jobs map[string]*jobFile) {
	j, d := jf.job, jf.doc
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	if j.ID == "" {
		add("id", "job id is empty; set job.id, e.g. id: %s", strings.TrimSuffix(path.Base(d.path), path.Ext(d.path)))
	}
	if j.Title == "" {
		add("title", "title is empty; give the job a title a person can read")
	}
	if j.Type != "" && !slices.Contains(jobTypes, j.Type) {
		add("type", "job type %q is not one of %s", j.Type, strings.Join(jobTypes, ", "))
	}
	if !j.Scope.Expand.Valid() {
		add("scope.expand", "unknown scope.expand %q; use one of %v", j.Scope.Expand, protocol.Expansions)
	} else if msg := j.Scope.RunOnProblem(); msg != "" {
		add("scope.run_on", "%s", msg)
	}
	for _, name := range protocol.SortedKeys(j.Inputs.Parameters) {
		f := "inputs.parameters." + name
		spec := j.Inputs.Parameters[name]
		if spec.MissingInput {
			add(f+".missing_input", "job %q declares missing_input on parameter %q, but only a pack parameter's missing_input is read; remove it here and declare missing_input: true on parameters.%s in pack.yaml", j.ID, name, name)
			spec.MissingInput = false
		}
		l.validateJobParam(d, f, name, spec)
		if _, ok := l.pack.Parameters[name]; !ok && spec.Default == "" && !spec.Required {
			add(f, "parameter %q is not declared in pack.yaml parameters and has no default; declare it there or give it a default", name)
		}
	}
	l.validateContract(jf)
	l.validateEvidence(jf)
	l.validateControls(jf, jobs)
	switch {
	case j.Script == "" && j.Type != "verification":
		add("script", "no script; name a file under scripts/ (only type: verification jobs may run evidence alone)")
	case j.Script != "":
		if _, ok := l.pack.Scripts[path.Clean(j.Script)]; !ok {
			add("script", "script %q does not exist in the pack; add it under scripts/ or fix the path", j.Script)
		}
	}
	for i, a := range j.After {
		f := indexed("after", i)
		switch {
		case a == j.ID:
			add(f, "job %q is listed after itself; remove it", a)
		case jobs[a] == nil:
			add(f, "after names job %q, which is not in the job library (jobs/*.yaml)", a)
		}
	}
}

// validateContract checks the requires and provides sides of a job.
func (l *loaded) validateContract(jf *jobFile) {
	j, d := jf.job, jf.doc
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	scope := func(field string, s protocol.Scope) {
		if !s.Valid() {
			add(field+".scope", "unknown capability scope %q; use cluster or node", s)
		}
	}
	for i, r := range j.Inputs.Requires.Capabilities {
		f := indexed("inputs.requires.capabilities", i)
		if r.Key == "" {
			add(f+".key", "required capability key is empty; name it, e.g. key: linux.host")
		}
		scope(f, r.Scope)
	}
	for i, a := range j.Inputs.Requires.Artifacts {
		f := indexed("inputs.requires.artifacts", i)
		if a.ID == "" {
			add(f+".id", "required artifact id is empty; name it, e.g. id: kubeadm.join_token")
		}
		scope(f, a.Scope)
	}
	for i, c := range j.Outputs.Provides.Capabilities {
		f := indexed("outputs.provides.capabilities", i)
		if c.Key == "" {
			add(f+".key", "provided capability key is empty; name it, e.g. key: container.runtime.containerd")
		}
		scope(f, c.Scope)
	}
	for i, c := range j.Outputs.Provides.Capabilities {
		for _, name := range protocol.SortedKeys(c.Attributes) {
			for _, p := range protocol.KeyParams(c.Attributes[name]) {
				if _, ok := j.Inputs.Parameters[p]; !ok && !protocol.BuiltinKeyParams[p] {
					f := indexed("outputs.provides.capabilities", i) + ".attributes." + name
					add(f, "attribute %s=%q names parameter %q, which is not in inputs.parameters", name, c.Attributes[name], p)
				}
			}
		}
	}
	seen := map[string]int{}
	for i, a := range j.Outputs.Artifacts {
		f := indexed("outputs.artifacts", i)
		switch {
		case a.ID == "":
			add(f+".id", "artifact id is empty; name it, e.g. id: kubeconfig.admin")
		case !a.Sensitivity.Valid():
			add(f+".sensitivity", "invalid sensitivity %q; use public, internal or secret", a.Sensitivity)
		case !protocol.KnownArtifactType(a.Type):
			add(f+".type", "unknown artifact type %q; use one of %s (the engine checks each produced value against it)", a.Type, strings.Join(protocol.ArtifactTypes(), ", "))
		}
		scope(f, a.Scope)
		if first, dup := seen[a.ID]; dup && a.ID != "" {
			add(f+".id", "artifact %q is already declared at outputs.artifacts[%d]", a.ID, first)
		}
		seen[a.ID] = i
	}
}

// validateEvidence checks that the job proves its outputs.
func (l *loaded) validateEvidence(jf *jobFile) {
	j, d := jf.job, jf.doc
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	if len(j.Outputs.Evidence) == 0 {
		add("outputs", "job %q has no evidence; a job succeeds only when its evidence holds, add outputs.evidence", j.ID)
	}
	seen := map[string]int{}
	for i, e := range j.Outputs.Evidence {
		f := indexed("outputs.evidence", i)
		if e.ID == "" {
			add(f+".id", "evidence id is empty; name what it proves, e.g. id: containerd_service_active")
		} else if first, dup := seen[e.ID]; dup {
			add(f+".id", "evidence id %q is already used by outputs.evidence[%d]; evidence ids must be unique within a job", e.ID, first)
		} else {
			seen[e.ID] = i
		}
		if e.Command == "" {
			add(f, "evidence %q has no check: set command (with expected or expected_exit_code)", e.ID)
			continue
		}
		check := e
		if check.ID == "" {
			check.ID = indexed("evidence", i)
		}
		if err := check.Validate(); err != nil {
			field := f + ".match"
			if e.Expected != "" {
				field = f + ".expected"
			}
			add(field, "%v", err)
		}
	}
}

// validateControls checks retries, idempotency, rollback and seriality.
func (l *loaded) validateControls(jf *jobFile, jobs map[string]*jobFile) {
	j, d := jf.job, jf.doc
	c := j.Controls
	add := func(field, format string, args ...any) {
		l.rep.add(d.path, d.line(field), field, format, args...)
	}
	if c.RetryPolicy.MaxAttempts < 0 {
		add("controls.retry_policy.max_attempts", "max_attempts %d is negative; use 1 for no retry", c.RetryPolicy.MaxAttempts)
	}
	if c.Serial < 0 {
		add("controls.serial", "serial %d is negative; use 0 for no limit or 1 for one host at a time", c.Serial)
	}
	switch {
	case c.MaxFailures < 0:
		add("controls.max_failures", "max_failures %d is negative; use 0 to stop the rolling at its first failed host", c.MaxFailures)
	case c.MaxFailures > 0 && c.Serial <= 0:
		add("controls.max_failures", "max_failures %d has no effect without controls.serial (only a serial job rolls over its hosts); set serial or remove max_failures", c.MaxFailures)
	}
	for _, p := range protocol.KeyParams(c.Idempotency.Key) {
		if _, ok := j.Inputs.Parameters[p]; !ok && !protocol.BuiltinKeyParams[p] {
			add("controls.idempotency.key", "idempotency key %q names parameter %q, which is not in inputs.parameters nor one of %s",
				c.Idempotency.Key, p, strings.Join(protocol.SortedKeys(protocol.BuiltinKeyParams), ", "))
		}
	}
	if ra := c.RollingAfter; ra != "" {
		switch other := jobs[ra]; {
		case other == nil:
			add("controls.rolling_after", "rolling_after names job %q, which is not in the job library (jobs/*.yaml)", ra)
		case other.job.Scope.Expand != j.Scope.Expand:
			add("controls.rolling_after", "rolling_after names job %q, which expands %s; it must expand like this job (%s) so that both have an instance per host", ra, other.job.Scope.Expand, j.Scope.Expand)
		case j.Scope.Expand == protocol.ExpandOnce || j.Scope.Expand == protocol.ExpandFirstMaster:
			add("controls.rolling_after", "rolling_after has no effect with scope.expand %s, which has one instance; remove it", j.Scope.Expand)
		}
	}
}
