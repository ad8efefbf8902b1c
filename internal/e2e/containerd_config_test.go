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

// TestDebianContainerdConfiguration creates a one-master cluster on a
// test host with Debian 12's real containerd package (installed on the
// machine by scripts/prereqs.sh, so the host starts with the package's
// /etc/containerd/config.toml: cgroupfs driver, CNI plugins looked for in
// /usr/lib/cni). install-container-runtime must replace that file: its
// evidence reads SystemdCgroup and the CNI directory from `containerd
// config dump`, and the test reads the same from the host, from the real
// containerd daemon the simulated systemctl started, and checks that
// is-active follows that process.
func TestDebianContainerdConfiguration(t *testing.T) {
	const name = "debian-ctrd"
	e := startHosts(t, name, "master-1")

	// The host meets the real package: its shipped file, its version.
	shipped := e.sudo(t, "master-1", "cat /etc/containerd/config.toml")
	if !strings.Contains(shipped, `bin_dir = "/usr/lib/cni"`) || strings.Contains(shipped, "SystemdCgroup") {
		t.Fatalf("the host does not start with Debian's shipped /etc/containerd/config.toml (is the containerd package installed on the machine? run scripts/prereqs.sh):\n%s", shipped)
	}
	if v := e.sudo(t, "master-1", "dpkg-query -W -f '${Version} ${Maintainer}' containerd"); !strings.HasPrefix(v, "1.") || strings.Contains(v, "cp-hostsim") {
		t.Fatalf("containerd package on the host: %q, want Debian's", v)
	}

	hosts := e.intentHosts([]string{"master-1"}, nil)
	req := e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"
	create := e.compose(req)
	res := e.run(create.Plan, engine.RunInput{})
	rt := instance(t, res, "install-container-runtime[master-1]")
	ev := map[string]protocol.EvidenceResult{}
	for _, x := range rt.Evidence {
		ev[x.ID] = x
	}
	for id, want := range map[string]string{"containerd_systemd_cgroup": "true", "containerd_cni_bin_dir": "/opt/cni/bin"} {
		if got := ev[id]; !got.Passed || strings.TrimSpace(got.Observed) != want {
			t.Errorf("install-container-runtime evidence %s: passed %v observed %q, want %q", id, got.Passed, got.Observed, want)
		}
	}
	requireCompleted(t, res)

	// What containerd loads, read on the host.
	dump := e.sudo(t, "master-1", "containerd config dump")
	for table, kv := range map[string][2]string{
		`plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options`: {"SystemdCgroup", "true"},
		`plugins."io.containerd.grpc.v1.cri".cni`:                              {"bin_dir", `"/opt/cni/bin"`},
		`plugins."io.containerd.grpc.v1.cri".registry`:                         {"config_path", `"/etc/containerd/certs.d"`},
	} {
		if got := tomlValue(dump, table, kv[0]); got != kv[1] {
			t.Errorf("containerd config dump: [%s] %s = %q, want %s", table, kv[0], got, kv[1])
		}
	}
	if prev := e.sudo(t, "master-1", "cat /etc/containerd/config.toml.cp-previous"); prev != shipped {
		t.Errorf("the package's file is not kept beside the new one as config.toml.cp-previous:\n%s", prev)
	}

	// The daemon is the real one, and is-active follows its process.
	pid := strings.TrimSpace(e.sudo(t, "master-1", "cat /run/containerd/cp-hostsim-containerd.pid"))
	if _, err := strconv.Atoi(pid); err != nil {
		t.Fatalf("containerd pid file: %q", pid)
	}
	if v := e.sudo(t, "master-1", "ctr version"); !strings.Contains(v, "Server:") || !strings.Contains(v, "1.6.") {
		t.Errorf("ctr version does not reach Debian's containerd 1.6 daemon:\n%s", v)
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
	t.Logf("systemctl restart containerd (the real daemon, until it answers): %s", time.Since(start).Round(time.Millisecond))
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
