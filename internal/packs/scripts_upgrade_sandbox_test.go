package packs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An upgrade re-sets containerd's sandbox (pause) image: the new kubeadm
// may name a newer pause tag than the one install-kubernetes-packages set
// under image_repository, and the upgrade scripts make containerd's
// sandbox image that one, in both config formats, before kubeadm upgrade
// and the kubelet restart.

const (
	oldPause = imageRepo + "/pause:3.10"   // what kubeadm 1.33 lists, set at install
	newPause = imageRepo + "/pause:3.10.1" // what kubeadm 1.34 lists
)

// upgradeKubeadm puts images in front of the kubeadm stub upgradeHost
// wrote: `kubeadm config images list` runs images (shell, with "$@"),
// every other call the upgradeHost stub, logged once.
func upgradeKubeadm(t *testing.T, h *scriptHost, images string) {
	t.Helper()
	stub := filepath.Join(h.bin, "kubeadm")
	if err := os.Rename(stub, stub+".upgrade"); err != nil {
		t.Fatal(err)
	}
	h.stub("kubeadm", `case " $* " in
  *" config images list "*) `+images+` ;;
  *) CP_TEST_CALLS=/dev/null exec "$0.upgrade" "$@" ;;
esac`)
}

// kubeadmListing answers kubeadm config images list as the real one does,
// under --image-repository, with pause:TAG.
func kubeadmListing(tag string) string {
	return `r=registry.k8s.io; while [ $# -gt 0 ]; do [ "$1" != --image-repository ] || r=$2; shift; done
  printf '%s\n' "$r/kube-apiserver:v1.34.2" "$r/coredns:v1.12.1" "$r/pause:` + tag + `" "$r/etcd:3.6.5-0"`
}

// upgradeRun is one upgrade script on a host that is due to upgrade to
// 1.34.2 (or, with done, already runs it).
type upgradeRun struct {
	name, script, job, upgrade string
	host                       func(t *testing.T, done bool) (*scriptHost, map[string]string)
	paths                      []string
}

var upgradeRuns = []upgradeRun{
	{"first master", "upgrade-control-plane.sh", "upgrade-control-plane.yaml", "kubeadm upgrade apply -y v1.34.2",
		func(t *testing.T, done bool) (*scriptHost, map[string]string) {
			if done {
				return upgradeHost(t, "m-1", "v1.34.2", "v1.34.2", "v1.34.2", "v1.34.2")
			}
			return upgradeHost(t, "m-1", "v1.33.6", "v1.33.6", "v1.33.6", "v1.33.6")
		}, []string{"/etc/kubernetes/manifests", "/etc/apt", "/etc/containerd"}},
	{"second master", "upgrade-control-plane.sh", "upgrade-control-plane.yaml", "kubeadm upgrade node",
		func(t *testing.T, done bool) (*scriptHost, map[string]string) {
			if done {
				return upgradeHost(t, "m-2", "v1.34.2", "v1.34.2", "v1.34.2", "v1.34.2")
			}
			return upgradeHost(t, "m-2", "v1.33.6", "v1.33.6", "v1.34.2", "v1.34.2")
		}, []string{"/etc/kubernetes/manifests", "/etc/apt", "/etc/containerd"}},
	{"worker", "upgrade-node.sh", "upgrade-node.yaml", "kubeadm upgrade node",
		func(t *testing.T, done bool) (*scriptHost, map[string]string) {
			kubelet := "v1.33.6"
			if done {
				kubelet = "v1.34.2"
			}
			h, env := upgradeHost(t, "node-1", "v1.33.6", kubelet, "v1.34.2", "v1.34.2")
			env["CP_HOST_ROLE"] = "worker"
			return h, env
		}, []string{"/etc/apt", "/etc/containerd"}},
}

// sandboxConfigs are containerd configurations install left with the
// sandbox image of kubeadm 1.33 under image_repository: Debian's real
// default (version 2, sandbox_image) and 2.x's (version 3, pinned_images).
func sandboxConfigs(t *testing.T) []struct{ name, conf, table, key string } {
	return []struct{ name, conf, table, key string }{
		{"containerd 1.x", strings.Replace(containerdDefault(t), `sandbox_image = "registry.k8s.io/pause:3.6"`, `sandbox_image = "`+oldPause+`"`, 1),
			`[plugins."io.containerd.grpc.v1.cri"]`, "sandbox_image"},
		{"containerd 2.x", strings.Replace(v3Config, "'registry.k8s.io/pause:3.10'", "'"+oldPause+"'", 1),
			`[plugins.'io.containerd.cri.v1.images'.pinned_images]`, "sandbox"},
	}
}

// TestUpgradeSandboxImageFollowsKubeadm: on every master and worker, with
// image_repository, the upgrade makes containerd's sandbox image the
// pause image the new kubeadm lists under it (sandbox_image of containerd
// 1.x, pinned_images.sandbox of 2.x), once the new kubeadm is installed
// and before kubeadm upgrade and the kubelet restart, and restarts
// containerd; the evidence reads it back from containerd config dump and
// fails on the old tag. A node that already runs the version gets it
// too. A sandbox image already right is left alone, without a restart;
// without image_repository nothing changes and kubeadm is not asked.
func TestUpgradeSandboxImageFollowsKubeadm(t *testing.T) {
	for _, r := range upgradeRuns {
		for _, c := range sandboxConfigs(t) {
			t.Run(r.name+"/"+c.name, func(t *testing.T) {
				job := "kubernetes/jobs/" + r.job
				run := func(done bool, conf string, set map[string]string) (*scriptHost, map[string]string) {
					t.Helper()
					h, env := r.host(t, done)
					h.write("/etc/containerd/config.toml", conf)
					upgradeKubeadm(t, h, kubeadmListing("3.10.1"))
					for k, v := range set {
						env["CP_PARAM_"+strings.ToUpper(k)] = v
					}
					succeeded(t, h.run("kubernetes/scripts/"+r.script, env, r.paths...))
					return h, env
				}
				repo := map[string]string{"image_repository": imageRepo}

				h, env := run(false, c.conf, repo)
				conf := h.read("/etc/containerd/config.toml")
				if got := tomlValue(conf, c.table, c.key); got != newPause {
					t.Errorf("%s %s = %q after the upgrade, want %q\n%s", c.table, c.key, got, newPause, conf)
				}
				if strings.Count(conf, c.key+" = ") != 1 {
					t.Errorf("%s set more than once:\n%s", c.key, conf)
				}
				calls := h.log(h.calls)
				kubeadmPkg := callIndex(calls, "apt-get install -y --allow-change-held-packages kubeadm=1.34.2-*")
				list := callIndex(calls, "kubeadm config images list --kubernetes-version v1.34.2 --image-repository "+imageRepo)
				restart := callIndex(calls, "systemctl restart containerd")
				upgrade, kubelet := callIndex(calls, r.upgrade), callIndex(calls, "systemctl restart kubelet")
				if kubeadmPkg < 0 || list < kubeadmPkg || restart < list || upgrade < restart || kubelet < restart {
					t.Errorf("want the new kubeadm installed, asked for its images, containerd restarted, then %s and the kubelet restart:\n%s", r.upgrade, calls)
				}
				if ok, got := h.evidence(job, "containerd_sandbox_image", env); !ok {
					t.Errorf("containerd_sandbox_image fails (%q) with the new kubeadm's pause image", got)
				}
				h.write("/etc/containerd/config.toml", c.conf)
				if ok, got := h.evidence(job, "containerd_sandbox_image", env); ok || !strings.Contains(got, "sandbox "+oldPause+", kubeadm lists "+newPause) {
					t.Errorf("containerd_sandbox_image holds (%q) with the sandbox image of the old kubeadm", got)
				}

				// Already on the version (an upgrade an earlier pack ran):
				// the sandbox image is still brought to the new kubeadm's.
				h, _ = run(true, c.conf, repo)
				if got := tomlValue(h.read("/etc/containerd/config.toml"), c.table, c.key); got != newPause {
					t.Errorf("a node already on v1.34.2 keeps the sandbox image %q, want %q", got, newPause)
				}
				if calls := h.log(h.calls); strings.Contains(calls, "kubeadm upgrade") || !strings.Contains(calls, "systemctl restart containerd") {
					t.Errorf("a node already on v1.34.2: want no kubeadm upgrade and a containerd restart:\n%s", calls)
				}

				// Already right: no rewrite, no restart.
				right := strings.Replace(c.conf, oldPause, newPause, 1)
				h, env = run(false, right, repo)
				if got := h.read("/etc/containerd/config.toml"); got != right {
					t.Errorf("the configuration changed though its sandbox image was kubeadm's:\n%s", got)
				}
				if calls := h.log(h.calls); strings.Contains(calls, "systemctl restart containerd") {
					t.Errorf("containerd restarted though its sandbox image did not change:\n%s", calls)
				}
				if ok, got := h.evidence(job, "containerd_sandbox_image", env); !ok {
					t.Errorf("containerd_sandbox_image fails (%q) with the sandbox image already kubeadm's", got)
				}

				// Without image_repository containerd keeps its own.
				h, env = run(false, c.conf, map[string]string{"image_repository": ""})
				if got := h.read("/etc/containerd/config.toml"); got != c.conf {
					t.Errorf("the configuration changed without image_repository:\n%s", got)
				}
				if calls := h.log(h.calls); strings.Contains(calls, "images list") || strings.Contains(calls, "restart containerd") {
					t.Errorf("without image_repository kubeadm was asked for images or containerd restarted:\n%s", calls)
				}
				if ok, got := h.evidence(job, "containerd_sandbox_image", env); !ok || got != "no-image-repository" {
					t.Errorf("containerd_sandbox_image = %q without image_repository, want no-image-repository", got)
				}
			})
		}
	}
}

// TestUpgradeSandboxImageRefusals: a refused image_repository, a kubeadm
// that lists no pause image under it, and a containerd configuration of
// another version fail the upgrade before kubeadm upgrade runs and before
// the configuration changes.
func TestUpgradeSandboxImageRefusals(t *testing.T) {
	conf := sandboxConfigs(t)[0].conf
	for _, r := range upgradeRuns {
		for name, c := range map[string]struct {
			repo, images, conf, want string
		}{
			"image_repository with a newline": {imageRepo + "\nsandbox_image = \"evil.example/pause:1\"", kubeadmListing("3.10.1"), conf, "image_repository "},
			"image_repository with a scheme":  {"https://" + imageRepo, kubeadmListing("3.10.1"), conf, "image_repository "},
			"no pause image under it":         {imageRepo, `echo registry.k8s.io/pause:3.10.1`, conf, "kubeadm lists no pause image under image_repository " + imageRepo},
			"kubeadm failing":                 {imageRepo, `exit 1`, conf, "kubeadm config images list --image-repository " + imageRepo + " failed"},
			"a pause tag that is no tag":      {imageRepo, `echo "` + imageRepo + `/pause:3.10.1;touch $HOME/.canary"`, conf, "kubeadm lists no pause image under image_repository " + imageRepo},
			"config version 1":                {imageRepo, kubeadmListing("3.10.1"), "[plugins.cri]\n  sandbox_image = \"" + oldPause + "\"\n", "is not a containerd config of version 2 or 3"},
		} {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				h, env := r.host(t, false)
				h.write("/etc/containerd/config.toml", c.conf)
				upgradeKubeadm(t, h, c.images)
				env["CP_PARAM_IMAGE_REPOSITORY"] = c.repo
				refused(t, h, h.run("kubernetes/scripts/"+r.script, env, r.paths...), c.want)
				if got := h.read("/etc/containerd/config.toml"); got != c.conf {
					t.Errorf("the configuration changed:\n%s", got)
				}
				if calls := h.log(h.calls); strings.Contains(calls, "kubeadm upgrade") || strings.Contains(calls, "restart") {
					t.Errorf("the upgrade went on after the refusal:\n%s", calls)
				}
			})
		}
	}
}

// TestUpgradeSandboxImageRealTools: with the real kubeadm (bin/kubeadm,
// the version the tools module requires) answering config images list
// and Debian's real containerd answering config dump, the upgrade of the
// first master makes the sandbox image the pause image kubeadm lists
// under image_repository, in place of the older tag, and the evidence
// holds on what the real containerd dumps.
func TestUpgradeSandboxImageRealTools(t *testing.T) {
	bin := kubeadmBinary(t)
	version := kubeadmRequired(t)
	out, err := kubeadmOut(t, bin, "config", "images", "list", "--kubernetes-version", version, "--image-repository", imageRepo)
	if err != nil {
		t.Fatalf("kubeadm config images list: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(imageRepo) + `/pause:[A-Za-z0-9._-]+$`).FindString(out)
	if want == "" {
		t.Fatalf("the real kubeadm lists no pause image under %s:\n%s", imageRepo, out)
	}
	const older = imageRepo + "/pause:3.9" // what kubeadm 1.30 lists
	if want == older {
		t.Fatalf("the real kubeadm lists %s, the tag this test starts from", want)
	}
	r := upgradeRuns[0]
	h, env := upgradeHost(t, "m-1", "v1.33.6", "v1.33.6", "v1.33.6", "v1.33.6")
	env["CP_PARAM_KUBERNETES_VERSION"] = strings.TrimPrefix(version, "v")
	env["CP_PARAM_IMAGE_REPOSITORY"] = imageRepo
	conf := strings.Replace(containerdDefault(t), `sandbox_image = "registry.k8s.io/pause:3.6"`, `sandbox_image = "`+older+`"`, 1)
	h.write("/etc/containerd/config.toml", conf)
	// kubeadm sends no request with the network settings kubeadmOut uses.
	upgradeKubeadm(t, h, `exec env `+strings.Join(kubeadmNoNetwork, " ")+` "`+bin+`" "$@"`)
	h.stub("containerd", `case "$1 $2" in "config dump") exec /usr/bin/containerd --config "$HOME/etc/containerd/config.toml" config dump ;; esac`)
	res := h.run("kubernetes/scripts/"+r.script, env, r.paths...)
	succeeded(t, res)
	if got := tomlValue(h.read("/etc/containerd/config.toml"), `[plugins."io.containerd.grpc.v1.cri"]`, "sandbox_image"); got != want {
		t.Errorf("sandbox_image = %q after the upgrade, want %q, which the real kubeadm lists", got, want)
	}
	if !strings.Contains(res.stdout, "containerd's sandbox image is "+want) {
		t.Errorf("the script does not report the sandbox image read back:\n%s", res.stdout)
	}
	if ok, got := h.evidence("kubernetes/jobs/"+r.job, "containerd_sandbox_image", env); !ok {
		t.Errorf("containerd_sandbox_image fails (%q) on the real containerd's dump", got)
	}
	h.write("/etc/containerd/config.toml", conf)
	if ok, got := h.evidence("kubernetes/jobs/"+r.job, "containerd_sandbox_image", env); ok {
		t.Errorf("containerd_sandbox_image holds (%q) on the real containerd's dump of the older tag", got)
	}
}
