package provider

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The record of a failed create is masked with the secret values the
// create was given (write-only inputs, kept values); a value that is not
// secret stays.
func TestRecordRedactor_masksGivenSecrets(t *testing.T) {
	const given, kept, plain = "s3cr3t-given-0123456789abcdef", "s3cr3t-kept-0123456789abcdef", "plain-value-0123456789abcdef"
	ip := intentPlan{inputs: runInputs{
		Secrets: []engine.InputArtifact{{Artifact: protocol.Artifact{ID: "s3.credentials", Sensitivity: protocol.SensitivitySecret}, SecretValue: given}},
		Values: map[string]operation.KeptValue{
			"kubeadm.join_token": {ID: "kubeadm.join_token", Sensitivity: string(protocol.SensitivitySecret), Value: kept},
			"kubeadm.ca_hash":    {ID: "kubeadm.ca_hash", Sensitivity: "internal", Value: plain},
		},
	}}
	k := operation.Kept{Operation: protocol.Operation{ID: "x.create.00000000", Status: protocol.StatusFailed,
		Timeline: []protocol.TimelineEntry{{Event: "status", Status: protocol.StatusFailed, Detail: "saw " + given + " and " + kept + " and " + plain}}}}
	b, err := operation.EncodeFailed(k, recordRedactor(ip, nil).String)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, given) || strings.Contains(s, kept) || !strings.Contains(s, plain) {
		t.Fatalf("record: %s", s)
	}
}
