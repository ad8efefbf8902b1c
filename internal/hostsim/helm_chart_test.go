package hostsim

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// helm pull writes CHART-VERSION.tgz into --destination, the same bytes
// each time; helm upgrade installs such an archive by its absolute path,
// the release taking the chart and version its Chart.yaml names; a
// missing path or a file that is no chart archive fails; pull fails when
// the repository's host does not resolve.
func TestHelmPullAndLocalChart(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, true)
	pull := []string{"helm", "pull", "longhorn", "--repo", "https://charts.longhorn.io", "--version", "1.7.2", "--destination", "/root/charts"}
	e.must("master-1", pull...)
	first := e.file("master-1", "/root/charts/longhorn-1.7.2.tgz")
	e.must("master-1", pull...)
	if again := e.file("master-1", "/root/charts/longhorn-1.7.2.tgz"); first == "" || again != first {
		t.Fatalf("helm pull wrote %d bytes, then %d different ones", len(first), len(again))
	}
	name, version, err := chartMeta([]byte(first))
	if err != nil || name != "longhorn" || version != "1.7.2" {
		t.Fatalf("pulled archive: chart %q version %q (%v), want longhorn 1.7.2", name, version, err)
	}
	sum := sha256.Sum256([]byte(first))
	if got := hex.EncodeToString(sum[:]); got != chartArchiveSHA256(t, "longhorn", "1.7.2") {
		t.Errorf("pulled archive sha256 %s differs from chartArchive's", got)
	}

	up := func(chart string) result {
		return e.run("master-1", "helm", "upgrade", "--install", "longhorn", chart, "--namespace", "longhorn-system", "--create-namespace",
			"--kubeconfig", "/etc/kubernetes/admin.conf")
	}
	if r := up("/root/charts/longhorn-1.7.2.tgz"); r.code != 0 {
		t.Fatalf("helm upgrade of a local archive: exit %d: %s", r.code, r.err)
	}
	st, err := ReadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Releases["longhorn-system/longhorn"]; r == nil || r.Chart != "longhorn" || r.Version != "1.7.2" {
		t.Fatalf("release from the local archive: %+v, want chart longhorn 1.7.2", r)
	}
	if r := up("/root/charts/missing.tgz"); r.code != 1 || !strings.Contains(r.err, `path "/root/charts/missing.tgz" not found`) {
		t.Errorf("a missing archive: exit %d %q", r.code, r.err)
	}
	e.write("master-1", "/root/charts/junk.tgz", "not a chart\n")
	if r := up("/root/charts/junk.tgz"); r.code != 1 || !strings.Contains(r.err, "not a chart archive") {
		t.Errorf("a file that is no chart archive: exit %d %q", r.code, r.err)
	}

	e.write("master-1", "/etc/resolv.conf", "nameserver 10.0.0.53\n")
	e.must("master-1", "cp-hostsim", "fault", "set", "dns", "--host", "master-1")
	e.fails("master-1", "lookup charts.longhorn.io", pull...)
}

// kubeadm config images list --image-repository names every image,
// CoreDNS and pause included, under that repository.
func TestKubeadmImagesListRepository(t *testing.T) {
	e := newEnv(t)
	e.must("master-1", "apt-get", "install", "-y", "kubeadm")
	r := e.must("master-1", "kubeadm", "config", "images", "list", "--kubernetes-version", "v1.31.2", "--image-repository", "mirror.internal:5000/k8s")
	for _, l := range strings.Split(strings.TrimSpace(r.out), "\n") {
		if !strings.HasPrefix(l, "mirror.internal:5000/k8s/") || strings.Count(l, "/") != 2 {
			t.Errorf("image %q is not directly under mirror.internal:5000/k8s", l)
		}
	}
	contains(t, r, "mirror.internal:5000/k8s/coredns:v1.11.3\n", "mirror.internal:5000/k8s/pause:3.10\n", "mirror.internal:5000/k8s/kube-apiserver:v1.31.2\n")
}

func chartArchiveSHA256(t *testing.T, name, version string) string {
	t.Helper()
	b, err := chartArchive(name, version)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
