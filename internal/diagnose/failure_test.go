package diagnose

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestNewFailure(t *testing.T) {
	fx := addNodeFixture(t, testNow.Add(-time.Hour))
	res := engine.InstanceResult{ID: "join-worker[worker-6]", Job: "join-worker", Stage: "join-node", Host: "worker-6",
		Status: engine.StatusFailed, Class: engine.FailureExitCode, Reason: "job join-worker on worker-6: script exited with code 1",
		Attempts: []engine.Attempt{{Number: 1, ExitCode: 2}, {Number: 2, ExitCode: 1}},
		LogTail:  []string{"second", "first"},
		Evidence: []protocol.EvidenceResult{{ID: "node_registered", Host: "worker-6"}, {ID: "kubelet_ready", Host: "worker-6"}}}
	arts := append(slices.Clone(fx.input.State.Artifacts),
		protocol.Artifact{ID: "cluster_health_report", Sensitivity: protocol.SensitivityPublic, Value: "all nodes Ready"})
	f, err := NewFailure(InstanceFromResult(res), Context{Plan: fx.plan, Pack: fx.pack, Artifacts: arts, Observed: []string{"note"}, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if f.ExitCode != 1 || f.Class != "exit_code" || f.Template != "kubernetes.add_node@1.0.0" || f.Stage != "join-node" {
		t.Errorf("got exit %d class %q template %q stage %q want: 1, exit_code, kubernetes.add_node@1.0.0, join-node", f.ExitCode, f.Class, f.Template, f.Stage)
	}
	wantJobs := []string{"validate-node", "preflight-node", "configure-node-proxy", "build-node-inventory", "check-host-identities", "generate-wireguard-key", "update-wireguard-mesh",
		"verify-wireguard-mesh", "prepare-kubernetes-prerequisites", "generate-join-token", "join-worker", "label-node", "verify-node-ready"}
	if !slices.Equal(f.PlanJobs, wantJobs) {
		t.Errorf("plan jobs\ngot:  %q\nwant: %q", f.PlanJobs, wantJobs)
	}
	if f.Parameters["cluster_name"] != "prod-k8s" || f.Parameters["kubernetes_version"] == "" {
		t.Errorf("parameters got: %v want the intent's and the instance's", f.Parameters)
	}
	if !slices.Equal(f.LogTail, []string{"second", "first"}) || f.Evidence[0].ID != "kubelet_ready" {
		t.Errorf("got log %q evidence %+v want: the log in order, evidence sorted", f.LogTail, f.Evidence)
	}
	if len(f.JobLibrary) != len(fx.pack.Jobs) || !slices.IsSortedFunc(f.JobLibrary, func(a, b LibraryJob) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("job library is not the pack's, sorted")
	}
	expired := map[string]bool{}
	for _, a := range f.Artifacts {
		expired[a.ID] = a.Expired
	}
	if !expired["kubeadm.join_token"] || expired["kubeconfig.admin"] {
		t.Errorf("expiry got: %v want: only the join token expired", expired)
	}
	b, _ := json.Marshal(f)
	if strings.Contains(string(b), "all nodes Ready") || strings.Contains(string(b), "/var/lib/cp/") {
		t.Errorf("artifact values or refs leaked into the failure: %s", b)
	}
	if _, err := NewFailure(Instance{ID: "x"}, Context{}); err == nil {
		t.Errorf("got: nil want: an error for an instance without a job")
	}
}
