package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// containerdStub stands for containerd: `config default` prints a
// captured default (testdata/containerd), `config dump` the host's file.
func containerdStub(t *testing.T, h *scriptHost, defaultFile string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "containerd", defaultFile))
	if err != nil {
		t.Fatal(err)
	}
	body := "#!/bin/sh\ncase \"$1 $2\" in\n\"--version \") " + containerdReleaseSh + "; echo \"containerd github.com/containerd/containerd/v2 v$r\" ;;\n\"config default\") cat '" + abs + "' ;;\n\"config dump\") cat \"$HOME/etc/containerd/config.toml\" ;;\n*) exit 2 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(h.bin, "containerd"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// jobEvidence returns the evidence commands of a kubernetes job by id.
func jobEvidence(t *testing.T, job string) map[string]struct{ command, expected string } {
	t.Helper()
	var doc struct {
		Job struct {
			Outputs struct {
				Evidence []struct {
					ID       string `yaml:"id"`
					Command  string `yaml:"command"`
					Expected string `yaml:"expected"`
				} `yaml:"evidence"`
			} `yaml:"outputs"`
		} `yaml:"job"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join("builtin", "kubernetes", "jobs", job+".yaml"))), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]struct{ command, expected string }{}
	for _, e := range doc.Job.Outputs.Evidence {
		out[e.ID] = struct{ command, expected string }{e.Command, e.Expected}
	}
	return out
}

// evidenceOn runs an evidence command under sh with the host's stubs.
func evidenceOn(t *testing.T, h *scriptHost, command string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = []string{"PATH=" + h.bin + ":/usr/bin:/bin", "HOME=" + h.root, "LC_ALL=C", "CP_TEST_CALLS=" + h.calls}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("evidence %q: %v", command, err)
	}
	return strings.TrimSpace(string(out))
}

// install-container-runtime replaces Debian 12's shipped config.toml with
// containerd's default set for kubelet, for config version 2 (Debian's
// containerd 1.6.20) and 3 (containerd 2.x), and its evidence reads the
// result; on the shipped file the same evidence fails.
func TestInstallContainerRuntimeConfig(t *testing.T) {
	for _, c := range []struct {
		name, def, runc, cni, binKey, binVal, registry string
	}{
		{"v2-containerd-1.6", "debian12-1.6.20-config-default.toml",
			`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]`, `[plugins."io.containerd.grpc.v1.cri".cni]`,
			"bin_dir", `"/opt/cni/bin"`, `[plugins."io.containerd.grpc.v1.cri".registry]`},
		{"v3-containerd-2.x", "v3-config-default.toml",
			`[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]`, `[plugins.'io.containerd.cri.v1.runtime'.cni]`,
			"bin_dirs", `["/opt/cni/bin"]`, `[plugins.'io.containerd.cri.v1.images'.registry]`},
		// containerd 2.2.9's own default: an empty bin_dir before bin_dirs.
		{"v3-containerd-2.2.9", "v3-2.2.9-config-default.toml",
			`[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]`, `[plugins.'io.containerd.cri.v1.runtime'.cni]`,
			"bin_dirs", `["/opt/cni/bin"]`, `[plugins.'io.containerd.cri.v1.images'.registry]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			containerdStub(t, h, c.def)
			shipped := readFile(t, filepath.Join("testdata", "containerd", "debian12-shipped-config.toml"))
			h.write("/etc/containerd/config.toml", shipped)
			ev := jobEvidence(t, "install-container-runtime")
			// The shipped file: cgroupfs (no SystemdCgroup) and /usr/lib/cni.
			if got := evidenceOn(t, h, ev["containerd_systemd_cgroup"].command); got == "true" {
				t.Fatalf("containerd_systemd_cgroup holds on Debian's shipped file")
			}
			if got := evidenceOn(t, h, ev["containerd_cni_bin_dir"].command); got != "/usr/lib/cni" {
				t.Fatalf("containerd_cni_bin_dir on the shipped file = %q, want /usr/lib/cni", got)
			}

			succeeded(t, h.run("kubernetes/scripts/install-container-runtime.sh", packEnv(t, "kubernetes", nil), "/etc/containerd", "/etc/crictl.yaml", "/etc/apt"))
			conf := h.read("/etc/containerd/config.toml")
			for table, kv := range map[string][2]string{
				c.runc:     {"SystemdCgroup", "true"},
				c.cni:      {c.binKey, c.binVal},
				c.registry: {"config_path", `"` + h.root + `/etc/containerd/certs.d"`},
			} {
				if got := tableValue(conf, table, kv[0]); got != kv[1] {
					t.Errorf("%s %s = %q, want %s\n%s", table, kv[0], got, kv[1], conf)
				}
			}
			if got := tableValue(conf, c.cni, "conf_dir"); got != `"/etc/cni/net.d"` {
				t.Errorf("%s conf_dir = %q", c.cni, got)
			}
			if h.read("/etc/containerd/config.toml.cp-previous") != shipped {
				t.Errorf("the shipped file was not kept as config.toml.cp-previous")
			}
			for id, want := range map[string]string{"containerd_systemd_cgroup": "true", "containerd_cni_bin_dir": "/opt/cni/bin"} {
				if ev[id].expected != want {
					t.Fatalf("%s expects %q, want %q", id, ev[id].expected, want)
				}
				if got := evidenceOn(t, h, ev[id].command); got != want {
					t.Errorf("evidence %s = %q, want %q", id, got, want)
				}
			}
			// A second run changes nothing and restarts nothing.
			calls := h.log(h.calls)
			succeeded(t, h.run("kubernetes/scripts/install-container-runtime.sh", packEnv(t, "kubernetes", nil), "/etc/containerd", "/etc/crictl.yaml", "/etc/apt"))
			if again := h.read("/etc/containerd/config.toml"); again != conf {
				t.Errorf("a second run changed the config")
			}
			if strings.Contains(strings.TrimPrefix(h.log(h.calls), calls), "systemctl restart containerd") {
				t.Errorf("a second run restarted containerd")
			}
		})
	}
}

// configure-registry-mirror sets config_path in the registry table of
// either config version, and its evidence reads it.
func TestRegistryMirrorConfigPath(t *testing.T) {
	for _, c := range []struct{ name, conf, table string }{
		{"version 2", "version = 2\n\n[plugins]\n  [plugins.\"io.containerd.grpc.v1.cri\".registry]\n    config_path = \"\"\n", `[plugins."io.containerd.grpc.v1.cri".registry]`},
		{"version 3", "version = 3\n\n[plugins]\n  [plugins.'io.containerd.cri.v1.images'.registry]\n    config_path = ''\n", `[plugins.'io.containerd.cri.v1.images'.registry]`},
		{"version 3 without the table", "version = 3\n", `[plugins."io.containerd.cri.v1.images".registry]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			containerdStub(t, h, "v3-config-default.toml")
			h.write("/etc/containerd/config.toml", c.conf)
			ev := jobEvidence(t, "configure-registry-mirror")["containerd_config_path_set"]
			if got := evidenceOn(t, h, ev.command); got == ev.expected {
				t.Fatalf("containerd_config_path_set holds before the job")
			}
			env := packEnv(t, "kubernetes", map[string]string{"registry_mirrors": "https://mirror.gcr.io"})
			succeeded(t, h.run("kubernetes/scripts/configure-registry-mirror.sh", env, "/etc/containerd"))
			conf := h.read("/etc/containerd/config.toml")
			if got := tableValue(conf, c.table, "config_path"); got != `"`+h.root+`/etc/containerd/certs.d"` {
				t.Errorf("%s config_path = %q\n%s", c.table, got, conf)
			}
			// The evidence names the real path; the rewritten one stands in.
			if got := evidenceOn(t, h, strings.ReplaceAll(ev.command, "containerd config dump", "containerd config dump | sed 's#"+h.root+"##'")); got != ev.expected {
				t.Errorf("evidence containerd_config_path_set = %q, want %q", got, ev.expected)
			}
		})
	}
}

// tableValue returns KEY's raw value in TABLE of a TOML text ("" when
// absent), headers compared without spaces.
func tableValue(doc, table, key string) string {
	want := strings.ReplaceAll(table, " ", "")
	cur := ""
	for _, line := range strings.Split(doc, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[[") {
			cur = strings.ReplaceAll(l, " ", "")
			continue
		}
		if k, v, ok := strings.Cut(l, "="); ok && cur == want && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
