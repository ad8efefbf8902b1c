package planner

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The compact plan lists under a binding each candidate, sorted, with
// its verdict and the rule that decided; a binding without candidates
// gets no such line.
func TestCompactBindingCandidates(t *testing.T) {
	p := &protocol.Plan{Bindings: []protocol.Binding{
		{Requirement: protocol.CapabilityRequirement{Key: "object_storage.s3"}, Decision: "bind", Provider: "aws-s3-eu", Candidates: []protocol.BindingCandidate{
			{Name: "minio-shared", Provider: "shared_minio", DecidedBy: `rule 1 "critical-not-shared"`, Reason: `rejected: rule 1 "critical-not-shared" denies provider shared_minio`},
			{Name: "aws-s3-eu", Provider: "aws_s3", Accepted: true, DecidedBy: "capability_policy object_storage.s3 prod", Reason: "accepted: provider aws_s3 allowed in prod"},
		}},
		{Requirement: protocol.CapabilityRequirement{Key: "secret.store"}, Decision: "bind", Provider: "k8s"},
	}}
	var sb strings.Builder
	writeCompactChanges(&sb, p)
	want := `Bindings:
  - object_storage.s3: bind aws-s3-eu
      aws-s3-eu (aws_s3): accepted, decided by capability_policy object_storage.s3 prod: accepted: provider aws_s3 allowed in prod
      minio-shared (shared_minio): rejected, decided by rule 1 "critical-not-shared": rejected: rule 1 "critical-not-shared" denies provider shared_minio
  - secret.store: bind k8s
`
	if got := sb.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
