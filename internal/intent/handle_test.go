package intent

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func clusterSpec(t *testing.T, workers ...string) ClusterHandleSpec {
	t.Helper()
	pack, err := builtin(t).Get("kubernetes", "")
	if err != nil {
		t.Fatal(err)
	}
	hosts := []protocol.Host{{Name: "master-1", Address: "10.0.0.1", Role: protocol.RoleMaster}}
	for i, w := range workers {
		hosts = append(hosts, protocol.Host{Name: w, Address: fmt.Sprintf("10.0.1.%d", i+1), Role: protocol.RoleWorker})
	}
	return ClusterHandleSpec{Name: "prod", Environment: "prod", Version: "1.34.2", APIEndpoint: "https://10.0.0.1:6443", Pack: pack, Hosts: hosts}
}

// A cluster's handle is computed from configuration alone: the same for
// the same configuration (plan and apply agree), another one when a
// worker goes, and it lists the cluster-scoped artifacts of the create
// template by id, without reference or value.
func TestNewClusterHandle(t *testing.T) {
	a, b := NewClusterHandle(clusterSpec(t, "w1", "w2")), NewClusterHandle(clusterSpec(t, "w1", "w2"))
	if a.Encode() != b.Encode() {
		t.Fatalf("the same configuration gives two handles:\n%s\n%s", a.Encode(), b.Encode())
	}
	if c := NewClusterHandle(clusterSpec(t, "w1")); c.Encode() == a.Encode() {
		t.Fatalf("removing a worker leaves the handle as it was: %s", c.Encode())
	}
	if !a.ByRecord() || a.Record != "prod" || a.PackVersion == "" {
		t.Errorf("handle: record %q, pack version %q; want the cluster's record and the pack version", a.Record, a.PackVersion)
	}
	var ids []string
	for _, x := range a.Artifacts {
		if x.Ref != "" || x.Value != "" {
			t.Errorf("artifact %s carries %q/%q; a handle computed at plan lists ids only", x.ID, x.Ref, x.Value)
		}
		ids = append(ids, x.ID)
	}
	for _, want := range []string{"kubeconfig.admin", "kubeadm.join_token"} {
		if !slices.Contains(ids, want) {
			t.Errorf("handle artifacts %v lack %s", ids, want)
		}
	}
	// Node-scoped artifacts, and those of other templates, are not the
	// cluster's: node_facts (per node), etcd.snapshot (snapshot action).
	for _, no := range []string{"node_facts", "etcd.snapshot", "containerd_config_snapshot"} {
		if slices.Contains(ids, no) {
			t.Errorf("handle artifacts %v hold %s", ids, no)
		}
	}
	if !slices.IsSorted(ids) {
		t.Errorf("handle artifacts are not sorted: %v", ids)
	}
	got, err := DecodeClusterHandle(a.Encode())
	if err != nil || got.Encode() != a.Encode() {
		t.Fatalf("decode: %v, %s", err, got.Encode())
	}
	// Encoded as an opaque string (one line in a plan), its JSON alone
	// (jsonencode by hand, an older version) read too.
	enc := a.Encode()
	if !strings.HasPrefix(enc, HandlePrefix+"{") {
		t.Errorf("encoded handle %.40s... does not start with %q", enc, HandlePrefix)
	}
	if plain, err := DecodeClusterHandle(strings.TrimPrefix(enc, HandlePrefix)); err != nil || plain.Encode() != enc {
		t.Errorf("the handle's JSON alone: %v", err)
	}
}

// Listed by id, an artifact is a secret without a reference until apply
// resolves it from the record: the record's artifacts replace the
// handle's ids, other artifacts stay.
func TestHandleResolveArtifacts(t *testing.T) {
	h := NewClusterHandle(clusterSpec(t, "w1"))
	arts := h.ProtocolArtifacts()
	for _, a := range arts {
		if a.Sensitivity != protocol.SensitivitySecret || a.Ref != "" {
			t.Fatalf("unresolved artifact %s: %s with ref %q; want a secret without a reference", a.ID, a.Sensitivity, a.Ref)
		}
	}
	own := protocol.Artifact{ID: "object_storage.s3.credentials", Sensitivity: protocol.SensitivitySecret, Ref: "m1:/x"}
	record := []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Ref: "master-1:/var/lib/cp/a", Fingerprint: "sha256:1"}}
	out := h.ResolveArtifacts(append(arts, own), record)
	if len(out) != 2 || out[0] != own || out[1].Ref != "master-1:/var/lib/cp/a" {
		t.Fatalf("resolved: %+v; want the resource's own artifact and the record's", out)
	}
	// A handle carrying its references is used as it is.
	old := Handle{Kind: ClusterKind, Name: "prod", Hosts: []HandleHost{{Name: "m1", Address: "10.0.0.1", Role: protocol.RoleMaster}},
		Artifacts: []HandleArtifact{{ID: "kubeconfig.admin", Ref: "m1:/etc/kubernetes/admin.conf"}}}
	if old.ByRecord() || old.ProtocolArtifacts()[0].Host != "m1" {
		t.Errorf("a handle with references: by record %v, artifacts %+v", old.ByRecord(), old.ProtocolArtifacts())
	}
}
