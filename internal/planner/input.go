package planner

import (
	"errors"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Errors the planner wraps, for callers that classify failures.
var (
	// ErrMissingInput: a required capability or artifact is neither
	// produced in the plan, bound, in the state, nor producible from the
	// job library.
	ErrMissingInput = errors.New("missing input")
	// ErrCycle: the plan's edges form a cycle.
	ErrCycle = errors.New("cycle")
	// ErrEdit: a customization or plan patch cannot be applied.
	ErrEdit = errors.New("invalid plan edit")
	// ErrUnapproved: a plan patch that requires approval has none.
	ErrUnapproved = errors.New("plan patch not approved")
	// ErrParams: intent or job parameters are invalid.
	ErrParams = errors.New("invalid parameters")
)

// PackSource finds the packs that sub-operations run (e.g. minio for a
// create decision on object_storage.s3). packs.Catalog satisfies it.
type PackSource interface {
	Get(id, constraint string) (*protocol.ScenarioPack, error)
}

// State is what a previous operation on the resource left behind.
type State struct {
	// Artifacts available to this operation, e.g. the cluster's join token
	// with its expiry.
	Artifacts []protocol.Artifact
	// Capabilities the resource already provides cluster-wide, e.g.
	// kubernetes.api for add_node.
	Capabilities []protocol.Capability
	// NodeCapabilities lists capability keys already provided per host,
	// e.g. container.runtime.containerd on the existing workers.
	NodeCapabilities map[string][]string
}

// Input is everything one plan is built from.
type Input struct {
	// PlanID names the plan; rendered into {operation} of idempotency keys.
	PlanID string
	Intent protocol.Intent
	Pack   *protocol.ScenarioPack
	// Action selects the template; empty means Intent.Action.
	Action string
	// Decisions are the capability resolutions of the pack's and jobs'
	// requirements.
	Decisions     []capability.Decision
	State         State
	Customization *protocol.Customization
	Patches       []protocol.PlanPatch
	// Now is the clock reading that artifact expiry is judged against.
	Now time.Time
	// Packs provides the packs of sub-operations; required only when a
	// decision creates a provider.
	Packs PackSource
}
