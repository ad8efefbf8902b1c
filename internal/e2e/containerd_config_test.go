package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestDebianContainerdRefused: with containerd_source = distribution a
// test host meets Debian 12's real containerd package (installed on the
// machine by scripts/prereqs.sh): 1.6.20, below the 1.6.39 containerd's
// RELEASES.md recommends for Kubernetes 1.34 (and below its minimum for
// every Kubernetes the pack installs, 1.30's 1.6.28 included), so
// install-container-runtime refuses it, naming both versions, before it
// changes anything: the package's own config.toml stays, nothing is held.
func TestDebianContainerdRefused(t *testing.T) {
	const name = "debian-ctrd"
	e := startHosts(t, name, "master-1")
	shipped := e.sudo(t, "master-1", "cat /etc/containerd/config.toml")
	if !strings.Contains(shipped, `bin_dir = "/usr/lib/cni"`) || strings.Contains(shipped, "SystemdCgroup") {
		t.Fatalf("the host does not start with Debian's shipped /etc/containerd/config.toml (is the containerd package installed on the machine? run scripts/prereqs.sh):\n%s", shipped)
	}
	if v := e.sudo(t, "master-1", "dpkg-query -W -f '${Version} ${Maintainer}' containerd"); !strings.HasPrefix(v, "1.6.") || strings.Contains(v, "cp-hostsim") {
		t.Fatalf("containerd package on the host: %q, want Debian's 1.6", v)
	}

	hosts := e.intentHosts([]string{"master-1"}, nil)
	req := e.clusterRequest("create", "1.34.2", hosts, nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"
	req.Intent.Parameters["containerd_source"] = "distribution"
	req.Intent.Parameters["containerd_version"] = "1.6"
	res := e.run(e.compose(req).Plan, engine.RunInput{})
	rt := instance(t, res, "install-container-runtime[master-1]")
	if rt.Status != engine.StatusFailed {
		t.Fatalf("install-container-runtime: %s, want failed on Debian's containerd 1.6.20\n%s", rt.Status, describe(res))
	}
	log := strings.Join(rt.LogTail, "\n")
	for _, want := range []string{"holds containerd 1.6.20", "Kubernetes 1.34", "1.6.39+", "set containerd_version"} {
		if !strings.Contains(log, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, log)
		}
	}
	if got := e.sudo(t, "master-1", "cat /etc/containerd/config.toml"); got != shipped {
		t.Errorf("the refused install changed config.toml:\n%s", got)
	}
	if held := e.sudo(t, "master-1", "apt-mark showhold"); strings.Contains(held, "containerd") {
		t.Errorf("the refused install held %q", held)
	}
}

// TestDockerContainerdPinned creates a one-master cluster with the default
// containerd_source (docker) on a test host: Docker's key (the real one,
// its fingerprint checked by the host's real gpg), the deb822 source, and
// containerd.io at the default containerd_version 2.2, whose candidate is
// the real containerd 2.2.9 built from containerd's Go module (make
// bin/containerd), unpacked over Debian's. On the node: containerd
// --version and the daemon (ctr version over the socket) are 2.2.9,
// apt-mark showhold lists containerd.io, containerd config dump (config
// version 3) has the systemd cgroup driver, the CNI directory and the
// registry config_path; and is-active follows the real daemon's process.
func TestDockerContainerdPinned(t *testing.T) {
	const name = "docker-ctrd"
	e := startHosts(t, name, "master-1")
	hosts := e.intentHosts([]string{"master-1"}, nil)
	req := e.clusterRequest("create", "1.34.2", hosts, nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"
	res := e.run(e.compose(req).Plan, engine.RunInput{})
	rt := instance(t, res, "install-container-runtime[master-1]")
	ev := map[string]protocol.EvidenceResult{}
	for _, x := range rt.Evidence {
		ev[x.ID] = x
	}
	for id, want := range map[string]string{"containerd_systemd_cgroup": "true", "containerd_cni_bin_dir": "/opt/cni/bin",
		"containerd_version_running": "match", "containerd_package_held": "held"} {
		if got := ev[id]; !got.Passed || strings.TrimSpace(got.Observed) != want {
			t.Errorf("install-container-runtime evidence %s: passed %v observed %q, want %q", id, got.Passed, got.Observed, want)
		}
	}
	requireCompleted(t, res)

	if v := e.sudo(t, "master-1", "containerd --version"); !strings.Contains(v, " v2.2.9") {
		t.Errorf("containerd --version = %q, want the built 2.2.9", v)
	}
	if v := e.sudo(t, "master-1", "ctr version"); !strings.Contains(v, "Server:\n  Version:  v2.2.9") {
		t.Errorf("ctr version does not reach a containerd 2.2.9 daemon:\n%s", v)
	}
	if held := e.sudo(t, "master-1", "apt-mark showhold"); !strings.Contains("\n"+held, "\ncontainerd.io\n") {
		t.Errorf("apt-mark showhold = %q, want containerd.io", held)
	}
	if v := e.sudo(t, "master-1", "dpkg-query -W -f '${Version}' containerd.io"); v != "2.2.9-1~debian.12~bookworm" {
		t.Errorf("containerd.io package version = %q", v)
	}
	if src := e.sudo(t, "master-1", "cat /etc/apt/sources.list.d/docker.sources"); !strings.Contains(src, "URIs: https://download.docker.com/linux/debian\nSuites: bookworm\nComponents: stable\n") {
		t.Errorf("docker.sources:\n%s", src)
	}
	dump := e.sudo(t, "master-1", "containerd config dump")
	if !strings.HasPrefix(strings.TrimSpace(dump), "version = 3") {
		t.Errorf("containerd config dump is not config version 3:\n%.400s", dump)
	}
	for table, kv := range map[string][2]string{
		`plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options`: {"SystemdCgroup", "true"},
		`plugins."io.containerd.cri.v1.runtime".cni`:                              {"bin_dirs", `["/opt/cni/bin"]`},
		`plugins."io.containerd.cri.v1.images".registry`:                          {"config_path", `"/etc/containerd/certs.d"`},
	} {
		if got := tomlValue(strings.ReplaceAll(dump, "'", `"`), table, kv[0]); got != kv[1] {
			t.Errorf("containerd config dump: [%s] %s = %q, want %s", table, kv[0], got, kv[1])
		}
	}
	if prev := e.sudo(t, "master-1", "cat /etc/containerd/config.toml.cp-previous"); !strings.Contains(prev, `disabled_plugins = ["cri"]`) {
		t.Errorf("Docker's package file (CRI disabled) is not kept beside the new one as config.toml.cp-previous:\n%s", prev)
	}

	// The daemon is the real one, and is-active follows its process.
	pid := strings.TrimSpace(e.sudo(t, "master-1", "cat /run/containerd/cp-hostsim-containerd.pid"))
	if _, err := strconv.Atoi(pid); err != nil {
		t.Fatalf("containerd pid file: %q", pid)
	}
	if got := strings.TrimSpace(e.sudo(t, "master-1", "systemctl is-active containerd")); got != "active" {
		t.Errorf("systemctl is-active containerd = %q while the daemon runs, want active", got)
	}
	e.sudo(t, "master-1", "kill "+pid+" && for i in $(seq 1 50); do kill -0 "+pid+" 2>/dev/null || break; sleep 0.2; done")
	if got := strings.TrimSpace(e.sudo(t, "master-1", "systemctl is-active containerd")); got != "failed" {
		t.Errorf("systemctl is-active containerd = %q after the daemon was killed, want failed", got)
	}
	start := time.Now()
	e.sudo(t, "master-1", "systemctl restart containerd")
	t.Logf("systemctl restart containerd (the real 2.2.9 daemon, until it answers): %s", time.Since(start).Round(time.Millisecond))
	if got := strings.TrimSpace(e.sudo(t, "master-1", "systemctl is-active containerd")); got != "active" {
		t.Errorf("systemctl is-active containerd = %q after restart, want active", got)
	}
}

// sudo runs a command as root on a host (through sudo -n) and returns its
// combined output; a failure to connect fails the test.
func (e *env) sudo(t *testing.T, host, cmd string) string {
	t.Helper()
	out, err := e.loginRun(host, "sudo -n sh -c "+shellQuote(cmd))
	if err != nil {
		t.Fatalf("%s: %s: %v", host, cmd, err)
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tomlValue returns KEY's raw value in TABLE of a TOML text ("" when
// absent), tables compared without spaces.
func tomlValue(doc, table, key string) string {
	want := "[" + table + "]"
	cur := ""
	for _, line := range strings.Split(doc, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[[") {
			cur = strings.ReplaceAll(l, " ", "")
			continue
		}
		if cur != want {
			continue
		}
		if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
