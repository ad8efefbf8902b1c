package intent

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ContainerdSupported follows RELEASES.md's rows: a listed minor from its
// patch on, a minor newer than the row's, not an older or unlisted one.
func TestContainerdSupported(t *testing.T) {
	for _, c := range []struct {
		kube, version string
		ok, known     bool
	}{
		{"1.34", "2.1.3", true, true}, {"1.34", "2.1.2", false, true}, {"1.34", "2.1", true, true},
		{"1.34", "2.2", true, true}, {"1.34", "2.2.9", true, true}, {"1.34", "1.6.39", true, true},
		{"1.34", "1.6.20", false, true}, {"1.34", "1.5.18", false, true},
		{"1.35", "2.0.6", false, true}, {"1.35", "1.6.39", false, true}, {"1.35", "2.1.5", true, true}, {"1.35", "2.2.0", true, true},
		{"1.30", "1.6.28", true, true}, {"1.30", "1.6.27", false, true},
		{"1.29", "2.2.9", false, false},
	} {
		ok, known := ContainerdSupported(c.kube, c.version)
		if ok != c.ok || known != c.known {
			t.Errorf("ContainerdSupported(%s, %s) = %v, %v; want %v, %v", c.kube, c.version, ok, known, c.ok, c.known)
		}
	}
}

// CheckCluster refuses at plan, on parameters["containerd_version"], a
// containerd below the minimum for the cluster's Kubernetes minor (its
// kubernetes_version, else the pack's default), and accepts one the
// table recommends; without containerd_version nothing is said.
func TestCheckContainerdVersionAtPlan(t *testing.T) {
	pack := &protocol.ScenarioPack{Parameters: map[string]protocol.ParamSpec{"kubernetes_version": {Type: "semver", Default: "1.34.2"}}}
	for _, c := range []struct {
		kube, containerd string
		want             string
	}{
		{"1.34.2", "1.6.20", `containerd "1.6.20" is below what containerd's RELEASES.md recommends for Kubernetes 1.34 (2.1.3+, 2.0.6+, 1.7.28+, 1.6.39+)`},
		{"", "2.1.2", "Kubernetes 1.34"},
		{"1.35.0", "2.0", `recommends for Kubernetes 1.35 (2.2.0+, 2.1.5+, 1.7.28+). Set containerd_version to such a release, e.g. "2.2"`},
		{"1.34.2", "2.2", ""}, {"1.34.2", "1.7.28", ""}, {"1.30.4", "1.6.28", ""}, {"1.34.2", "", ""},
	} {
		params := map[string]string{}
		if c.containerd != "" {
			params[ContainerdVersionParam] = c.containerd
		}
		ps := CheckCluster(ClusterInput{KubernetesVersion: c.kube, Parameters: params}, pack)
		var got []Problem
		for _, p := range ps {
			if p.Path.String() == Root("parameters").Key(ContainerdVersionParam).String() {
				got = append(got, p)
			}
		}
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("kubernetes %q containerd %q: %v, want no problem", c.kube, c.containerd, got)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0].Detail, c.want) {
			t.Errorf("kubernetes %q containerd %q: %v, want one saying %q", c.kube, c.containerd, got, c.want)
		}
	}
}

// The script's support_table is ContainerdSupport, row for row.
func TestContainerdSupportMatchesScript(t *testing.T) {
	b, err := os.ReadFile("../packs/builtin/kubernetes/scripts/install-container-runtime.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)support_table='([^']*)'`).FindSubmatch(b)
	if m == nil {
		t.Fatal("install-container-runtime.sh holds no support_table")
	}
	got := map[string][]string{}
	for _, line := range strings.Split(string(m[1]), "\n") {
		f := strings.Fields(line)
		got[f[0]] = f[1:]
	}
	if !reflect.DeepEqual(got, ContainerdSupport) {
		t.Errorf("the script's support_table %v differs from ContainerdSupport %v", got, ContainerdSupport)
	}
}
