package planner

import (
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// builtinPack loads a builtin pack; a pack not shipped yet skips the test
// with the reason.
func builtinPack(t testing.TB, id string) *protocol.ScenarioPack {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatalf("load builtin packs: %v", err)
	}
	p, err := cat.Get(id, "")
	if err != nil {
		t.Skipf("builtin pack %s is not available yet: %v", id, err)
	}
	return p
}

// builtinAddNodeState is what a finished create leaves for add_node.
func builtinAddNodeState(tokenExpiry time.Time) State {
	sec := func(id, host string, exp time.Time) protocol.Artifact {
		return protocol.Artifact{ID: id, Sensitivity: protocol.SensitivitySecret, Host: host, Ref: host + ":/var/lib/cp/" + id, ExpiresAt: exp}
	}
	return State{
		Capabilities: []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.network.ready"}, {Key: "wireguard.mesh"}},
		Artifacts: []protocol.Artifact{
			sec("kubeadm.join_token", "master-1", tokenExpiry),
			sec("kubeconfig.admin", "master-1", time.Time{}),
			sec("kubeadm.ca_cert_hash", "master-1", time.Time{}),
		},
	}
}

func TestGoldenBuiltin(t *testing.T) {
	cases := []struct {
		name  string
		input func(k *protocol.ScenarioPack) Input
	}{
		{"builtin_cluster_create", func(k *protocol.ScenarioPack) Input { return createInput(k) }},
		{"builtin_add_node_valid_token", func(k *protocol.ScenarioPack) Input {
			in := addNodeInput(k, testNow.Add(6*time.Hour))
			in.State = builtinAddNodeState(testNow.Add(6 * time.Hour))
			return in
		}},
		{"builtin_add_node_expired_token", func(k *protocol.ScenarioPack) Input {
			in := addNodeInput(k, testNow.Add(-time.Hour))
			in.State = builtinAddNodeState(testNow.Add(-time.Hour))
			return in
		}},
		{"builtin_cluster_create_forked", func(k *protocol.ScenarioPack) Input {
			in := createInput(k)
			c := forkedCustomization()
			c.Changes[2].Removed = "install-storage"
			in.Customization = c
			return in
		}},
		{"builtin_cluster_create_patched", func(k *protocol.ScenarioPack) Input {
			in := createInput(k)
			in.Patches = []protocol.PlanPatch{registryPatch("ana (sre)")}
			return in
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := builtinPack(t, "kubernetes")
			in := tc.input(k)
			in.Intent.Parameters = map[string]string{"cluster_name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"}
			if in.Customization != nil || in.Patches != nil {
				in.Intent.Parameters["registry_mirrors"] = "https://mirror.gcr.io"
			}
			p, err := Build(in)
			if err != nil {
				t.Fatalf("got: %v want: a plan", err)
			}
			checkGolden(t, tc.name, renderAll(t, p))
		})
	}
}
