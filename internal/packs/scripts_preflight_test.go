package packs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var preflightPaths = []string{"/var/lib/cp/kubernetes", "/etc/machine-id", "/etc/kubernetes/kubelet.conf"}

// preflightHost is a scratch host whose timedatectl says synced and
// whose ss lists listening.
func preflightHost(t *testing.T, synced, listening string) *scriptHost {
	h := newScriptHost(t)
	for name, body := range map[string]string{
		"timedatectl": "#!/bin/sh\necho '" + synced + "'\n",
		"ss":          "#!/bin/sh\n[ \"$*\" = -Hltnu ] || exit 9\nprintf '%s' '" + listening + "'\n",
		"hostname":    "#!/bin/sh\necho node-1\n",
	} {
		if err := os.WriteFile(filepath.Join(h.bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.write("/etc/machine-id", "0123456789abcdef0123456789abcdef\n")
	return h
}

const ssBusy = "tcp   LISTEN 0      4096         0.0.0.0:22         0.0.0.0:*\n" +
	"udp   UNCONN 0      0          127.0.0.53%lo:53       0.0.0.0:*\n"

// preflight-host passes a synchronized host whose ports are free and
// records its machine id and host name; it fails, naming the fix, on an
// unsynchronized clock and on each port of the node's role in use.
func TestPreflightHost(t *testing.T) {
	cases := []struct {
		name, role, synced, listening string
		params                        map[string]string
		want                          string // empty: passes
	}{
		{"master free", "master", "yes", ssBusy + "tcp LISTEN 0 128 0.0.0.0:16443 0.0.0.0:*\n", nil, ""},
		{"worker with 6443 taken", "worker", "yes", ssBusy + "tcp LISTEN 0 128 *:6443 *:*\n", nil, ""},
		{"clock not synchronized", "worker", "no", ssBusy, nil, "not NTP-synchronized (timedatectl NTPSynchronized=no)"},
		{"master 6443", "master", "yes", ssBusy + "tcp LISTEN 0 128 *:6443 *:*\n", nil, "port 6443/tcp is in use"},
		{"master 2379", "master", "yes", ssBusy + "tcp LISTEN 0 128 127.0.0.1:2379 0.0.0.0:*\n", nil, "port 2379/tcp is in use"},
		{"master 2380", "master", "yes", ssBusy + "tcp LISTEN 0 128 10.0.0.11:2380 0.0.0.0:*\n", nil, "port 2380/tcp is in use"},
		{"master 10257", "master", "yes", ssBusy + "tcp LISTEN 0 128 [::]:10257 [::]:*\n", nil, "port 10257/tcp is in use"},
		{"master 10259", "master", "yes", ssBusy + "tcp LISTEN 0 128 *:10259 *:*\n", nil, "port 10259/tcp is in use"},
		{"worker 10250", "worker", "yes", ssBusy + "tcp LISTEN 0 128 *:10250 *:*\n", nil, "port 10250/tcp is in use"},
		{"wireguard udp", "worker", "yes", ssBusy + "udp UNCONN 0 0 0.0.0.0:51820 0.0.0.0:*\n", nil, "port 51820/udp (the WireGuard mesh) is in use"},
		{"wireguard port set", "worker", "yes", ssBusy + "udp UNCONN 0 0 0.0.0.0:51820 0.0.0.0:*\n", map[string]string{"wireguard_port": "51821"}, ""},
		{"wireguard tcp is not udp", "worker", "yes", ssBusy + "tcp LISTEN 0 128 *:51820 *:*\n", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := preflightHost(t, c.synced, c.listening)
			env := packEnv(t, "kubernetes", c.params)
			env[protocol.EnvHostRole] = c.role
			res := h.run("kubernetes/scripts/preflight-host.sh", env, preflightPaths...)
			if c.want == "" {
				if res.code != 0 {
					t.Fatalf("exit %d: %s", res.code, res.stderr)
				}
				if got := h.read("/.out/host.identity"); got != "0123456789abcdef0123456789abcdef node-1\n" {
					t.Errorf("host.identity = %q", got)
				}
				if !h.exists("/var/lib/cp/kubernetes/preflight-passed") {
					t.Error("no preflight-passed marker")
				}
				return
			}
			if res.code == 0 || !strings.Contains(res.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want a failure saying %q", res.code, res.stderr, c.want)
			}
			if h.exists("/.out/host.identity") || h.exists("/var/lib/cp/kubernetes/preflight-passed") {
				t.Error("a failed preflight recorded the host")
			}
		})
	}
	// A host that passed before (or runs the cluster's kubelet) holds its
	// own ports; the clock is checked again.
	for _, marker := range []string{"/var/lib/cp/kubernetes/preflight-passed", "/etc/kubernetes/kubelet.conf"} {
		h := preflightHost(t, "yes", ssBusy+"tcp LISTEN 0 128 *:6443 *:*\ntcp LISTEN 0 128 *:10250 *:*\n")
		h.write(marker, "x\n")
		env := packEnv(t, "kubernetes", nil)
		env[protocol.EnvHostRole] = "master"
		if res := h.run("kubernetes/scripts/preflight-host.sh", env, preflightPaths...); res.code != 0 {
			t.Errorf("with %s: exit %d: %s", marker, res.code, res.stderr)
		}
	}
	h := preflightHost(t, "no", ssBusy)
	h.write("/var/lib/cp/kubernetes/preflight-passed", "x\n")
	if res := h.run("kubernetes/scripts/preflight-host.sh", packEnv(t, "kubernetes", nil), preflightPaths...); res.code == 0 {
		t.Error("a host that passed before is not checked for its clock again")
	}
	// A cloned machine id is refused where it is read.
	h = preflightHost(t, "yes", ssBusy)
	h.write("/etc/machine-id", "uninitialized\n")
	if res := h.run("kubernetes/scripts/preflight-host.sh", packEnv(t, "kubernetes", nil), preflightPaths...); res.code == 0 || !strings.Contains(res.stderr, "systemd-machine-id-setup") {
		t.Errorf("an uninitialized machine id: exit %d, %s", res.code, res.stderr)
	}
}

// check-host-identities passes distinct machine ids and host names and
// fails on a shared one, naming both hosts and the fix.
func TestCheckHostIdentities(t *testing.T) {
	const a, b = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	for name, c := range map[string]struct{ lines, want string }{
		"unique":             {"master-1 " + a + " m1\nworker-1 " + b + " w1\n", ""},
		"cloned machine id":  {"master-1 " + a + " m1\nworker-1 " + a + " w1\n", "worker-1 and master-1 share the machine id " + a},
		"shared host name":   {"master-1 " + a + " node\nworker-1 " + b + " NODE\n", "worker-1 and master-1 share the host name NODE"},
		"a field too many":   {"master-1 " + a + " m1 x\n", "is not \"host machine-id hostname\""},
		"not a machine id":   {"master-1 nothex m1\n", "is not \"host machine-id hostname\""},
		"no host identities": {"", "no host recorded its identity"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newScriptHost(t)
			env := h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{"host.identity": c.lines})
			res := h.run("kubernetes/scripts/check-host-identities.sh", env, "/var/lib/cp/kubernetes")
			if c.want == "" {
				if res.code != 0 || h.read("/var/lib/cp/kubernetes/host-identities") != "unique\n" {
					t.Fatalf("exit %d: %s; host-identities %q", res.code, res.stderr, h.read("/var/lib/cp/kubernetes/host-identities"))
				}
				return
			}
			if res.code == 0 || !strings.Contains(res.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want %q", res.code, res.stderr, c.want)
			}
			if h.read("/var/lib/cp/kubernetes/host-identities") == "unique\n" {
				t.Error("recorded unique")
			}
		})
	}
}
