package engine

import (
	"context"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RunInput is what one run of a plan receives besides the plan.
type RunInput struct {
	// OperationID names the operation (and its run directories on hosts).
	// Defaults to Previous.ID, else "op-" + plan id.
	OperationID string
	// Previous is the operation record of an earlier run of the same plan
	// (Interrupted, Failed, WaitingForApproval...). The run continues its
	// lifecycle and timeline; when nil, a new operation is recorded.
	Previous *protocol.Operation
	// Decisions answer gates.
	Decisions []protocol.Decision
	// StopAfterStage names a stage of the plan after which the run stops
	// and the operation ends Paused (pause.go); "" runs every stage.
	StopAfterStage string
	// Interventions record manual fixes to verify before scheduling.
	Interventions []protocol.Intervention
	// Artifacts are given from outside, e.g. the cluster's join token kept
	// by the previous operation. A secret may come with its Value, or with
	// only Ref (host:path), to be fetched when a job requires it.
	Artifacts []InputArtifact
	// Fetch reads a secret given by reference; when nil, the engine reads
	// Ref ("host:path") through its Dialer.
	Fetch func(ctx context.Context, a protocol.Artifact) ([]byte, error)
	// Repair names instances to run again even though their marker
	// stands, each with why (a refresh found their evidence failing, or
	// they follow one that did): a repair plan runs these and skips the
	// others whose evidence holds.
	Repair map[string]string
}

// InputArtifact is an artifact given to the run, with its value when the
// caller has it. Secret values are registered with the redactor.
type InputArtifact struct {
	protocol.Artifact
	SecretValue string `json:"-"`
}
