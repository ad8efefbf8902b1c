package engine

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// checkArtifactType is the problem of a produced artifact whose value is
// not of its declared type, or "" when it is (or the artifact is
// untyped). The problem names the job, the host, the artifact and the
// type, never the value: a secret's value must not reach the operation.
func checkArtifactType(st *instState, pa producedArtifact) string {
	if err := protocol.CheckArtifactValue(pa.spec.Type, pa.content); err != nil {
		return fmt.Sprintf("artifact %s of job %s on host %s is %v", pa.spec.ID, st.in.JobID, st.host, err)
	}
	return ""
}
