package hostsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// check-expiration reads each expiry from the certificates on the host:
// a kubeconfig whose client certificate was issued 355 days ago shows
// about 10 days left; an unreadable one is refused, a missing one listed
// as missing; renew all gives every managed kubeconfig a year again and
// leaves a missing one absent.
func TestKubeadmCertsCheckExpirationAndRenew(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	row := func(name string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +([A-Z][a-z]{2} \d{2}, \d{4} \d{2}:\d{2} UTC) +(\d+[dhmy]|<invalid>) +ca +no$`)
	}
	left := func(r result, name string) string {
		t.Helper()
		m := row(name).FindStringSubmatch(r.out)
		if m == nil {
			t.Fatalf("no %s row in:\n%s", name, r.out)
		}
		return m[2]
	}
	r := e.must("master-1", "kubeadm", "certs", "check-expiration")
	for _, k := range []string{"admin.conf", "controller-manager.conf", "scheduler.conf", "super-admin.conf"} {
		if got := left(r, k); got != "364d" && got != "365d" {
			t.Errorf("fresh %s: residual %s, want 364d or 365d", k, got)
		}
	}
	if !regexp.MustCompile(`(?m)^CERTIFICATE AUTHORITY +EXPIRES +RESIDUAL TIME +EXTERNALLY MANAGED\nca +[A-Z][a-z]{2} \d{2}, \d{4} \d{2}:\d{2} UTC +9y +no$`).MatchString(r.out) {
		t.Errorf("no CA table with 9y left:\n%s", r.out)
	}
	// Not root: refused as kubeadm does.
	if r := e.runAs("master-1", "1000", "", "kubeadm", "certs", "check-expiration"); r.code == 0 || !strings.Contains(r.err, "IsPrivilegedUser") {
		t.Errorf("as a user: exit %d %s", r.code, r.err)
	}

	// An admin.conf issued 355 days ago has about 10 days left.
	st, err := store{e.state}.load()
	if err != nil {
		t.Fatal(err)
	}
	issued := time.Now().Add(-355 * 24 * time.Hour)
	old, err := st.CA.kubeconfig(issued, st.API.Endpoint, "kubernetes-admin", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	e.write("master-1", "/etc/kubernetes/admin.conf", old)
	r = e.must("master-1", "kubeadm", "certs", "check-expiration")
	if got := left(r, "admin.conf"); got != "9d" && got != "10d" {
		t.Errorf("aged admin.conf: residual %s, want about 10d", got)
	}
	if want := issued.Add(365 * 24 * time.Hour).UTC().Format("Jan 02, 2006 15:04 UTC"); !regexp.MustCompile(`(?m)^admin\.conf +` + regexp.QuoteMeta(want)).MatchString(r.out) {
		t.Errorf("aged admin.conf does not expire on %s:\n%s", want, r.out)
	}
	// An empty kubeconfig holds no certificate: refused.
	e.write("master-1", "/etc/kubernetes/super-admin.conf", "")
	e.fails("master-1", "failed to load certificate embedded in super-admin.conf", "kubeadm", "certs", "check-expiration")
	if err := os.Remove(filepath.Join(e.roots["master-1"], "/etc/kubernetes/super-admin.conf")); err != nil {
		t.Fatal(err)
	}
	contains(t, e.must("master-1", "kubeadm", "certs", "check-expiration"), "!MISSING! super-admin.conf")

	r = e.must("master-1", "kubeadm", "certs", "renew", "all")
	contains(t, r, "certificate embedded in the kubeconfig file admin renewed", "You must restart the kube-apiserver")
	if strings.Contains(r.out, "super-admin") {
		t.Errorf("renew all renewed the missing super-admin.conf:\n%s", r.out)
	}
	r = e.must("master-1", "kubeadm", "certs", "check-expiration")
	if got := left(r, "admin.conf"); got != "364d" && got != "365d" {
		t.Errorf("renewed admin.conf: residual %s, want a year", got)
	}
	if _, err := os.Stat(filepath.Join(e.roots["master-1"], "/etc/kubernetes/super-admin.conf")); err == nil {
		t.Errorf("renew all created super-admin.conf")
	}
	// The renewed admin.conf still authenticates against the cluster.
	e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "nodes", "-o", "name")
	// A host that never joined has no CA file to read or sign with.
	e.fails("worker-1", "open /etc/kubernetes/pki/ca.crt", "kubeadm", "certs", "check-expiration")
	e.fails("worker-1", "open /etc/kubernetes/pki/ca.crt", "kubeadm", "certs", "renew", "all")
}

// kubectl cordon marks the node unschedulable once; an unknown node is
// refused.
func TestKubectlCordon(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"
	contains(t, e.must("master-1", "kubectl", "cordon", "master-1"), "node/master-1 cordoned")
	if r := e.must("master-1", "kubectl", "get", "node", "master-1", "-o", "jsonpath={.spec.unschedulable}"); r.out != "true" {
		t.Errorf("unschedulable after cordon: %q", r.out)
	}
	contains(t, e.must("master-1", "kubectl", "cordon", "master-1"), "already cordoned")
	e.must("master-1", "kubectl", "uncordon", "master-1")
	if r := e.must("master-1", "kubectl", "get", "node", "master-1", "-o", "jsonpath={.spec.unschedulable}"); r.out != "" && r.out != "false" {
		t.Errorf("unschedulable after uncordon: %q", r.out)
	}
	e.fails("master-1", "not found", "kubectl", "cordon", "worker-9")
}
