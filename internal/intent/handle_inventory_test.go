package intent

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const handleInvBody = "masters:\n  - { name: m1, address: 10.0.0.1, port: 2222 }\n  - { name: m2, address: 10.0.0.2 }\n" +
	"workers:\n  - { name: w1, address: 10.0.1.1 }\n"

var handleInvHosts = []protocol.Host{
	{Name: "m1", Address: "10.0.0.1", Port: 2222, Role: protocol.RoleMaster},
	{Name: "m2", Address: "10.0.0.2", Role: protocol.RoleMaster},
	{Name: "w1", Address: "10.0.1.1", Role: protocol.RoleWorker},
}

// refHandle writes the inventory and encodes the handle of a cluster on
// it by reference.
func refHandle(t *testing.T, body string) (file, sha, encoded string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "hosts.yaml")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := ReadInventory(file)
	if err != nil {
		t.Fatal(err)
	}
	h := NewClusterHandle(ClusterHandleSpec{Name: "c", Hosts: handleInvHosts, Inventory: InventoryRef(file, inv.SHA256, handleInvHosts)})
	return file, inv.SHA256, h.Encode()
}

// The handle keeps the reference, not the hosts, and decodes to the hosts
// an inline handle yields.
func TestClusterHandleInventoryRef(t *testing.T) {
	file, sha, enc := refHandle(t, handleInvBody)
	if strings.Contains(enc, `"hosts"`) || strings.Contains(enc, "10.0.1.1") {
		t.Errorf("the handle lists the hosts: %s", enc)
	}
	want := `"inventory":{"file":"` + file + `","sha256":"` + sha + `","masters":2,"workers":1}`
	if !strings.Contains(enc, want) {
		t.Errorf("handle %s\nlacks %s", enc, want)
	}
	got, err := DecodeClusterHandle(enc)
	if err != nil {
		t.Fatal(err)
	}
	inline, err := DecodeClusterHandle(NewClusterHandle(ClusterHandleSpec{Name: "c", Hosts: handleInvHosts}).Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.ProtocolHosts(), inline.ProtocolHosts()) || !reflect.DeepEqual(got.ProtocolHosts(), handleInvHosts) {
		t.Errorf("hosts by reference %v, inline %v, want %v", got.ProtocolHosts(), inline.ProtocolHosts(), handleInvHosts)
	}
}

// An inline cluster's handle is as before: its hosts, no reference.
func TestClusterHandleInlineUnchanged(t *testing.T) {
	enc := NewClusterHandle(ClusterHandleSpec{Name: "c", Hosts: handleInvHosts[:1]}).Encode()
	want := HandlePrefix + `{"kind":"kubernetes.cluster","name":"c","hosts":[{"name":"m1","address":"10.0.0.1","port":2222,"role":"master"}],"artifacts":[],"record":"c"}`
	if enc != want {
		t.Errorf("inline handle\n%s\nwant\n%s", enc, want)
	}
}

// Another digest and a missing file are errors naming the file and the
// expected digest, unless hosts are kept for that digest.
func TestClusterHandleInventoryUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(file string)
		want  string
	}{
		{"other digest", func(f string) {
			if err := os.WriteFile(f, []byte(handleInvBody+"  - { name: w2, address: 10.0.1.2 }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "has SHA-256 "},
		{"missing file", func(f string) {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}, "does not exist"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			// Another body each time, so no other case's kept hosts
			// answer.
			body := handleInvBody + "# " + tc.name + "\n"
			file, sha, enc := refHandle(t, body)
			tc.spoil(file)
			_, err := DecodeClusterHandle(enc)
			if err == nil || !errors.Is(err, ErrInventoryUnavailable) {
				t.Fatalf("decode with the inventory %s: %v, want ErrInventoryUnavailable", tc.name, err)
			}
			for _, s := range []string{tc.want, file, "SHA-256", sha, "cp_kubernetes_cluster"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			kept := []HandleHost{{Name: "m1", Address: "10.0.0.1", Port: 2222, Role: protocol.RoleMaster}}
			KeepInventoryHosts(sha, kept)
			got, err := DecodeClusterHandle(enc)
			if err != nil {
				t.Fatalf("decode with hosts kept: %v", err)
			}
			if !reflect.DeepEqual(got.Hosts, kept) {
				t.Errorf("hosts %v, want the kept %v", got.Hosts, kept)
			}
		})
	}
}
