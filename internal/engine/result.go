package engine

import (
	"errors"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Status is the outcome of one instance.
type Status string

const (
	// StatusPending: not started (the run ended before it could).
	StatusPending Status = "pending"
	// StatusRunning is only seen in events.
	StatusRunning Status = "running"
	// StatusDone: the job ran and its evidence holds.
	StatusDone Status = "done"
	// StatusSatisfied: a marker of an earlier run exists and its evidence
	// still holds; the job did not run.
	StatusSatisfied Status = "satisfied"
	// StatusFixed: fixed by hand (an intervention) and verified.
	StatusFixed Status = "fixed"
	// StatusFailed: the job failed (exit code, evidence, transport...).
	StatusFailed Status = "failed"
	// StatusSkipped: not run because a need failed, waits, or fail-fast.
	StatusSkipped Status = "skipped"
	// StatusWaiting: a gate waits for a decision.
	StatusWaiting Status = "waiting"
	// StatusInterrupted: cut off by cancellation; the next run resumes it.
	StatusInterrupted Status = "interrupted"
	// StatusCancelled: a gate whose cancel option was chosen; the
	// operation ends Cancelled.
	StatusCancelled Status = "cancelled"
)

// Finished reports whether dependents of an instance in this status may start.
func (s Status) Finished() bool {
	return s == StatusDone || s == StatusSatisfied || s == StatusFixed
}

// Attempt records one try of an instance.
type Attempt struct {
	Number   int           `json:"number"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	ExitCode int           `json:"exit_code"`
	// Class is the failure class (see Failure*), empty on success.
	Class string `json:"class,omitempty"`
	Error string `json:"error,omitempty"`
}

// Failure classes.
const (
	FailureExitCode     = "exit_code"
	FailureEvidence     = "evidence"
	FailureArtifact     = "artifact"
	FailureTimeout      = "timeout"
	FailureUnreachable  = "unreachable"
	FailureConnLost     = "connection_lost"
	FailureAuth         = "auth"
	FailureHostKey      = "host_key"
	FailureTransport    = "transport"
	FailureInput        = "input"
	FailureScript       = "script"
	FailureVerification = "verification"
	FailureInterrupted  = "interrupted"
)

// InstanceResult is the outcome of one job instance.
type InstanceResult struct {
	ID     string `json:"id"`
	Job    string `json:"job"`
	Stage  string `json:"stage"`
	Host   string `json:"host,omitempty"`
	Status Status `json:"status"`
	// Reason explains skipped, waiting, satisfied-after-drift and failed
	// outcomes in one line.
	Reason    string                    `json:"reason,omitempty"`
	Class     string                    `json:"class,omitempty"`
	Attempts  []Attempt                 `json:"attempts,omitempty"`
	Started   time.Time                 `json:"started,omitzero"`
	Duration  time.Duration             `json:"duration"`
	Evidence  []protocol.EvidenceResult `json:"evidence,omitempty"`
	Artifacts []string                  `json:"artifacts,omitempty"` // ids produced
	LogTail   []string                  `json:"log_tail,omitempty"`
	Decision  *protocol.Decision        `json:"decision,omitempty"`
	// FixedBy is the actor of the intervention that fixed the instance.
	FixedBy string `json:"fixed_by,omitempty"`
	err     error
}

// Err returns the instance's error (redacted), nil unless failed.
func (r InstanceResult) Err() error { return r.err }

// GateWait says which gate waits and what it needs.
type GateWait struct {
	Instance string                   `json:"instance"`
	Gate     string                   `json:"gate"`
	Type     protocol.GateType        `json:"type"`
	Status   protocol.OperationStatus `json:"status"`
	Reason   string                   `json:"reason"`
	Options  []string                 `json:"options"`
	// Effects holds the effect of each option, in Options' order.
	Effects       []protocol.OptionEffect `json:"effects"`
	RequiredRoles []string                `json:"required_roles,omitempty"`
	// Parameter names the parameter a missing_input gate waits for.
	Parameter string `json:"parameter,omitempty"`
	// Refused explains why a supplied decision was not accepted.
	Refused string `json:"refused,omitempty"`
}

// GateCancel says which gate cancelled the operation and who chose it.
type GateCancel struct {
	Instance string `json:"instance"`
	Gate     string `json:"gate"`
	Option   string `json:"option"`
	Actor    string `json:"actor"`
}

// ProvidedCapability is a capability a finished instance provides.
type ProvidedCapability struct {
	Key        string            `json:"key"`
	Scope      protocol.Scope    `json:"scope,omitempty"`
	Host       string            `json:"host,omitempty"`
	Instance   string            `json:"instance"`
	Attributes map[string]string `json:"attributes,omitempty"`
}

// InstanceEvidence is an evidence result with the instance it belongs to.
type InstanceEvidence struct {
	Instance string `json:"instance"`
	protocol.EvidenceResult
}

// InterventionResult is the outcome of verifying one intervention.
type InterventionResult struct {
	Intervention protocol.Intervention `json:"intervention"`
	Instances    []string              `json:"instances"`
	Verified     bool                  `json:"verified"`
	// StillFailing lists what did not hold, one line each.
	StillFailing []string `json:"still_failing,omitempty"`
}

// Result of a run. Every slice is sorted: instances in plan order, the rest
// by id, host and instance.
type Result struct {
	Operation    protocol.Operation   `json:"operation"`
	Instances    []InstanceResult     `json:"instances"`
	Artifacts    []protocol.Artifact  `json:"artifacts"`
	Capabilities []ProvidedCapability `json:"capabilities"`
	Evidence     []InstanceEvidence   `json:"evidence"`
	Waiting      []GateWait           `json:"waiting,omitempty"`
	// Cancelled is set when a gate's cancel option ended the operation.
	Cancelled *GateCancel `json:"cancelled,omitempty"`
	// RollingStops lists the serial jobs whose rolling stopped at a failed
	// host (Controls.MaxFailures), in the order they stopped.
	RollingStops []RollingStop `json:"rolling_stops,omitempty"`
	// TimedOut is set when the run's time limit ran out (see TimeoutError).
	TimedOut      *TimedOut            `json:"timed_out,omitempty"`
	Failed        []string             `json:"failed,omitempty"` // instance ids
	Interventions []InterventionResult `json:"interventions,omitempty"`
	secrets       map[string]string    // artifact key -> value
}

// Instance returns the result of one instance.
func (r *Result) Instance(id string) (InstanceResult, bool) {
	for _, in := range r.Instances {
		if in.ID == id {
			return in, true
		}
	}
	return InstanceResult{}, false
}

// SecretValue returns the value of a secret artifact produced or consumed
// by the run, for a caller that keeps it in private state. Producer is the
// instance id ("" matches any producer).
func (r *Result) SecretValue(id, producer string) (string, bool) {
	for _, a := range r.Artifacts {
		if a.ID == id && (producer == "" || a.Producer == producer) && a.Sensitivity == protocol.SensitivitySecret {
			v, ok := r.secrets[artifactKey(a)]
			return v, ok
		}
	}
	return "", false
}

// Err joins the errors of failed instances (nil when none failed).
func (r *Result) Err() error {
	var errs []error
	for _, in := range r.Instances {
		if in.Status == StatusFailed && in.err != nil {
			errs = append(errs, in.err)
		}
	}
	return errors.Join(errs...)
}

func artifactKey(a protocol.Artifact) string { return a.ID + "\x00" + a.Producer + "\x00" + a.Host }
