package hostsim

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// etcdFlags are the kubeadm etcd client flags the pack scripts give.
func etcdFlags(endpoints string) []string {
	return []string{"etcdctl", "--endpoints=" + endpoints, "--cacert=/etc/kubernetes/pki/etcd/ca.crt",
		"--cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt", "--key=/etc/kubernetes/pki/etcd/healthcheck-client.key"}
}

func etcdcmd(endpoints string, args ...string) []string {
	return append(etcdFlags(endpoints), args...)
}

// joinMaster2 joins master-2 as a second control-plane node.
func joinMaster2(t *testing.T, e *env, join []string) {
	t.Helper()
	e.prepareNode("master-2")
	r := e.must("master-1", "kubeadm", "init", "phase", "upload-certs", "--upload-certs")
	key := strings.TrimSpace(r.out[strings.LastIndex(strings.TrimSpace(r.out), "\n")+1:])
	e.write("master-2", "/root/join.yaml", "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: "+join[2]+
		"\n    token: "+join[4]+"\n    caCertHashes: ["+join[6]+"]\nnodeRegistration:\n  name: master-2\ncontrolPlane:\n  certificateKey: \""+key+"\"\n")
	contains(t, e.must("master-2", "kubeadm", "join", "--config", "/root/join.yaml"), "new control plane instance was created")
}

var memberLine = regexp.MustCompile(`(?m)^([0-9a-f]{16}), started, ([a-z0-9-]+), https://([0-9.]+):2380, https://([0-9.]+):2379, false$`)

// members parses member list -w simple into name -> id, checking the
// URLs name the member's address.
func members(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, m := range memberLine.FindAllStringSubmatch(out, -1) {
		if m[3] != m[4] {
			t.Errorf("member %s: peer %s, client %s", m[2], m[3], m[4])
		}
		got[m[2]] = m[1]
	}
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; strings.TrimSpace(out) == "" || n != len(got) {
		if strings.TrimSpace(out) != "" {
			t.Fatalf("member list has lines that are not members:\n%s", out)
		}
	}
	return got
}

// kubeadm init makes master-1 the first etcd member with the etcd CA and
// health-check client pair; a control-plane join adds master-2; member
// list through either master's endpoint lists both; member remove takes
// master-2 out, after which its endpoint is unhealthy; kubeadm reset on
// a master removes its member; etcd is unhealthy without its manifest.
func TestEtcdctlMembersAndHealth(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, false)
	contains(t, e.must("master-1", "apt-get", "install", "-y", "etcd-client"), "etcd-client")
	if dst, err := os.Readlink(filepath.Join(e.roots["master-1"], "/usr/bin/etcdctl")); err != nil || dst == "" {
		t.Fatalf("etcd-client links no etcdctl: %q %v", dst, err)
	}
	for _, f := range []string{"ca.crt", "healthcheck-client.crt", "healthcheck-client.key"} {
		if !strings.Contains(e.file("master-1", "/etc/kubernetes/pki/etcd/"+f), "-----BEGIN ") {
			t.Fatalf("/etc/kubernetes/pki/etcd/%s is not PEM", f)
		}
	}
	if e.file("master-1", "/etc/kubernetes/pki/etcd/ca.crt") == e.file("master-1", "/etc/kubernetes/pki/ca.crt") {
		t.Errorf("the etcd CA is the cluster CA; kubeadm makes a separate one")
	}
	e.vars["ETCDCTL_API"] = "3"
	local := "https://127.0.0.1:2379"
	r := e.must("master-1", etcdcmd(local, "endpoint", "health")...)
	if !regexp.MustCompile(`^https://127\.0\.0\.1:2379 is healthy: successfully committed proposal: took = `).MatchString(r.out) {
		t.Fatalf("endpoint health: %q", r.out)
	}
	if got := members(t, e.must("master-1", etcdcmd(local, "member", "list", "-w", "simple")...).out); len(got) != 1 || got["master-1"] == "" {
		t.Fatalf("one master: members %v", got)
	}

	joinMaster2(t, e, join)
	r = e.must("master-1", etcdcmd(local, "member", "list", "-w", "simple")...)
	all := members(t, r.out)
	if len(all) != 2 || all["master-1"] == "" || all["master-2"] == "" || !strings.Contains(r.out, "https://10.0.0.2:2380") {
		t.Fatalf("two masters: members %v in\n%s", all, r.out)
	}
	// Through master-2's endpoint (what remove-etcd-member does), from master-1.
	if got := members(t, e.must("master-1", etcdcmd("https://10.0.0.2:2379", "member", "list")...).out); len(got) != 2 {
		t.Fatalf("through master-2: %v", got)
	}

	// Refusals: no certificates (a worker), the cluster CA, a client
	// pair the etcd CA did not sign, an http or name endpoint, the v2 API.
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	e.fails("worker-1", "Error: open /etc/kubernetes/pki/etcd/ca.crt: no such file or directory", etcdcmd("https://10.0.0.1:2379", "endpoint", "health")...)
	bad := etcdcmd(local, "member", "list")
	bad[2] = "--cacert=/etc/kubernetes/pki/ca.crt"
	e.fails("master-1", "certificate signed by unknown authority", bad...)
	st, err := store{e.state}.load()
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := st.CA.clientCert(st.API.Since, "kube-etcd-healthcheck-client")
	if err != nil {
		t.Fatal(err)
	}
	e.write("master-1", "/root/other.crt", crt)
	e.write("master-1", "/root/other.key", key)
	bad = etcdcmd(local, "member", "list")
	bad[3], bad[4] = "--cert=/root/other.crt", "--key=/root/other.key"
	e.fails("master-1", "tls: bad certificate", bad...)
	bad[3] = "--cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt"
	e.fails("master-1", "private key does not match public key", bad...)
	e.fails("master-1", "--cert is not set", "etcdctl", "--endpoints="+local, "--cacert=/etc/kubernetes/pki/etcd/ca.crt", "endpoint", "health")
	for _, ep := range []string{"http://127.0.0.1:2379", "https://localhost:2379", "https://127.0.0.1:2380"} {
		if r := e.run("master-1", etcdcmd(ep, "endpoint", "health")...); r.code != 2 || !strings.Contains(r.err, "not emulated: etcdctl --endpoints="+ep) {
			t.Errorf("endpoint %s: exit %d %s", ep, r.code, r.err)
		}
	}
	e.vars["ETCDCTL_API"] = "2"
	if r := e.run("master-1", etcdcmd(local, "member", "list")...); r.code != 2 || !strings.Contains(r.err, "not emulated: etcdctl ETCDCTL_API=2") {
		t.Errorf("ETCDCTL_API=2: exit %d %s", r.code, r.err)
	}
	e.vars["ETCDCTL_API"] = ""
	for _, args := range [][]string{{"member", "add", "x"}, {"endpoint", "status"}, {"member", "list", "-w", "table"}, {"defrag"}} {
		if r := e.run("master-1", etcdcmd(local, args...)...); r.code != 2 || !strings.Contains(r.err, "not emulated: etcdctl") {
			t.Errorf("%v: exit %d %s", args, r.code, r.err)
		}
	}

	// member remove: master-2 leaves the list, its endpoint stops serving.
	e.fails("master-1", "bad member ID arg", etcdcmd(local, "member", "remove", "not-hex")...)
	r = e.must("master-1", etcdcmd(local, "member", "remove", all["master-2"])...)
	id, _ := strconv.ParseUint(all["master-2"], 16, 64)
	if !regexp.MustCompile(`^Member +[0-9a-f]+ removed from cluster +[0-9a-f]+\n$`).MatchString(r.out) || !strings.Contains(r.out, strconv.FormatUint(id, 16)) {
		t.Fatalf("member remove: %q", r.out)
	}
	if got := members(t, e.must("master-1", etcdcmd(local, "member", "list", "-w", "simple")...).out); len(got) != 1 || got["master-1"] != all["master-1"] {
		t.Fatalf("after remove: %v", got)
	}
	e.fails("master-1", "etcdserver: member not found", etcdcmd(local, "member", "remove", all["master-2"])...)
	r = e.fails("master-1", "Error: unhealthy cluster", etcdcmd("https://10.0.0.2:2379", "endpoint", "health")...)
	contains(t, r, "https://10.0.0.2:2379 is unhealthy")
	e.fails("master-1", "context deadline exceeded", etcdcmd("https://10.0.0.2:2379", "member", "list")...)
	e.fails("master-1", "not enough started members", etcdcmd(local, "member", "remove", all["master-1"])...)

	// A master's kubeadm reset removes its member.
	e.must("master-2", "kubeadm", "reset", "-f")
	joinMaster2(t, e, join)
	if got := members(t, e.must("master-1", etcdcmd(local, "member", "list")...).out); len(got) != 2 {
		t.Fatalf("rejoined: %v", got)
	}
	e.must("master-2", "kubeadm", "reset", "-f")
	if got := members(t, e.must("master-1", etcdcmd(local, "member", "list")...).out); len(got) != 1 || got["master-2"] != "" {
		t.Fatalf("after reset of master-2: %v", got)
	}

	// Without its static Pod manifest the kubelet runs no etcd.
	m := filepath.Join(e.roots["master-1"], "/etc/kubernetes/manifests/etcd.yaml")
	if err := os.Rename(m, m+".held"); err != nil {
		t.Fatal(err)
	}
	e.fails("master-1", "is unhealthy", etcdcmd(local, "endpoint", "health")...)
	if err := os.Rename(m+".held", m); err != nil {
		t.Fatal(err)
	}
	e.must("master-1", etcdcmd(local, "endpoint", "health")...)
}

var statusRE = regexp.MustCompile(`^\{"hash":(\d+),"revision":([1-9]\d*),"totalKey":([1-9]\d*),"totalSize":(\d+)\}\n$`)

// snapshot save writes the simulated keyspace 0600; the same state gives
// the same file; status reads it back (more keys after a node joins);
// a changed or foreign file is refused; restore writes the data
// directory and the cluster goes back to the snapshot with one member.
func TestEtcdctlSnapshotSaveStatusRestore(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, false)
	local := "https://127.0.0.1:2379"
	if err := os.MkdirAll(filepath.Join(e.roots["master-1"], "/var/backups"), 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(f string) (string, []byte) {
		t.Helper()
		contains(t, e.must("master-1", etcdcmd(local, "snapshot", "save", f)...), "Snapshot saved at "+f)
		full := filepath.Join(e.roots["master-1"], f)
		fi, err := os.Stat(full)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, fi, err)
		}
		b, _ := os.ReadFile(full)
		return e.must("master-1", "etcdctl", "snapshot", "status", f, "-w", "json").out, b
	}
	st1, b1 := save("/var/backups/a.db")
	m := statusRE.FindStringSubmatch(st1)
	if m == nil {
		t.Fatalf("status: %q", st1)
	}
	if m[4] != strconv.Itoa(len(b1)) || !strings.Contains(string(b1), `"master-1"`) {
		t.Errorf("status %q of a %d-byte snapshot", st1, len(b1))
	}
	_, b2 := save("/var/backups/b.db")
	if sha256.Sum256(b1) != sha256.Sum256(b2) {
		t.Errorf("two snapshots of the same state differ")
	}
	if _, err := os.Stat(filepath.Join(e.roots["master-1"], "/var/backups/b.db.part")); err == nil {
		t.Errorf("b.db.part left behind")
	}
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	st3, b3 := save("/var/backups/c.db")
	m3 := statusRE.FindStringSubmatch(st3)
	k1, _ := strconv.Atoi(m[3])
	if k3, _ := strconv.Atoi(m3[3]); k3 != k1+1 || st3 == st1 || !strings.Contains(string(b3), `"worker-1"`) {
		t.Errorf("after worker-1 joined: %q, before %q", st3, st1)
	}

	// Refusals.
	e.fails("master-1", "snapshot must be requested to one selected node", etcdcmd(local+",https://10.0.0.1:2379", "snapshot", "save", "/var/backups/d.db")...)
	e.write("master-1", "/var/backups/bad.db", strings.Replace(string(b1), `"master-1"`, `"master-9"`, 1))
	e.fails("master-1", "snapshot file integrity check failed", "etcdctl", "snapshot", "status", "/var/backups/bad.db", "-w", "json")
	e.write("master-1", "/var/backups/foreign.db", "not a bolt database\n")
	e.fails("master-1", "invalid database", "etcdctl", "snapshot", "status", "/var/backups/foreign.db", "-w", "json")
	if r := e.run("master-1", "etcdctl", "snapshot", "status", "/var/backups/a.db"); r.code != 2 || !strings.Contains(r.err, "not emulated") {
		t.Errorf("status without -w json: exit %d %s", r.code, r.err)
	}
	if r := e.runAs("master-1", "1000", "", "etcdctl", "snapshot", "status", "/var/backups/a.db", "-w", "json"); os.Geteuid() != 0 && r.code == 0 {
		t.Errorf("a user read the root-only snapshot")
	}

	// The etcd static Pod mounts /var/lib/etcd from the host, as kubeadm's
	// does (restore-etcd-snapshot swaps that directory).
	if m := e.file("master-1", "/etc/kubernetes/manifests/etcd.yaml"); !regexp.MustCompile(`(?m)^  - hostPath:\n      path: /var/lib/etcd$`).MatchString(m) {
		t.Errorf("etcd.yaml mounts no /var/lib/etcd:\n%s", m)
	}

	// Restore the snapshot taken before worker-1 joined.
	restore := []string{"etcdctl", "snapshot", "restore", "/var/backups/a.db", "--data-dir", "/var/lib/etcd.restore", "--name", "master-1",
		"--initial-cluster", "master-1=https://10.0.0.1:2380", "--initial-advertise-peer-urls", "https://10.0.0.1:2380"}
	wrong := append([]string(nil), restore...)
	wrong[9] = "master-1=https://10.0.0.2:2380"
	e.fails("master-1", "--initial-cluster must name only master-1=https://10.0.0.1:2380", wrong...)
	before := members(t, e.must("master-1", etcdcmd(local, "member", "list")...).out)
	contains(t, e.must("master-1", restore...), "restored snapshot")
	if got := e.file("master-1", "/var/lib/etcd.restore/member/snap/db"); got != string(b1) {
		t.Errorf("the data directory's db is not the snapshot")
	}
	if fi, err := os.Stat(filepath.Join(e.roots["master-1"], "/var/lib/etcd.restore/member/wal")); err != nil || !fi.IsDir() {
		t.Errorf("no wal directory: %v", err)
	}
	e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"
	if out := e.must("master-1", "kubectl", "get", "nodes", "-o", "name").out; out != "node/master-1\n" {
		t.Errorf("after restoring a snapshot of one node: %q", out)
	}
	after := members(t, e.must("master-1", etcdcmd(local, "member", "list")...).out)
	if len(after) != 1 || after["master-1"] == "" || after["master-1"] == before["master-1"] {
		t.Errorf("restore makes a new one-member cluster: before %v, after %v", before, after)
	}
	e.fails("master-1", `data-dir "/var/lib/etcd.restore" exists`, restore...)
}
