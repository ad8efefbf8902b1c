package protocol

import (
	"fmt"
	"regexp"
)

// Expansion says how a job expands into instances over the intent's hosts.
type Expansion string

const (
	ExpandOnce         Expansion = "once"          // one instance, no host (or the first master for commands)
	ExpandFirstMaster  Expansion = "first_master"  // the first host with role master
	ExpandOtherMasters Expansion = "other_masters" // masters except the first
	ExpandEachMaster   Expansion = "each_master"
	ExpandEachWorker   Expansion = "each_worker"
	ExpandEachNode     Expansion = "each_node"    // every host of the intent
	ExpandTargetNodes  Expansion = "target_nodes" // the hosts the action targets (add_node, remove_node)
	ExpandOtherNodes   Expansion = "other_nodes"  // the hosts the action does not target (those that stay in remove_node); none without targets
)

// Expansions lists every known expansion, sorted.
var Expansions = []Expansion{ExpandEachMaster, ExpandEachNode, ExpandEachWorker, ExpandFirstMaster, ExpandOnce, ExpandOtherMasters, ExpandOtherNodes, ExpandTargetNodes}

// Valid reports whether e is a known expansion.
func (e Expansion) Valid() bool {
	for _, k := range Expansions {
		if k == e {
			return true
		}
	}
	return false
}

// RunOn says on which host a job's instances execute when it is not the
// host each instance is for.
type RunOn string

// RunOnFirstMaster executes every instance on the first master: the
// instance stays one per host of its expansion (CP_HOST and the host's
// attributes are that host's), but its script and evidence run on the
// first master, where the cluster's admin credentials already are. Jobs
// that act on a node only through the Kubernetes API (drain, delete,
// label) use it, so the admin kubeconfig never travels to a worker.
const RunOnFirstMaster RunOn = "first_master"

// RunOns lists the values of scope.run_on besides "" (the instance's own host).
var RunOns = []RunOn{RunOnFirstMaster}

// Valid reports whether r is "" or a known value.
func (r RunOn) Valid() bool { return r == "" || r == RunOnFirstMaster }

// JobScope says how a job expands over the intent's hosts and where its
// instances run.
type JobScope struct {
	Expand Expansion `yaml:"expand" json:"expand"`
	// RunOn moves execution off the instance's own host ("" keeps it there).
	RunOn RunOn `yaml:"run_on,omitempty" json:"run_on,omitempty"`
}

// RunOnProblem says why scope.run_on cannot be used with the scope's
// expansion, or "" when it can.
func (s JobScope) RunOnProblem() string {
	switch {
	case !s.RunOn.Valid():
		return fmt.Sprintf("scope.run_on %q is not one of %v (or empty for the instance's own host)", s.RunOn, RunOns)
	case s.RunOn == RunOnFirstMaster && (s.Expand == ExpandOnce || s.Expand == ExpandFirstMaster):
		return fmt.Sprintf("scope.run_on first_master has no effect with scope.expand %s, whose instance already runs on the first master; remove run_on", s.Expand)
	}
	return ""
}

// ParamSpec describes a parameter of a pack or a job. Type is one of the
// parameter types (package paramtype); the other fields narrow it. Every
// value is checked against its spec at plan time.
type ParamSpec struct {
	Type     string `yaml:"type,omitempty" json:"type,omitempty"`
	Default  string `yaml:"default,omitempty" json:"default,omitempty"`
	Required bool   `yaml:"required,omitempty" json:"required,omitempty"`
	// MissingInput makes a pack parameter without a value stop only the
	// jobs that read it, at a missing_input gate named for it, instead of
	// failing the plan; the other branches run.
	MissingInput bool     `yaml:"missing_input,omitempty" json:"missing_input,omitempty"`
	Description  string   `yaml:"description,omitempty" json:"description,omitempty"`
	Enum         []string `yaml:"enum,omitempty" json:"enum,omitempty"`
	// Min and Max bound a number or integer, or a CIDR's prefix length.
	Min *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	// Pattern is a regular expression a string (or each item) must match
	// in full.
	Pattern string `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	// MaxLength bounds a string's length in characters (default 1024).
	MaxLength int `yaml:"max_length,omitempty" json:"max_length,omitempty"`
	// Versions is a version constraint a semver must satisfy, e.g.
	// ">= 1.32.0, < 1.36.0".
	Versions string `yaml:"versions,omitempty" json:"versions,omitempty"`
	// Items is the type of a list's items or a map's values.
	Items *ParamSpec `yaml:"items,omitempty" json:"items,omitempty"`
}

// Requires is the input side of a job contract.
type Requires struct {
	Capabilities []CapabilityRequirement `yaml:"capabilities,omitempty" json:"capabilities,omitempty"`
	Artifacts    []ArtifactRef           `yaml:"artifacts,omitempty" json:"artifacts,omitempty"`
}

// Inputs of a job: parameters it reads and what it requires.
type Inputs struct {
	// Parameters names the parameters the job reads; values come from the
	// intent, the pack defaults or the job's own default.
	Parameters map[string]ParamSpec `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	Requires   Requires             `yaml:"requires,omitempty" json:"requires,omitempty"`
}

// Outputs of a job: capabilities, artifacts and the evidence that proves them.
type Outputs struct {
	Provides  Provides       `yaml:"provides,omitempty" json:"provides,omitempty"`
	Artifacts []ArtifactSpec `yaml:"artifacts,omitempty" json:"artifacts,omitempty"`
	Evidence  []Evidence     `yaml:"evidence,omitempty" json:"evidence,omitempty"`
}

// Provides lists the capabilities a job provides.
type Provides struct {
	Capabilities []Capability `yaml:"capabilities,omitempty" json:"capabilities,omitempty"`
}

// RetryPolicy says how often a job is retried on retryable failures.
type RetryPolicy struct {
	MaxAttempts int      `yaml:"max_attempts,omitempty" json:"max_attempts,omitempty"`
	Backoff     Duration `yaml:"backoff,omitempty" json:"backoff,omitempty"`
	// TransientExitCodes are exit codes that count as retryable.
	TransientExitCodes []int `yaml:"transient_exit_codes,omitempty" json:"transient_exit_codes,omitempty"`
}

// Idempotency carries the key template, e.g. install-containerd:{node_id}:{version}.
type Idempotency struct {
	Key string `yaml:"key" json:"key"`
}

// ManualIntervention says whether a person may fix the job by hand.
type ManualIntervention struct {
	Allowed bool `yaml:"allowed" json:"allowed"`
}

// Controls of a job's execution.
type Controls struct {
	RetryPolicy        RetryPolicy        `yaml:"retry_policy,omitempty" json:"retry_policy,omitempty"`
	Idempotency        Idempotency        `yaml:"idempotency,omitempty" json:"idempotency,omitempty"`
	Timeout            Duration           `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	ManualIntervention ManualIntervention `yaml:"manual_intervention,omitempty" json:"manual_intervention,omitempty"`
	// Become runs the script through sudo.
	Become bool `yaml:"become,omitempty" json:"become,omitempty"`
	// Serial limits how many instances of this job run at once (rolling work).
	Serial int `yaml:"serial,omitempty" json:"serial,omitempty"`
	// MaxFailures is how many instances of a serial job may fail while
	// the rolling goes on: once more have failed, the job's instances not
	// started yet are not started (skipped, reported as not run) and
	// neither is what needs them. 0, the default, stops the rolling at
	// its first failed host. Only with Serial.
	MaxFailures int `yaml:"max_failures,omitempty" json:"max_failures,omitempty"`
	// RollingAfter names a job of the same expansion whose instance on the
	// previous host (in intent order) this job's instance on a host waits
	// for: a rolling window that spans several jobs, e.g. drain on the
	// first master, upgrade on the node, uncordon on the first master, one
	// node after the other. It may name the job itself.
	RollingAfter string `yaml:"rolling_after,omitempty" json:"rolling_after,omitempty"`
}

// Job is a unit of execution with a contract.
type Job struct {
	ID          string   `yaml:"id" json:"id"`
	Title       string   `yaml:"title" json:"title"`
	Type        string   `yaml:"type,omitempty" json:"type,omitempty"` // automation, verification
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Scope       JobScope `yaml:"scope" json:"scope"`
	Inputs      Inputs   `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	Outputs     Outputs  `yaml:"outputs,omitempty" json:"outputs,omitempty"`
	Controls    Controls `yaml:"controls,omitempty" json:"controls,omitempty"`
	// Script is the path of the script inside the pack directory.
	Script string `yaml:"script,omitempty" json:"script,omitempty"`
	// After names jobs this one must follow although no contract says so
	// (explicit ordering-only edges).
	After []string `yaml:"after,omitempty" json:"after,omitempty"`
}

var keyParam = regexp.MustCompile(`\{([a-zA-Z0-9_.]+)\}`)

// KeyParams returns the parameter names used by an idempotency key template.
func KeyParams(template string) []string {
	var out []string
	for _, m := range keyParam.FindAllStringSubmatch(template, -1) {
		out = append(out, m[1])
	}
	return out
}

// BuiltinKeyParams are always available to idempotency keys.
var BuiltinKeyParams = map[string]bool{"node_id": true, "host": true, "cluster": true, "job_id": true, "operation": true}

// Provided reports whether the job provides capability key.
func (j *Job) Provided(key string) (Capability, bool) {
	for _, c := range j.Outputs.Provides.Capabilities {
		if c.Key == key {
			return c, true
		}
	}
	return Capability{}, false
}

// ProducesArtifact reports whether the job produces artifact id.
func (j *Job) ProducesArtifact(id string) (ArtifactSpec, bool) {
	for _, a := range j.Outputs.Artifacts {
		if a.ID == id {
			return a, true
		}
	}
	return ArtifactSpec{}, false
}

// Validate checks the job's own shape (not its relation to a pack).
func (j *Job) Validate() []error {
	var errs []error
	add := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("job %q: "+format, append([]any{j.ID}, a...)...))
	}
	if j.ID == "" {
		errs = append(errs, fmt.Errorf("job: id is empty"))
	}
	if j.Title == "" {
		add("title is empty")
	}
	if !j.Scope.Expand.Valid() {
		add("scope.expand %q is not one of %v", j.Scope.Expand, Expansions)
	}
	if msg := j.Scope.RunOnProblem(); msg != "" {
		add("%s", msg)
	}
	for _, r := range j.Inputs.Requires.Capabilities {
		if err := r.Validate(); err != nil {
			add("%v", err)
		}
	}
	for _, a := range j.Outputs.Artifacts {
		if err := a.Validate(); err != nil {
			add("%v", err)
		}
	}
	for _, e := range j.Outputs.Evidence {
		if err := e.Validate(); err != nil {
			add("%v", err)
		}
	}
	for _, p := range KeyParams(j.Controls.Idempotency.Key) {
		if _, ok := j.Inputs.Parameters[p]; !ok && !BuiltinKeyParams[p] {
			add("idempotency key %q names unknown parameter %q", j.Controls.Idempotency.Key, p)
		}
	}
	return errs
}
