package packs

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestKubernetesDefaultVersion: the kubernetes pack defaults to a
// supported minor (1.34; 1.31 reached its end of life in October 2025),
// within its declared range and exactly the kubeadm the tests build
// (tools/kubeadm/go.mod), so every configuration the tests validate is
// the default's; the scripts that install or upgrade the packages hold
// them.
func TestKubernetesDefaultVersion(t *testing.T) {
	env := packEnv(t, "kubernetes", nil)
	def := env["CP_PARAM_KUBERNETES_VERSION"]
	if !strings.HasPrefix(def, "1.34.") {
		t.Errorf("kubernetes_version defaults to %q, want a 1.34.x release", def)
	}
	if want := strings.TrimPrefix(kubeadmRequired(t), "v"); def != want {
		t.Errorf("kubernetes_version defaults to %q, the tests build kubeadm %s", def, want)
	}
	var doc struct {
		Pack struct {
			Parameters map[string]protocol.ParamSpec `yaml:"parameters"`
		} `yaml:"scenario_pack"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, "builtin/kubernetes/pack.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	spec := doc.Pack.Parameters["kubernetes_version"]
	if err := paramtype.Check(spec, def); err != nil {
		t.Errorf("the default %q is outside the pack's range %q: %v", def, spec.Versions, err)
	}
	for _, s := range []string{"install-kubernetes-packages", "upgrade-control-plane", "upgrade-node"} {
		if body := readFile(t, "builtin/kubernetes/scripts/"+s+".sh"); !strings.Contains(body, "apt-mark hold kubeadm kubelet kubectl") {
			t.Errorf("%s.sh does not hold kubeadm, kubelet and kubectl", s)
		}
	}
}
