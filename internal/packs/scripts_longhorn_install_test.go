package packs

import (
	"strings"
	"testing"
)

// install-storage on a cluster of masters only passes Longhorn values that
// tolerate the control-plane taint (its manager, driver and UI, and the
// components it deploys itself); with a worker it passes none.
func TestInstallStorageMastersOnlyTolerations(t *testing.T) {
	const script = "kubernetes/scripts/install-storage.sh"
	for _, c := range []struct {
		name, hosts string
		tolerates   bool
	}{
		{"masters only", "master-1 10.0.0.1 master,master-2 10.0.0.2 master", true},
		{"with a worker", "master-1 10.0.0.1 master,worker-1 10.0.0.11 worker", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			env := packEnv(t, "kubernetes", map[string]string{"storage": "longhorn"})
			env["CP_HOSTS"] = c.hosts
			succeeded(t, h.run(script, env))
			calls, values := h.log(h.calls), h.log(h.values)
			if !strings.Contains(calls, "helm upgrade --install longhorn longhorn --repo https://charts.longhorn.io") {
				t.Fatalf("no Longhorn install:\n%s", calls)
			}
			if !c.tolerates {
				if values != "" || strings.Contains(calls, "--values") {
					t.Errorf("values passed for a cluster with a worker:\n%s", values)
				}
				return
			}
			docs := yamlDocs(t, values)
			if len(docs) != 1 {
				t.Fatalf("want one values file, got:\n%s", values)
			}
			v := docs[0]
			if dig(v, "defaultSettings", "taintToleration") != "node-role.kubernetes.io/control-plane:NoSchedule" {
				t.Errorf("defaultSettings.taintToleration = %v", dig(v, "defaultSettings", "taintToleration"))
			}
			for _, part := range []string{"longhornManager", "longhornDriver", "longhornUI"} {
				tol, _ := dig(v, part, "tolerations", 0).(map[string]any)
				if tol["key"] != "node-role.kubernetes.io/control-plane" || tol["operator"] != "Exists" || tol["effect"] != "NoSchedule" {
					t.Errorf("%s.tolerations[0] = %v", part, tol)
				}
			}
		})
	}
}

// longhorn_tolerates_control_plane holds on a masters-only cluster only
// when the release's values hold the toleration; with a worker, or with
// storage none, it holds without looking.
func TestInstallStorageTolerationEvidence(t *testing.T) {
	const file = "kubernetes/jobs/install-storage.yaml"
	masters := "master-1 10.0.0.1 master,master-2 10.0.0.2 master"
	for _, c := range []struct {
		name, hosts, storage, values string
		want                         bool
	}{
		{"tolerates", masters, "longhorn", `{"defaultSettings":{"taintToleration":"node-role.kubernetes.io/control-plane:NoSchedule"}}`, true},
		{"no values", masters, "longhorn", `null`, false},
		{"has workers", "master-1 10.0.0.1 master,worker-1 10.0.0.11 worker", "longhorn", `null`, true},
		{"storage none", masters, "none", `null`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("helm", `printf '%s\n' '`+c.values+`'`)
			if ok, got := h.evidence(file, "longhorn_tolerates_control_plane", map[string]string{"CP_PARAM_STORAGE": c.storage, "CP_HOSTS": c.hosts}); ok != c.want {
				t.Errorf("holds %v on %q, want %v", ok, got, c.want)
			}
		})
	}
}
