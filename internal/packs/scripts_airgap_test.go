package packs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Air-gapped installs of the kubernetes pack: the Kubernetes apt
// repository and its key, the image repository of kubeadm and of
// containerd's sandbox image, and the Longhorn chart from a mirror or an
// archive on the first master, checked by digest before helm runs.

const (
	mirrorRepo = "https://apt.mirror.internal/k8s/v{minor}/deb/"
	mirrorKey  = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmirror key\n-----END PGP PUBLIC KEY BLOCK-----\n"
	imageRepo  = "registry.mirror.internal:5000/k8s"
)

// gpgToFile makes gpg write what it reads to its -o file, so a test sees
// which key was dearmored into the keyring.
func gpgToFile(h *scriptHost) {
	h.stub("gpg", `out=; while [ $# -gt 0 ]; do [ "$1" != -o ] || out=$2; shift; done; cat >"$out"`)
}

// aptSourceRuns runs each script that writes the Kubernetes apt source on
// a host set up for it, with set over the pack defaults, and hands the
// host and result to check.
func aptSourceRuns(t *testing.T, set map[string]string, prep func(h *scriptHost), check func(t *testing.T, h *scriptHost, res scriptResult)) {
	t.Helper()
	withSet := func(env map[string]string) map[string]string {
		for k, v := range packEnv(t, "kubernetes", set) {
			if _, ok := set[strings.ToLower(strings.TrimPrefix(k, "CP_PARAM_"))]; ok {
				env[k] = v
			}
		}
		return env
	}
	for _, script := range []string{"install-kubernetes-packages.sh", "prepare-kubernetes-prerequisites.sh"} {
		t.Run(script, func(t *testing.T) {
			h := newScriptHost(t)
			h.write("/etc/apt/sources.list.d/.keep", "")
			h.write("/etc/apt/keyrings/.keep", "")
			gpgToFile(h)
			prep(h)
			env := withSet(packEnv(t, "kubernetes", map[string]string{"storage": "none"}))
			paths := []string{"/etc/apt"}
			if script == "prepare-kubernetes-prerequisites.sh" {
				paths = append(paths, "/etc/modules-load.d/kubernetes.conf", "/etc/sysctl.d/99-kubernetes.conf", "/etc/fstab", "/etc/containerd", "/etc/crictl.yaml")
				h.write("/etc/fstab", "")
				h.write("/etc/containerd/config.toml", "version = 2\n")
			}
			check(t, h, h.run("kubernetes/scripts/"+script, env, paths...))
		})
	}
	t.Run("upgrade-control-plane.sh", func(t *testing.T) {
		h, env := upgradeHost(t, "m-1", "v1.33.6", "v1.33.6", "v1.33.6", "v1.33.6")
		gpgToFile(h)
		prep(h)
		check(t, h, h.run("kubernetes/scripts/upgrade-control-plane.sh", withSet(env), upgradePaths...))
	})
	t.Run("upgrade-node.sh", func(t *testing.T) {
		h, env := upgradeHost(t, "node-1", "v1.33.6", "v1.33.6", "v1.34.2", "v1.34.2")
		env["CP_HOST_ROLE"] = "worker"
		gpgToFile(h)
		prep(h)
		check(t, h, h.run("kubernetes/scripts/upgrade-node.sh", withSet(env), "/etc/apt"))
	})
}

// TestAirgapKubernetesAptRepository: with kubernetes_apt_repository and a
// kubernetes_apt_key path, every script that writes the Kubernetes apt
// source names the mirror (its {minor} replaced) and the keyring, and the
// keyring is the key file dearmored, with no download; with a key URL the
// key is downloaded from it; without a key, from Release.key under the
// mirror; a key path that does not exist fails before the source changes.
func TestAirgapKubernetesAptRepository(t *testing.T) {
	wantLine := func(h *scriptHost) string {
		return "deb [signed-by=" + h.root + "/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://apt.mirror.internal/k8s/v1.34/deb/ /\n"
	}
	keyPath := func(h *scriptHost) string { return h.path("/srv/keys/kubernetes.asc") }

	t.Run("key path", func(t *testing.T) {
		var h0 *scriptHost
		set := map[string]string{"kubernetes_apt_repository": mirrorRepo}
		aptSourceRuns(t, set, func(h *scriptHost) {
			h0 = h
			h.write("/srv/keys/kubernetes.asc", mirrorKey)
			set["kubernetes_apt_key"] = keyPath(h)
		}, func(t *testing.T, h *scriptHost, res scriptResult) {
			succeeded(t, res)
			if h != h0 {
				t.Fatal("the host changed between prep and check")
			}
			if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != wantLine(h) {
				t.Errorf("kubernetes.list = %q, want %q", got, wantLine(h))
			}
			if got := h.read("/etc/apt/keyrings/kubernetes-apt-keyring.gpg"); got != mirrorKey {
				t.Errorf("keyring = %q, want the key file dearmored", got)
			}
			calls := h.log(h.calls)
			if strings.Contains(calls, "curl") || strings.Contains(calls, "pkgs.k8s.io") {
				t.Errorf("a key was downloaded, or upstream named, with a key path:\n%s", calls)
			}
			if !strings.Contains(calls, "gpg --dearmor --yes -o "+h.root+"/etc/apt/keyrings/kubernetes-apt-keyring.gpg") {
				t.Errorf("no gpg --dearmor into the keyring:\n%s", calls)
			}
		})
	})

	t.Run("key URL", func(t *testing.T) {
		set := map[string]string{"kubernetes_apt_repository": mirrorRepo, "kubernetes_apt_key": "https://apt.mirror.internal/keys/kubernetes.asc"}
		aptSourceRuns(t, set, func(*scriptHost) {}, func(t *testing.T, h *scriptHost, res scriptResult) {
			succeeded(t, res)
			if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != wantLine(h) {
				t.Errorf("kubernetes.list = %q, want %q", got, wantLine(h))
			}
			if calls := h.log(h.calls); !strings.Contains(calls, "curl -fsSL https://apt.mirror.internal/keys/kubernetes.asc\n") || strings.Contains(calls, "Release.key") {
				t.Errorf("the key was not downloaded from kubernetes_apt_key:\n%s", calls)
			}
		})
	})

	t.Run("key under the mirror", func(t *testing.T) {
		aptSourceRuns(t, map[string]string{"kubernetes_apt_repository": mirrorRepo}, func(*scriptHost) {}, func(t *testing.T, h *scriptHost, res scriptResult) {
			succeeded(t, res)
			if calls := h.log(h.calls); !strings.Contains(calls, "curl -fsSL https://apt.mirror.internal/k8s/v1.34/deb/Release.key\n") || strings.Contains(calls, "pkgs.k8s.io") {
				t.Errorf("the key was not downloaded from Release.key under the mirror:\n%s", calls)
			}
		})
	})

	t.Run("missing key path", func(t *testing.T) {
		set := map[string]string{"kubernetes_apt_repository": mirrorRepo}
		aptSourceRuns(t, set, func(h *scriptHost) { set["kubernetes_apt_key"] = keyPath(h) }, func(t *testing.T, h *scriptHost, res scriptResult) {
			refused(t, h, res, "kubernetes_apt_key "+keyPath(h)+" does not exist")
			if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != "" {
				t.Errorf("kubernetes.list written without its key: %q", got)
			}
			if strings.Contains(h.log(h.calls), "apt-get install") {
				t.Error("packages installed without the key")
			}
		})
	})

	t.Run("refused values", func(t *testing.T) {
		for name, set := range map[string]map[string]string{
			"repository without a trailing /": {"kubernetes_apt_repository": "https://apt.mirror.internal/k8s"},
			"repository with a space":         {"kubernetes_apt_repository": "https://apt.mirror.internal/k8s/ ./"},
			"key option":                      {"kubernetes_apt_key": "-o/etc/shadow"},
		} {
			t.Run(name, func(t *testing.T) {
				aptSourceRuns(t, set, func(*scriptHost) {}, func(t *testing.T, h *scriptHost, res scriptResult) {
					for k := range set {
						refused(t, h, res, k+" ")
					}
					if got := h.read("/etc/apt/sources.list.d/kubernetes.list"); got != "" {
						t.Errorf("kubernetes.list written for a refused value: %q", got)
					}
				})
			})
		}
	})
}

// TestAirgapImageRepositoryKubeadm: image_repository is the
// ClusterConfiguration's imageRepository; without it there is none.
func TestAirgapImageRepositoryKubeadm(t *testing.T) {
	const script = "kubernetes/scripts/render-kubeadm-config.sh"
	for _, c := range []struct{ repo, want string }{{imageRepo, imageRepo}, {"", ""}} {
		h := newScriptHost(t)
		succeeded(t, h.run(script, packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod", "control_plane_endpoint": "10.0.0.10:6443", "image_repository": c.repo}), "/var/lib/cp"))
		docs := yamlDocs(t, h.read("/var/lib/cp/kubernetes/kubeadm-cluster.yaml"))
		got, ok := docs[0]["imageRepository"]
		if c.want == "" && ok {
			t.Errorf("imageRepository %v rendered without image_repository", got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("imageRepository = %v, want %s", got, c.want)
		}
	}
	// The evidence reads the repository from the rendered file.
	const job = "kubernetes/jobs/render-kubeadm-config.yaml"
	const file = "/var/lib/cp/kubernetes/kubeadm-cluster.yaml"
	h := newScriptHost(t)
	env := packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod", "control_plane_endpoint": "10.0.0.10:6443", "image_repository": imageRepo})
	succeeded(t, h.run(script, env, "/var/lib/cp"))
	if ok, got := h.evidence(job, "kubeadm_image_repository", env, file); !ok {
		t.Errorf("kubeadm_image_repository fails (%q) on the rendered configuration", got)
	}
	h.write(file, strings.Replace(h.read(file), "imageRepository: \""+imageRepo+"\"\n", "", 1))
	if ok, _ := h.evidence(job, "kubeadm_image_repository", env, file); ok {
		t.Error("kubeadm_image_repository holds on a configuration without imageRepository")
	}
	if ok, got := h.evidence(job, "kubeadm_image_repository", packEnv(t, "kubernetes", nil), file); !ok {
		t.Errorf("kubeadm_image_repository fails (%q) without image_repository", got)
	}

	h = newScriptHost(t)
	refused(t, h, h.run(script, packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod", "control_plane_endpoint": "10.0.0.10:6443", "image_repository": "registry.internal\nimageRepository: evil.example"}), "/var/lib/cp"),
		"image_repository ")
	if h.exists("/var/lib/cp/kubernetes/kubeadm-cluster.yaml") {
		t.Error("a configuration was rendered for a refused image_repository")
	}
}

// v3Config is the part of containerd 2.x's default configuration (config
// version 3) that holds the sandbox image.
const v3Config = `version = 3

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'

    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = 'registry.k8s.io/pause:3.10'

    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = '/etc/containerd/certs.d'
`

// kubeadmImages stubs kubeadm config images list as the real one answers
// (repository/NAME:TAG for a repository given with --image-repository).
func kubeadmImages(h *scriptHost) {
	h.stub("kubeadm", `case " $* " in *" images list "*)
  r=registry.k8s.io; while [ $# -gt 0 ]; do [ "$1" != --image-repository ] || r=$2; shift; done
  printf '%s\n' "$r/kube-apiserver:v1.34.2" "$r/coredns:v1.12.1" "$r/pause:3.10.1" "$r/etcd:3.6.5-0" ;;
esac`)
}

// TestAirgapImageRepositorySandbox: with image_repository, containerd's
// sandbox image becomes the pause image kubeadm lists under it, in
// sandbox_image (containerd 1.6/1.7, Debian's real default configuration)
// or pinned_images.sandbox (2.x), and containerd restarts; without it the
// configuration stays as it was and kubeadm is not asked.
func TestAirgapImageRepositorySandbox(t *testing.T) {
	def := containerdDefault(t)
	for _, script := range []string{"install-kubernetes-packages.sh", "prepare-kubernetes-prerequisites.sh"} {
		for _, c := range []struct {
			name, conf, table, key string
		}{
			{"containerd 1.x", def, `[plugins."io.containerd.grpc.v1.cri"]`, "sandbox_image"},
			{"containerd 2.x", v3Config, `[plugins.'io.containerd.cri.v1.images'.pinned_images]`, "sandbox"},
		} {
			t.Run(script+"/"+c.name, func(t *testing.T) {
				run := func(repo string) *scriptHost {
					h := newScriptHost(t)
					h.write("/etc/apt/sources.list.d/.keep", "")
					h.write("/etc/fstab", "")
					h.write("/etc/containerd/config.toml", c.conf)
					kubeadmImages(h)
					paths := []string{"/etc/apt", "/etc/containerd"}
					if script == "prepare-kubernetes-prerequisites.sh" {
						paths = append(paths, "/etc/modules-load.d/kubernetes.conf", "/etc/sysctl.d/99-kubernetes.conf", "/etc/fstab", "/etc/crictl.yaml")
					}
					succeeded(t, h.run("kubernetes/scripts/"+script, packEnv(t, "kubernetes", map[string]string{"storage": "none", "image_repository": repo}), paths...))
					return h
				}
				h := run(imageRepo)
				conf := h.read("/etc/containerd/config.toml")
				want := imageRepo + "/pause:3.10.1"
				if got := tomlValue(conf, c.table, c.key); got != want {
					t.Errorf("%s %s = %q, want %q\n%s", c.table, c.key, got, want, conf)
				}
				calls := h.log(h.calls)
				if !strings.Contains(calls, "kubeadm config images list --kubernetes-version v1.34.2 --image-repository "+imageRepo+"\n") {
					t.Errorf("kubeadm was not asked for the images of the repository:\n%s", calls)
				}
				if !strings.Contains(calls, "systemctl restart containerd") {
					t.Errorf("containerd not restarted with the new sandbox image:\n%s", calls)
				}
				if strings.Count(conf, c.key+" = ") != 1 {
					t.Errorf("%s set more than once:\n%s", c.key, conf)
				}
				job := "kubernetes/jobs/" + strings.TrimSuffix(script, ".sh") + ".yaml"
				repoEnv := packEnv(t, "kubernetes", map[string]string{"image_repository": imageRepo})
				if ok, got := h.evidence(job, "containerd_sandbox_image", repoEnv); !ok {
					t.Errorf("containerd_sandbox_image fails (%q) with the sandbox image from the repository", got)
				}
				h.write("/etc/containerd/config.toml", strings.Replace(conf, want, "registry.k8s.io/pause:3.10.1", 1))
				if ok, got := h.evidence(job, "containerd_sandbox_image", repoEnv); ok || !strings.Contains(got, "elsewhere registry.k8s.io/pause:3.10.1") {
					t.Errorf("containerd_sandbox_image holds (%q) with the sandbox image from registry.k8s.io", got)
				}

				h = run("")
				if got := h.read("/etc/containerd/config.toml"); got != c.conf && script == "install-kubernetes-packages.sh" {
					t.Errorf("the configuration changed without image_repository:\n%s", got)
				}
				if calls := h.log(h.calls); strings.Contains(calls, "images list") {
					t.Errorf("kubeadm asked for images without image_repository:\n%s", calls)
				}
				if ok, got := h.evidence(job, "containerd_sandbox_image", packEnv(t, "kubernetes", nil)); !ok {
					t.Errorf("containerd_sandbox_image fails (%q) without image_repository", got)
				}
			})
		}
	}

	// kubeadm listing no pause image under the repository fails, naming it.
	h := newScriptHost(t)
	h.write("/etc/apt/sources.list.d/.keep", "")
	h.write("/etc/containerd/config.toml", def)
	h.stub("kubeadm", `case " $* " in *" images list "*) echo registry.k8s.io/pause:3.10.1 ;; esac`)
	refused(t, h, h.run("kubernetes/scripts/install-kubernetes-packages.sh", packEnv(t, "kubernetes", map[string]string{"storage": "none", "image_repository": imageRepo}), "/etc/apt", "/etc/containerd"),
		"kubeadm lists no pause image under image_repository "+imageRepo)
	if got := h.read("/etc/containerd/config.toml"); got != def {
		t.Error("the configuration changed though kubeadm listed no pause image under the repository")
	}
}

// containerdDefault is what Debian's real containerd (scripts/prereqs.sh
// installs it) prints for containerd config default: config version 2.
func containerdDefault(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("/usr/bin/containerd", "config", "default").Output()
	if err != nil {
		t.Fatalf("/usr/bin/containerd config default: %v (scripts/prereqs.sh installs containerd)", err)
	}
	return string(out)
}

// tomlValue is KEY's value in TABLE (a header as written) of conf, quotes
// removed.
func tomlValue(conf, table, key string) string {
	in := false
	for _, l := range strings.Split(conf, "\n") {
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "[") {
			in = s == table
			continue
		}
		if k, v, ok := strings.Cut(s, "="); in && ok && strings.TrimSpace(k) == key {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// chartTgz is a chart archive holding longhorn/Chart.yaml of version.
func chartTgz(t *testing.T, version string) []byte {
	t.Helper()
	meta := "apiVersion: v2\nname: longhorn\nversion: " + version + "\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "longhorn/Chart.yaml", Mode: 0o644, Size: int64(len(meta)), ModTime: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(meta)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestAirgapLonghornChart: longhorn_chart as an archive path is copied,
// checked with sha256sum -c against longhorn_chart_sha256 and installed
// from the copy, without --repo; a wrong digest, a missing path, a file
// that is no chart or a chart of another version fails before helm
// installs anything; a repository URL with a digest is pulled, checked
// and installed from the file; a repository URL without one is installed
// from the repository, as before, from the mirror when one is given.
func TestAirgapLonghornChart(t *testing.T) {
	const script = "kubernetes/scripts/install-storage.sh"
	chart := chartTgz(t, "1.7.2")
	digest := sha256Hex(chart)
	host := func(t *testing.T) *scriptHost {
		h := newScriptHost(t)
		h.write("/srv/charts/longhorn-1.7.2.tgz", string(chart))
		h.write("/.pulled.tgz", string(chart))
		h.stub("helm", `case "$1" in pull)
  while [ $# -gt 0 ]; do [ "$1" != --destination ] || cp "`+h.path("/.pulled.tgz")+`" "$2/longhorn-1.7.2.tgz"; shift; done ;;
esac`)
		return h
	}
	env := func(set map[string]string) map[string]string {
		set["storage"] = "longhorn"
		e := packEnv(t, "kubernetes", set)
		e["CP_HOSTS"] = "master-1 10.0.0.1 master,worker-1 10.0.0.11 worker"
		return e
	}
	upgrade := func(calls string) string {
		for _, l := range strings.Split(calls, "\n") {
			if strings.HasPrefix(l, "helm upgrade ") {
				return l
			}
		}
		return ""
	}
	installedFromCopy := func(t *testing.T, h *scriptHost, src string) {
		t.Helper()
		u := upgrade(h.log(h.calls))
		if !strings.HasPrefix(u, "helm upgrade --install longhorn "+h.root+"/.tmp/") || !strings.Contains(u, "/longhorn.tgz --namespace longhorn-system ") ||
			strings.Contains(u, "--repo") || strings.Contains(u, src) {
			t.Errorf("helm was not given the checked copy of the chart, without --repo: %q", u)
		}
	}

	t.Run("archive path with its digest", func(t *testing.T) {
		h := host(t)
		src := h.path("/srv/charts/longhorn-1.7.2.tgz")
		res := h.run(script, env(map[string]string{"longhorn_chart": src, "longhorn_chart_sha256": digest}))
		succeeded(t, res)
		installedFromCopy(t, h, src)
		if !strings.Contains(res.stdout, src+" matches longhorn_chart_sha256") {
			t.Errorf("no word of the check:\n%s", res.stdout)
		}
	})
	t.Run("archive path without a digest", func(t *testing.T) {
		h := host(t)
		src := h.path("/srv/charts/longhorn-1.7.2.tgz")
		succeeded(t, h.run(script, env(map[string]string{"longhorn_chart": src})))
		installedFromCopy(t, h, src)
	})
	t.Run("repository with a digest", func(t *testing.T) {
		h := host(t)
		succeeded(t, h.run(script, env(map[string]string{"longhorn_chart": "http://10.0.0.5:8080/charts", "longhorn_chart_sha256": digest})))
		calls := h.log(h.calls)
		if !strings.Contains(calls, "helm pull longhorn --repo http://10.0.0.5:8080/charts --version 1.7.2 --destination "+h.root+"/.tmp/") {
			t.Errorf("the chart was not pulled from the repository:\n%s", calls)
		}
		installedFromCopy(t, h, "http://10.0.0.5:8080/charts")
	})
	t.Run("repository without a digest", func(t *testing.T) {
		for repo, want := range map[string]string{
			"":                            "helm upgrade --install longhorn longhorn --repo https://charts.longhorn.io --version 1.7.2 --namespace longhorn-system ",
			"http://10.0.0.5:8080/charts": "helm upgrade --install longhorn longhorn --repo http://10.0.0.5:8080/charts --version 1.7.2 --namespace longhorn-system ",
		} {
			h := host(t)
			set := map[string]string{}
			if repo != "" {
				set["longhorn_chart"] = repo
			}
			succeeded(t, h.run(script, env(set)))
			calls := h.log(h.calls)
			if u := upgrade(calls); !strings.HasPrefix(u, want) {
				t.Errorf("longhorn_chart %q: %q, want %q", repo, u, want)
			}
			if strings.Contains(calls, "helm pull") {
				t.Errorf("longhorn_chart %q without a digest pulled the chart:\n%s", repo, calls)
			}
		}
	})

	for name, c := range map[string]struct {
		set  func(h *scriptHost) map[string]string
		want func(h *scriptHost) string
	}{
		"wrong digest of the archive": {
			func(h *scriptHost) map[string]string {
				return map[string]string{"longhorn_chart": h.path("/srv/charts/longhorn-1.7.2.tgz"), "longhorn_chart_sha256": strings.Repeat("0", 64)}
			},
			func(h *scriptHost) string {
				return "has sha256 " + digest + ", not longhorn_chart_sha256 " + strings.Repeat("0", 64) + "; nothing was installed"
			},
		},
		"wrong digest of the pulled chart": {
			func(h *scriptHost) map[string]string {
				return map[string]string{"longhorn_chart": "https://charts.longhorn.io", "longhorn_chart_sha256": strings.Repeat("1", 64)}
			},
			func(h *scriptHost) string { return "not longhorn_chart_sha256 " + strings.Repeat("1", 64) },
		},
		"missing archive": {
			func(h *scriptHost) map[string]string {
				return map[string]string{"longhorn_chart": h.path("/srv/charts/missing.tgz")}
			},
			func(h *scriptHost) string {
				return "longhorn_chart " + h.path("/srv/charts/missing.tgz") + " does not exist"
			},
		},
		"not a chart": {
			func(h *scriptHost) map[string]string {
				h.write("/srv/charts/junk.tgz", "junk")
				return map[string]string{"longhorn_chart": h.path("/srv/charts/junk.tgz")}
			},
			func(h *scriptHost) string { return "is not an archive of the chart longhorn" },
		},
		"another version": {
			func(h *scriptHost) map[string]string {
				h.write("/srv/charts/old.tgz", string(chartTgz(t, "1.6.0")))
				return map[string]string{"longhorn_chart": h.path("/srv/charts/old.tgz")}
			},
			func(h *scriptHost) string { return `is version "1.6.0", not longhorn_version 1.7.2` },
		},
		"not a digest": {
			func(h *scriptHost) map[string]string {
				return map[string]string{"longhorn_chart_sha256": digest[:63] + "Z;touch " + h.canary}
			},
			func(h *scriptHost) string { return "longhorn_chart_sha256 " },
		},
		"an option for a chart": {
			func(h *scriptHost) map[string]string {
				return map[string]string{"longhorn_chart": "--repo=https://evil.example"}
			},
			func(h *scriptHost) string { return "longhorn_chart " },
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := host(t)
			refused(t, h, h.run(script, env(c.set(h))), c.want(h))
			if u := upgrade(h.log(h.calls)); u != "" {
				t.Errorf("helm ran after the refusal: %s", u)
			}
		})
	}
}

// TestAirgapRealKubeadmPauseImage: the real kubeadm lists its pause image
// under --image-repository as the line the scripts take for containerd's
// sandbox image, and the rendered ClusterConfiguration with
// image_repository gives kubeadm that repository for every image.
func TestAirgapRealKubeadmPauseImage(t *testing.T) {
	bin := kubeadmBinary(t)
	out, err := kubeadmOut(t, bin, "config", "images", "list", "--kubernetes-version", kubeadmRequired(t), "--image-repository", imageRepo)
	if err != nil {
		t.Fatalf("kubeadm config images list --image-repository: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(imageRepo) + `/pause:[A-Za-z0-9._-]+$`).MatchString(out) {
		t.Errorf("no %s/pause:TAG line in:\n%s", imageRepo, out)
	}
	h := newScriptHost(t)
	succeeded(t, h.run("kubernetes/scripts/render-kubeadm-config.sh", packEnv(t, "kubernetes", map[string]string{"cluster_name": "prod",
		"control_plane_endpoint": "10.0.0.10:6443", "image_repository": imageRepo, "kubernetes_version": strings.TrimPrefix(kubeadmRequired(t), "v")}), "/var/lib/cp"))
	out, err = kubeadmOut(t, bin, "config", "images", "list", "--config", h.path("/var/lib/cp/kubernetes/kubeadm-cluster.yaml"))
	if err != nil {
		t.Fatalf("kubeadm config images list --config: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, imageRepo+"/") {
			t.Errorf("with the rendered configuration kubeadm pulls %q, not from %s", l, imageRepo)
		}
	}
}

// TestAirgapHelmAptRepository: a master without helm installs it from
// helm_apt_repository, signed by helm_apt_key dearmored from its path (no
// download) or URL; without them from Helm's own repository, as before; a
// missing key path fails before the source is written; a worker installs
// no helm.
func TestAirgapHelmAptRepository(t *testing.T) {
	const script = "kubernetes/scripts/install-kubernetes-packages.sh"
	const list = "/etc/apt/sources.list.d/helm-stable-debian.list"
	host := func(t *testing.T) *scriptHost {
		h := newScriptHost(t)
		if err := os.Remove(filepath.Join(h.bin, "helm")); err != nil {
			t.Fatal(err)
		}
		h.write("/etc/apt/sources.list.d/.keep", "")
		h.write("/srv/keys/helm.asc", mirrorKey)
		gpgToFile(h)
		return h
	}
	env := func(set map[string]string) map[string]string {
		set["storage"] = "none"
		e := packEnv(t, "kubernetes", set)
		e["CP_HOST_ROLE"] = "master"
		return e
	}
	paths := []string{"/etc/apt", "/usr/share/keyrings/helm.gpg"}
	keyring := func(h *scriptHost) string { return h.root + "/usr/share/keyrings/helm.gpg" }

	h := host(t)
	succeeded(t, h.run(script, env(map[string]string{"helm_apt_repository": "http://10.0.0.5:8080/helm/", "helm_apt_key": h.path("/srv/keys/helm.asc")}), paths...))
	if got, want := h.read(list), "deb [signed-by="+keyring(h)+"] http://10.0.0.5:8080/helm/ any main\n"; got != want {
		t.Errorf("%s = %q, want %q", list, got, want)
	}
	if got := h.read("/usr/share/keyrings/helm.gpg"); got != mirrorKey {
		t.Errorf("helm keyring = %q, want the key file dearmored", got)
	}
	calls := h.log(h.calls)
	if strings.Contains(calls, "curl -fsSL http://10.0.0.5") || strings.Contains(calls, "helm-debian") || !strings.Contains(calls, "apt-get install -y helm") {
		t.Errorf("with a key path: a download, or no helm install:\n%s", calls)
	}

	h = host(t)
	succeeded(t, h.run(script, env(map[string]string{"helm_apt_repository": "http://10.0.0.5:8080/helm/", "helm_apt_key": "http://10.0.0.5:8080/helm/gpgkey"}), paths...))
	if calls := h.log(h.calls); !strings.Contains(calls, "curl -fsSL http://10.0.0.5:8080/helm/gpgkey\n") {
		t.Errorf("the key was not downloaded from helm_apt_key:\n%s", calls)
	}

	h = host(t)
	succeeded(t, h.run(script, env(map[string]string{}), paths...))
	const upstream = "https://packages.buildkite.com/helm-linux/helm-debian/"
	if got, want := h.read(list), "deb [signed-by="+keyring(h)+"] "+upstream+"any/ any main\n"; got != want {
		t.Errorf("default %s = %q, want %q", list, got, want)
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "curl -fsSL "+upstream+"gpgkey\n") {
		t.Errorf("the default key was not downloaded:\n%s", calls)
	}

	h = host(t)
	refused(t, h, h.run(script, env(map[string]string{"helm_apt_key": h.path("/srv/keys/missing.asc")}), paths...), "helm_apt_key "+h.path("/srv/keys/missing.asc")+" does not exist")
	if h.exists(list) {
		t.Errorf("%s written without its key", list)
	}
	h = host(t)
	refused(t, h, h.run(script, env(map[string]string{"helm_apt_repository": "http://10.0.0.5/helm/ any main\ndeb http://evil.example/ /"}), paths...), "helm_apt_repository ")
	if h.exists(list) {
		t.Errorf("%s written for a refused repository", list)
	}

	h = host(t)
	e := env(map[string]string{"helm_apt_repository": "http://10.0.0.5:8080/helm/"})
	e["CP_HOST_ROLE"] = "worker"
	succeeded(t, h.run(script, e, paths...))
	if h.exists(list) {
		t.Error("a worker got the helm source")
	}
}
