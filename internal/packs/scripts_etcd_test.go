package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// etcdHost is a kubeadm master with the etcd client certificates and an
// etcdctl whose snapshot save writes SNAPSHOT-DATA to its file and whose
// status reports it; sleep returns at once.
func etcdHost(t *testing.T) *scriptHost {
	h := newScriptHost(t)
	for _, f := range []string{"ca.crt", "healthcheck-client.crt", "healthcheck-client.key"} {
		h.write("/etc/kubernetes/pki/etcd/"+f, "PEM\n")
	}
	h.stub("etcdctl", `case " $* " in
  *" snapshot save "*) for a; do f=$a; done; printf 'SNAPSHOT-DATA' >"$f" ;;
  *" snapshot status "*) echo '{"hash":3641411580,"revision":1042,"totalKey":977,"totalSize":2580480}' ;;
  *" snapshot restore "*) while [ $# -gt 0 ]; do [ "$1" = --data-dir ] && d=$2; shift; done; mkdir -p "$d/member/snap"; echo restored >"$d/member/snap/db" ;;
  *" endpoint health "*) echo 'https://127.0.0.1:2379 is healthy: successfully committed proposal: took = 2ms' ;;
esac`)
	h.stub("sleep", ``)
	return h
}

var snapshotPaths = []string{"/etc/kubernetes/pki/etcd", "/var/lib/cp/kubernetes/etcd-snapshots"}

// etcd-snapshot saves a root-only snapshot, records its sha256 in latest
// and in the etcd.snapshot artifact with what snapshot status reports,
// and keeps the newest etcd_snapshot_keep snapshots.
func TestEtcdSnapshotScript(t *testing.T) {
	h := etcdHost(t)
	dir := "/var/lib/cp/kubernetes/etcd-snapshots"
	for _, old := range []string{"etcd-20200101T000000Z.db", "etcd-20200102T000000Z.db", "etcd-20200103T000000Z.db"} {
		h.write(dir+"/"+old, "old")
	}
	env := packEnv(t, "kubernetes", map[string]string{"etcd_snapshot_keep": "2"})
	env["CP_HOST_ROLE"] = "master"
	res := h.run("kubernetes/scripts/etcd-snapshot.sh", env, snapshotPaths...)
	succeeded(t, res)
	sum := sha256.Sum256([]byte("SNAPSHOT-DATA"))
	digest := hex.EncodeToString(sum[:])
	latest := h.read(dir + "/latest")
	fields := strings.Fields(latest)
	if len(fields) != 2 || fields[0] != digest || !strings.HasPrefix(fields[1], "etcd-") {
		t.Fatalf("latest = %q, want %s  etcd-<time>.db", latest, digest)
	}
	name := fields[1]
	st, err := os.Stat(h.path(dir + "/" + name))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot %s: %v mode %v, want 0600", name, err, st)
	}
	if d, _ := os.Stat(h.path(dir)); d.Mode().Perm() != 0o700 {
		t.Errorf("%s mode %v, want 0700", dir, d.Mode().Perm())
	}
	art := h.read("/.out/etcd.snapshot")
	for _, want := range []string{"host=node-1\n", "file=" + h.path(dir) + "/" + name + "\n", "sha256=" + digest + "\n",
		`status={"hash":3641411580,"revision":1042,"totalKey":977,"totalSize":2580480}` + "\n"} {
		if !strings.Contains(art, want) {
			t.Errorf("etcd.snapshot artifact lacks %q:\n%s", want, art)
		}
	}
	// Kept: the new one and the newest old one.
	for old, kept := range map[string]bool{"etcd-20200101T000000Z.db": false, "etcd-20200102T000000Z.db": false, "etcd-20200103T000000Z.db": true} {
		if h.exists(dir+"/"+old) != kept {
			t.Errorf("%s kept = %v, want %v (etcd_snapshot_keep 2)", old, !kept, kept)
		}
	}
	calls := h.log(h.calls)
	if !strings.Contains(calls, "etcdctl --endpoints=https://127.0.0.1:2379 --cacert="+h.path("/etc/kubernetes/pki/etcd/ca.crt")+
		" --cert="+h.path("/etc/kubernetes/pki/etcd/healthcheck-client.crt")+" --key="+h.path("/etc/kubernetes/pki/etcd/healthcheck-client.key")+
		" snapshot save ") {
		t.Errorf("snapshot save not called with the kubeadm etcd client certificates:\n%s", calls)
	}
	// etcdutl reads the status when present.
	h.stub("etcdutl", `echo '{"hash":1,"revision":2,"totalKey":3,"totalSize":4,"version":"3.5.0"}'`)
	succeeded(t, h.run("kubernetes/scripts/etcd-snapshot.sh", env, snapshotPaths...))
	if !strings.Contains(h.log(h.calls), "etcdutl snapshot status ") || !strings.Contains(h.read("/.out/etcd.snapshot"), `"version":"3.5.0"`) {
		t.Errorf("etcdutl not used for the status:\n%s", h.log(h.calls))
	}
}

func TestEtcdSnapshotScriptRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		keep, role, status string
		noCerts            bool
		want               string
	}{
		"keep zero":           {keep: "0", role: "master", want: `etcd_snapshot_keep "0" is not a whole number`},
		"keep with a command": {keep: "2$(touch CANARY)", role: "master", want: `etcd_snapshot_keep "2$(touch`},
		"keep with a newline": {keep: "2\n3", role: "master", want: "etcd_snapshot_keep"},
		"on a worker":         {keep: "5", role: "worker", want: `role of host node-1 "worker" is not master`},
		"no client cert":      {keep: "5", role: "master", noCerts: true, want: "healthcheck-client.crt is missing"},
		"status not json":     {keep: "5", role: "master", status: `echo 'hash, revision'`, want: "snapshot status of"},
	} {
		t.Run(name, func(t *testing.T) {
			h := etcdHost(t)
			if c.noCerts {
				if err := os.Remove(h.path("/etc/kubernetes/pki/etcd/healthcheck-client.crt")); err != nil {
					t.Fatal(err)
				}
			}
			if c.status != "" {
				h.stub("etcdutl", c.status)
			}
			env := packEnv(t, "kubernetes", map[string]string{"etcd_snapshot_keep": strings.ReplaceAll(c.keep, "CANARY", h.canary)})
			env["CP_HOST_ROLE"] = c.role
			res := h.run("kubernetes/scripts/etcd-snapshot.sh", env, snapshotPaths...)
			refused(t, h, res, c.want)
			if h.exists("/var/lib/cp/kubernetes/etcd-snapshots/latest") {
				t.Errorf("latest written despite the refusal")
			}
		})
	}
}

// restoreHost is a one-master cluster with a snapshot taken by
// etcd-snapshot and the static pod manifests of a stacked etcd.
func restoreHost(t *testing.T) (*scriptHost, map[string]string) {
	h := etcdHost(t)
	h.stub("kubectl", `case " $* " in *" get --raw=/readyz "*) echo ok ;; esac`)
	dir := "/var/lib/cp/kubernetes/etcd-snapshots"
	name := "etcd-20260101T120000Z.db"
	h.write(dir+"/"+name, "SNAPSHOT-DATA")
	sum := sha256.Sum256([]byte("SNAPSHOT-DATA"))
	h.write(dir+"/latest", hex.EncodeToString(sum[:])+"  "+name+"\n")
	h.write("/etc/kubernetes/manifests/etcd.yaml", "    - hostPath:\n        path: "+h.path("/var/lib/etcd")+"\n")
	h.write("/etc/kubernetes/manifests/kube-apiserver.yaml", "kind: Pod\n")
	h.write("/var/lib/etcd/member/snap/db", "current")
	env := packEnv(t, "kubernetes", nil)
	env["CP_HOST_ADDRESS"] = "10.0.0.11"
	env["CP_HOSTS"] = "node-1 10.0.0.11 master,worker-1 10.0.1.1 worker"
	return h, env
}

var restorePaths = []string{"/etc/kubernetes/pki/etcd", "/var/lib/cp/kubernetes", "/etc/kubernetes/manifests", "/var/lib/etcd", "/etc/kubernetes/admin.conf"}

// restore-etcd-snapshot restores the latest snapshot into a new data
// directory, swaps it in for /var/lib/etcd keeping the old one, puts the
// manifests back and waits for etcd and the API.
func TestRestoreEtcdSnapshotScript(t *testing.T) {
	h, env := restoreHost(t)
	succeeded(t, h.run("kubernetes/scripts/restore-etcd-snapshot.sh", env, restorePaths...))
	if got := h.read("/var/lib/etcd/member/snap/db"); got != "restored\n" {
		t.Errorf("/var/lib/etcd holds %q, want the restored data", got)
	}
	kept, _ := filepath.Glob(h.path("/var/lib/etcd.before-restore-*/member/snap/db"))
	if len(kept) != 1 {
		t.Fatalf("previous data directory kept: %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); string(b) != "current" {
		t.Errorf("kept data dir holds %q", b)
	}
	for _, m := range []string{"etcd.yaml", "kube-apiserver.yaml"} {
		if !h.exists("/etc/kubernetes/manifests/" + m) {
			t.Errorf("%s not put back", m)
		}
	}
	if got := h.read("/var/lib/cp/kubernetes/etcd-restored-from"); got != "etcd-20260101T120000Z.db\n" {
		t.Errorf("etcd-restored-from = %q", got)
	}
	calls := h.log(h.calls)
	for _, want := range []string{
		"etcdctl snapshot restore " + h.path("/var/lib/cp/kubernetes/etcd-snapshots/etcd-20260101T120000Z.db") + " --data-dir " + h.path("/var/lib/etcd") + ".restore-",
		" --name node-1 --initial-cluster node-1=https://10.0.0.11:2380 --initial-advertise-peer-urls https://10.0.0.11:2380\n",
		"sleep 25\n", " endpoint health\n", "kubectl --kubeconfig " + h.path("/etc/kubernetes/admin.conf") + " get --raw=/readyz\n",
	} {
		if !strings.Contains(calls, want) {
			t.Errorf("calls lack %q:\n%s", want, calls)
		}
	}
	// The restore ran with the manifests out of the directory.
	if strings.Index(calls, "sleep 25") > strings.Index(calls, "snapshot restore") {
		t.Errorf("restored before the static pods stopped:\n%s", calls)
	}
}

func TestRestoreEtcdSnapshotScriptRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		snapshot, hosts string
		prepare         func(h *scriptHost)
		want            string
	}{
		"path in the name":    {snapshot: "../../etc/shadow", want: `etcd_snapshot "../../etc/shadow" is not latest or a snapshot file name`},
		"command in the name": {snapshot: "etcd-$(touch CANARY).db", want: `etcd_snapshot "etcd-$(touch`},
		"two masters":         {hosts: "node-1 10.0.0.11 master,master-2 10.0.0.12 master", want: "the cluster has 2 masters"},
		"absent snapshot":     {snapshot: "etcd-20250101T000000Z.db", want: "etcd-20250101T000000Z.db is missing"},
		"changed snapshot": {prepare: func(h *scriptHost) {
			h.write("/var/lib/cp/kubernetes/etcd-snapshots/etcd-20260101T120000Z.db", "TAMPERED")
		}, want: "does not match the sha256 recorded"},
		"interrupted restore": {prepare: func(h *scriptHost) {
			h.write("/var/lib/cp/kubernetes/restore-manifests/etcd.yaml", "kind: Pod\n")
		}, want: "held from an interrupted restore"},
		"other data dir": {prepare: func(h *scriptHost) {
			h.write("/etc/kubernetes/manifests/etcd.yaml", "    - hostPath:\n        path: /srv/etcd\n")
		}, want: "does not mount"},
	} {
		t.Run(name, func(t *testing.T) {
			h, env := restoreHost(t)
			if c.snapshot != "" {
				env["CP_PARAM_ETCD_SNAPSHOT"] = strings.ReplaceAll(c.snapshot, "CANARY", h.canary)
			}
			if c.hosts != "" {
				env["CP_HOSTS"] = c.hosts
			}
			if c.prepare != nil {
				c.prepare(h)
			}
			res := h.run("kubernetes/scripts/restore-etcd-snapshot.sh", env, restorePaths...)
			refused(t, h, res, c.want)
			if strings.Contains(h.log(h.calls), "snapshot restore") {
				t.Errorf("restored despite the refusal")
			}
			if h.read("/var/lib/etcd/member/snap/db") != "current" || !h.exists("/etc/kubernetes/manifests/kube-apiserver.yaml") {
				t.Errorf("the data directory or the manifests changed despite the refusal")
			}
		})
	}
}

// remove-etcd-member removes the leaving master's member through the
// etcd of the masters that stay; a worker, or a master that is no member,
// has nothing to remove.
func TestRemoveEtcdMemberScript(t *testing.T) {
	list := `echo '8e9e05c52164694d, started, master-1, https://10.0.0.1:2380, https://10.0.0.1:2379, false'
echo '91bc3c398fb3c146, started, node-1, https://10.0.0.11:2380, https://10.0.0.11:2379, false'`
	env := map[string]string{"CP_HOST_ROLE": "master", "CP_HOSTS": "master-1 10.0.0.1 master,node-1 10.0.0.11 master,master-3 10.0.0.3 master,worker-1 10.0.1.1 worker"}
	h := etcdHost(t)
	h.stub("etcdctl", `case " $* " in *" member list "*) `+list+` ;; esac`)
	succeeded(t, h.run("kubernetes/scripts/remove-etcd-member.sh", env, "/etc/kubernetes/pki/etcd"))
	calls := h.log(h.calls)
	prefix := "etcdctl --endpoints=https://10.0.0.1:2379,https://10.0.0.3:2379 --cacert=" + h.path("/etc/kubernetes/pki/etcd/ca.crt")
	if !strings.Contains(calls, prefix) || strings.Contains(calls, "10.0.0.11:2379 --") {
		t.Errorf("etcdctl not called through the remaining masters only:\n%s", calls)
	}
	if !strings.Contains(calls, " member remove 91bc3c398fb3c146\n") {
		t.Errorf("member 91bc3c398fb3c146 not removed:\n%s", calls)
	}
	// Not a member: nothing removed.
	h = etcdHost(t)
	h.stub("etcdctl", `case " $* " in *" member list "*) echo '8e9e05c52164694d, started, master-1, https://10.0.0.1:2380, https://10.0.0.1:2379, false' ;; esac`)
	res := h.run("kubernetes/scripts/remove-etcd-member.sh", env, "/etc/kubernetes/pki/etcd")
	succeeded(t, res)
	if strings.Contains(h.log(h.calls), "member remove") || !strings.Contains(res.stdout, "not an etcd member") {
		t.Errorf("a non-member was removed:\n%s%s", h.log(h.calls), res.stdout)
	}
	// A worker: etcd is not asked.
	h = etcdHost(t)
	res = h.run("kubernetes/scripts/remove-etcd-member.sh", map[string]string{"CP_HOST_ROLE": "worker", "CP_HOSTS": env["CP_HOSTS"]})
	succeeded(t, res)
	if strings.Contains(h.log(h.calls), "etcdctl") {
		t.Errorf("etcdctl ran for a worker:\n%s", h.log(h.calls))
	}
}

func TestRemoveEtcdMemberScriptRefusals(t *testing.T) {
	for name, c := range map[string]struct{ hosts, list, want string }{
		"the only master":     {hosts: "node-1 10.0.0.11 master,worker-1 10.0.1.1 worker", want: "node-1 is the only master"},
		"address with a flag": {hosts: "master-1 --insecure-skip-tls-verify master,node-1 10.0.0.11 master", want: `address of master master-1 "--insecure-skip-tls-verify" is not an IP address`},
		"member id not hex":   {hosts: "master-1 10.0.0.1 master,node-1 10.0.0.11 master", list: `echo '$(touch CANARY), started, node-1, x, y, false'`, want: "etcd member id of node-1"},
	} {
		t.Run(name, func(t *testing.T) {
			h := etcdHost(t)
			if c.list != "" {
				h.stub("etcdctl", `case " $* " in *" member list "*) `+strings.ReplaceAll(c.list, "CANARY", h.canary)+` ;; esac`)
			}
			res := h.run("kubernetes/scripts/remove-etcd-member.sh", map[string]string{"CP_HOST_ROLE": "master", "CP_HOSTS": c.hosts}, "/etc/kubernetes/pki/etcd")
			refused(t, h, res, c.want)
			if strings.Contains(h.log(h.calls), "member remove") {
				t.Errorf("a member was removed despite the refusal")
			}
		})
	}
}
