package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Marker is what the engine writes on a host when an instance succeeded,
// at StateDir/markers/<sha256 of key>.json. It lets a fresh engine, with
// every local state lost, know the work is done and recover its artifacts.
type Marker struct {
	Key         string                    `json:"key"`
	Instance    string                    `json:"instance"`
	Job         string                    `json:"job"`
	Host        string                    `json:"host"`
	Operation   string                    `json:"operation"`
	Status      Status                    `json:"status"` // done or fixed
	Actor       string                    `json:"actor,omitempty"`
	CompletedAt time.Time                 `json:"completed_at"`
	Evidence    []protocol.EvidenceResult `json:"evidence"`
	Artifacts   []MarkerArtifact          `json:"artifacts,omitempty"`
	// Unconfirmed marks the pending marker written with the run, before
	// the engine judged the evidence; the final marker replaces it. A
	// later run checks the evidence of either before trusting it.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

// MarkerArtifact says where a produced artifact is kept on the host.
type MarkerArtifact struct {
	ID          string               `json:"id"`
	Path        string               `json:"path"`
	Sensitivity protocol.Sensitivity `json:"sensitivity"`
	Fingerprint string               `json:"fingerprint"`
}

func decodeMarker(b []byte) (*Marker, error) {
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("marker is not valid JSON: %w", err)
	}
	if m.Key == "" {
		return nil, fmt.Errorf("marker has no key")
	}
	return &m, nil
}

// instanceKey is the idempotency key of an instance: the rendered key, or
// the instance id when the job declares none.
func instanceKey(in *protocol.JobInstance) string {
	if in.IdempotencyKey != "" {
		return in.IdempotencyKey
	}
	return "instance:" + in.ID
}
