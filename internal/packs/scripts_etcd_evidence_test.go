package packs

import (
	"os"
	"os/user"
	"strings"
	"testing"
)

// etcd-snapshot's evidence holds for the snapshot the script took and
// fails once the file changes, loses its mode, or latest is gone.
func TestEtcdSnapshotEvidence(t *testing.T) {
	if u, err := user.Current(); err != nil || u.Username != "root" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the evidence wants the snapshot owned by root; CI runs make test as root")
		}
		t.Skip("the evidence wants the snapshot owned by root; run as root")
	}
	h := etcdHost(t)
	env := packEnv(t, "kubernetes", nil)
	env["CP_HOST_ROLE"] = "master"
	succeeded(t, h.run("kubernetes/scripts/etcd-snapshot.sh", env, snapshotPaths...))
	dir := "/var/lib/cp/kubernetes/etcd-snapshots"
	check := func(id string, want bool, why string) {
		t.Helper()
		if held, got := h.evidence("kubernetes/jobs/etcd-snapshot.yaml", id, env, dir); held != want {
			t.Errorf("%s %s: held %v (%q), want %v", id, why, held, got, want)
		}
	}
	check("snapshot_matches_its_sha256", true, "after the snapshot")
	check("snapshot_status_readable", true, "after the snapshot")
	name := h.read(dir + "/latest")[66:]
	name = name[:len(name)-1]
	if err := os.Chmod(h.path(dir+"/"+name), 0o644); err != nil {
		t.Fatal(err)
	}
	check("snapshot_matches_its_sha256", false, "with the snapshot world-readable")
	if err := os.Chmod(h.path(dir+"/"+name), 0o600); err != nil {
		t.Fatal(err)
	}
	h.write(dir+"/"+name, "TRUNCATED")
	if err := os.Chmod(h.path(dir+"/"+name), 0o600); err != nil {
		t.Fatal(err)
	}
	check("snapshot_matches_its_sha256", false, "with the snapshot changed")
	h.stub("etcdctl", `echo '{"hash":0,"revision":0,"totalKey":0,"totalSize":0}'`)
	check("snapshot_status_readable", false, "with an empty snapshot")
	if err := os.Remove(h.path(dir + "/latest")); err != nil {
		t.Fatal(err)
	}
	check("snapshot_matches_its_sha256", false, "without latest")
}

// remove-etcd-member's evidence asks the remaining masters' etcd: it holds
// when the member list lacks the host, fails while it is listed or when
// etcd does not answer, and holds for a worker without asking.
func TestRemoveEtcdMemberEvidence(t *testing.T) {
	env := map[string]string{"CP_HOST_ROLE": "master", "CP_HOSTS": "master-1 10.0.0.1 master,node-1 10.0.0.11 master"}
	for _, c := range []struct {
		name, etcdctl string
		want          bool
	}{
		{"gone", `echo '8e9e05c52164694d, started, master-1, https://10.0.0.1:2380, https://10.0.0.1:2379, false'`, true},
		{"listed", `echo '8e9e05c52164694d, started, master-1, a, b, false'; echo '91bc3c398fb3c146, started, node-1, c, d, false'`, false},
		{"etcd down", `echo 'context deadline exceeded' >&2; exit 1`, false},
	} {
		h := newScriptHost(t)
		h.stub("etcdctl", c.etcdctl)
		if held, got := h.evidence("kubernetes/jobs/remove-etcd-member.yaml", "member_not_listed", env); held != c.want {
			t.Errorf("%s: held %v (%q), want %v", c.name, held, got, c.want)
		}
		if c.name == "gone" {
			if calls := h.log(h.calls); calls == "" || !strings.Contains(calls, "--endpoints=https://10.0.0.1:2379 ") {
				t.Errorf("evidence did not ask the remaining master: %s", calls)
			}
		}
	}
	h := newScriptHost(t)
	h.stub("etcdctl", `exit 1`)
	if held, _ := h.evidence("kubernetes/jobs/remove-etcd-member.yaml", "member_not_listed", map[string]string{"CP_HOST_ROLE": "worker"}); !held {
		t.Errorf("a worker's evidence does not hold")
	}
}
