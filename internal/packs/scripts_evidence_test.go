package packs

import (
	"strings"
	"testing"
)

const apiDown = `echo 'Unable to connect to the server: dial tcp 10.0.0.10:6443: connect: connection refused' >&2; exit 1`

// TestPrePullImagesEvidence: the images evidence fails when kubeadm
// lists nothing because it failed (a pipeline's status was the loop's)
// and when one image is missing; it holds when every image is present.
func TestPrePullImagesEvidence(t *testing.T) {
	for _, file := range []string{"kubernetes/jobs/pre-pull-images.yaml", "kubernetes/jobs/pre-pull-kubernetes-images.yaml"} {
		t.Run(file, func(t *testing.T) {
			env := packEnv(t, "kubernetes", nil)
			h := newScriptHost(t)
			h.stub("kubeadm", `echo 'could not fetch a Kubernetes version from the internet' >&2; exit 1`)
			if ok, got := h.evidence(file, "images_present", env); ok {
				t.Errorf("evidence holds (%q) while kubeadm config images list failed", got)
			}
			h = newScriptHost(t)
			h.stub("crictl", `case "$2" in *pause*) exit 1 ;; esac`)
			if ok, got := h.evidence(file, "images_present", env); ok {
				t.Errorf("evidence holds (%q) with the pause image missing", got)
			}
			h = newScriptHost(t)
			if ok, got := h.evidence(file, "images_present", env); !ok {
				t.Errorf("evidence fails (%q) with every image present", got)
			}
		})
	}
	// The script fails when the list cannot be taken.
	h := newScriptHost(t)
	h.stub("kubeadm", `exit 1`)
	refused(t, h, h.run("kubernetes/scripts/pre-pull-images.sh", packEnv(t, "kubernetes", nil)), "kubeadm config images list")
}

// TestNodeGoneNeedsAnAnswer: drain-node and delete-node, and their
// evidence, count a node as gone only when the API server says NotFound;
// an API server that does not answer fails them.
func TestNodeGoneNeedsAnAnswer(t *testing.T) {
	env := func(h *scriptHost) map[string]string {
		return h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})
	}
	notFound := `echo 'Error from server (NotFound): nodes "node-1" not found' >&2; exit 1`

	h := newScriptHost(t)
	h.stub("kubectl", apiDown)
	refused(t, h, h.run("kubernetes/scripts/drain-node.sh", env(h)), "cannot read node node-1")
	if ok, got := h.evidence("kubernetes/jobs/drain-node.yaml", "node_unschedulable", env(h)); ok {
		t.Errorf("drain evidence holds (%q) while the API server is down", got)
	}
	if ok, got := h.evidence("kubernetes/jobs/delete-node.yaml", "node_absent", env(h)); ok {
		t.Errorf("delete evidence holds (%q) while the API server is down", got)
	}

	h = newScriptHost(t)
	h.stub("kubectl", notFound)
	succeeded(t, h.run("kubernetes/scripts/drain-node.sh", env(h)))
	if ok, got := h.evidence("kubernetes/jobs/drain-node.yaml", "node_unschedulable", env(h)); !ok {
		t.Errorf("drain evidence fails (%q) for a node the API server does not know", got)
	}
	if ok, got := h.evidence("kubernetes/jobs/delete-node.yaml", "node_absent", env(h)); !ok {
		t.Errorf("delete evidence fails (%q) for a node the API server does not know", got)
	}

	// delete-node: the node still listed after the delete fails the job;
	// an API server that stops answering after the delete too.
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *" get node "*) echo node/node-1 ;; esac`)
	refused(t, h, h.run("kubernetes/scripts/delete-node.sh", env(h)), "still registered")
	if ok, got := h.evidence("kubernetes/jobs/delete-node.yaml", "node_absent", env(h)); ok {
		t.Errorf("delete evidence holds (%q) while the node is listed", got)
	}
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *" get node "*) `+apiDown+` ;; esac`)
	refused(t, h, h.run("kubernetes/scripts/delete-node.sh", env(h)), "cannot confirm node node-1 is gone")
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *" get node "*) `+notFound+` ;; esac`)
	succeeded(t, h.run("kubernetes/scripts/delete-node.sh", env(h)))
}

// TestVerifyClusterSystemWorkloads: Ready nodes are not enough: a
// kube-system Deployment without its replicas or a DaemonSet not ready
// everywhere fails the evidence and the script.
func TestVerifyClusterSystemWorkloads(t *testing.T) {
	const file = "kubernetes/jobs/verify-cluster.yaml"
	kubectl := func(deploy, ds string) string {
		return `case " $* " in
  *" get deployments "*) printf '` + deploy + `' ;;
  *" get daemonsets "*) printf '` + ds + `' ;;
esac`
	}
	env := packEnv(t, "kubernetes", nil)
	for _, c := range []struct {
		name, deploy, ds string
		ok               bool
	}{
		{"running", `coredns=2/2\ncalico-kube-controllers=1/1\n`, `kube-proxy=3/3\ncalico-node=3/3\n`, true},
		{"coredns unavailable", `coredns=/2\n`, `kube-proxy=3/3\n`, false},
		{"calico-node not on every node", `coredns=2/2\n`, `kube-proxy=3/3\ncalico-node=2/3\n`, false},
		{"nothing listed", ``, ``, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("kubectl", kubectl(c.deploy, c.ds))
			if ok, got := h.evidence(file, "system_workloads_running", env, "/etc/kubernetes/admin.conf"); ok != c.ok {
				t.Errorf("system_workloads_running = %v (%q), want %v", ok, got, c.ok)
			}
		})
	}
	h := newScriptHost(t)
	h.stub("sleep", ``)
	h.stub("kubectl", kubectl(`coredns=2/2\n`, `calico-node=2/3\n`))
	refused(t, h, h.run("kubernetes/scripts/verify-cluster.sh", env), "calico-node=2/3")
	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *" wait "*"deployment"*) echo 'error: timed out waiting for the condition on deployments/coredns' >&2; exit 1 ;; esac`)
	if res := h.run("kubernetes/scripts/verify-cluster.sh", env); res.code == 0 {
		t.Errorf("verify-cluster passed with coredns never Available")
	}
}

// TestValidateCredentialsReachesRegistries: resolving is not reaching:
// a registry that does not answer over TLS, or answers like no
// registry, fails the script and the evidence.
func TestValidateCredentialsReachesRegistries(t *testing.T) {
	const script, file = "kubernetes/scripts/validate-credentials.sh", "kubernetes/jobs/validate-credentials.yaml"
	env := packEnv(t, "kubernetes", map[string]string{"registry_mirrors": "http://10.0.0.5:5000/v2"})
	h := newScriptHost(t)
	succeeded(t, h.run(script, env, "/var/lib/cp"))
	if got, want := h.read("/var/lib/cp/kubernetes/registry-probes"), "https://registry.k8s.io/v2/\nhttp://10.0.0.5:5000/v2/\n"; got != want {
		t.Errorf("registry-probes = %q, want %q", got, want)
	}
	calls := h.log(h.calls)
	for _, want := range []string{"curl -sS --max-time 10 -o /dev/null -w %{http_code} https://registry.k8s.io/v2/", "curl -sS --max-time 10 -o /dev/null -w %{http_code} http://10.0.0.5:5000/v2/"} {
		if !strings.Contains(calls, want) {
			t.Errorf("no call %q:\n%s", want, calls)
		}
	}
	if ok, got := h.evidence(file, "registries_reachable", env, "/var/lib/cp"); !ok {
		t.Errorf("registries_reachable fails (%q) with both answering", got)
	}
	h.stub("curl", `case "$*" in *10.0.0.5*) printf 000; echo 'curl: (7) Failed to connect to 10.0.0.5 port 5000' >&2; exit 7 ;; *) printf 401 ;; esac`)
	if ok, got := h.evidence(file, "registries_reachable", env, "/var/lib/cp"); ok {
		t.Errorf("registries_reachable holds (%q) with the mirror refusing connections", got)
	}
	refused(t, h, h.run(script, env, "/var/lib/cp"), "cannot reach registry http://10.0.0.5:5000/v2/")

	h = newScriptHost(t)
	h.stub("curl", `printf 404`)
	refused(t, h, h.run(script, packEnv(t, "kubernetes", nil), "/var/lib/cp"), "answered HTTP 404")
}

// TestUninstallTempoNeedsAnAnswer: Tempo counts as removed only when helm
// says the release is not found; an unreachable cluster fails the
// uninstall and its evidence.
func TestUninstallTempoNeedsAnAnswer(t *testing.T) {
	const script, file = "tempo/scripts/uninstall-tempo.sh", "tempo/jobs/uninstall-tempo.yaml"
	arts := map[string]string{"kubeconfig.admin": "apiVersion: v1\n"}
	h := newScriptHost(t)
	h.stub("helm", `echo 'Error: Kubernetes cluster unreachable: Get "https://10.0.0.10:6443/version": dial tcp 10.0.0.10:6443: connect: connection refused' >&2; exit 1`)
	env := h.artifactEnv(packEnv(t, "tempo", nil), arts)
	refused(t, h, h.run(script, env), "cannot tell whether release tempo exists")
	if ok, got := h.evidence(file, "release_absent", env); ok {
		t.Errorf("release_absent holds (%q) while the cluster is unreachable", got)
	}
	h = newScriptHost(t)
	h.stub("helm", `echo 'Error: release: not found' >&2; exit 1`)
	env = h.artifactEnv(packEnv(t, "tempo", nil), arts)
	succeeded(t, h.run(script, env))
	if ok, got := h.evidence(file, "release_absent", env); !ok {
		t.Errorf("release_absent fails (%q) with the release not found", got)
	}
	h = newScriptHost(t)
	env = h.artifactEnv(packEnv(t, "tempo", nil), arts)
	succeeded(t, h.run(script, env))
	if calls := h.log(h.calls); !strings.Contains(calls, "helm uninstall tempo --namespace tempo") {
		t.Errorf("an installed release was not uninstalled:\n%s", calls)
	}
	if ok, got := h.evidence(file, "release_absent", env); ok {
		t.Errorf("release_absent holds (%q) while helm status finds the release", got)
	}
}
