package packs

import (
	"fmt"
	"strings"
	"testing"
)

// TestPruneWireguardMeshDropsLeavingPeers: prune-wireguard-mesh drops from
// wg0.conf exactly the [Peer] sections whose key wireguard.left lists,
// keeps the interface and the other peers byte for byte and restarts
// wg-quick@wg0; its evidence fails while a leaving key is still a peer of
// wg0.conf or of the running wg0, and holds after. A host listed as
// leaving refuses to prune itself.
func TestPruneWireguardMeshDropsLeavingPeers(t *testing.T) {
	const script, file = "kubernetes/scripts/prune-wireguard-mesh.sh", "kubernetes/jobs/prune-wireguard-mesh.yaml"
	keyOf := func(c string) string { return strings.Repeat(c, 42) + "A=" }
	iface := "[Interface]\nAddress = 10.200.0.1/24\nListenPort = 51820\nPrivateKey = " + keyOf("P") + "\n"
	peer := func(k string, n int) string {
		return "\n[Peer]\nPublicKey = " + keyOf(k) + "\nAllowedIPs = 10.200.0." + string(rune('0'+n)) + "/32\nEndpoint = 10.0.0." + string(rune('0'+n)) + ":51820\nPersistentKeepalive = 25\n"
	}
	conf := iface + peer("B", 2) + peer("C", 3)
	h := newScriptHost(t)
	h.write("/etc/wireguard/wg0.conf", conf)
	// The running wg0 lists the peers wg0.conf holds.
	h.stub("wg", `case "$*" in "show wg0 peers") sed -n 's/^PublicKey = //p' "`+h.path("/etc/wireguard/wg0.conf")+`" ;; *) exit 2 ;; esac`)
	env := h.artifactEnv(map[string]string{"CP_HOST": "master-1"}, map[string]string{"wireguard.left": "worker-2 " + keyOf("C") + "\n"})
	if ok, got := h.evidence(file, "wireguard_left_peers_gone", env, "/etc/wireguard/wg0.conf"); ok || got != "still peers of wg0: worker-2" {
		t.Errorf("wireguard_left_peers_gone before the prune = %v %q, want failing naming worker-2", ok, got)
	}
	succeeded(t, h.run(script, env, "/etc/wireguard"))
	if got, want := h.read("/etc/wireguard/wg0.conf"), iface+peer("B", 2); got != want {
		t.Errorf("wg0.conf after the prune:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(h.log(h.calls), "systemctl restart wg-quick@wg0\n") {
		t.Errorf("wg-quick@wg0 not restarted:\n%s", h.log(h.calls))
	}
	if ok, got := h.evidence(file, "wireguard_left_peers_gone", env, "/etc/wireguard/wg0.conf"); !ok {
		t.Errorf("wireguard_left_peers_gone after the prune fails (%q)", got)
	}

	// The running wg0 still has the leaving peer (not restarted): fails.
	h.stub("wg", `case "$*" in "show wg0 peers") printf '%s\n%s\n' '`+keyOf("B")+`' '`+keyOf("C")+`' ;; *) exit 2 ;; esac`)
	if ok, got := h.evidence(file, "wireguard_left_peers_gone", env, "/etc/wireguard/wg0.conf"); ok {
		t.Errorf("wireguard_left_peers_gone holds (%q) while the running wg0 has worker-2", got)
	}

	// Nothing to drop: unchanged, no restart.
	h = newScriptHost(t)
	h.write("/etc/wireguard/wg0.conf", iface+peer("B", 2))
	succeeded(t, h.run(script, env, "/etc/wireguard"))
	if strings.Contains(h.log(h.calls), "restart") {
		t.Errorf("restarted although no leaving peer was there:\n%s", h.log(h.calls))
	}

	// The leaving host itself, and a line that is not "host key".
	h = newScriptHost(t)
	h.write("/etc/wireguard/wg0.conf", conf)
	refused(t, h, h.run(script, h.artifactEnv(map[string]string{"CP_HOST": "worker-2"}, map[string]string{"wireguard.left": "worker-2 " + keyOf("C") + "\n"}), "/etc/wireguard"),
		"this node is listed as leaving the mesh")
	refused(t, h, h.run(script, h.artifactEnv(map[string]string{"CP_HOST": "master-1"}, map[string]string{"wireguard.left": "worker-2 not-a-key\n"}), "/etc/wireguard"),
		`the wireguard.left line of host worker-2 is not "host key"`)
	if got := h.read("/etc/wireguard/wg0.conf"); got != conf {
		t.Errorf("wg0.conf changed by a refused prune")
	}
}

// TestWireguardMeshIgnoresRemovedNodes: a node removed since (its key
// still in wireguard.public_key, from state) is no peer: with the intent's
// hosts (CP_HOSTS) not listing it, update-wireguard-mesh's
// wireguard_peers_complete and verify-wireguard-mesh (script and
// evidence) hold without it, and fail for it while it is a host.
func TestWireguardMeshIgnoresRemovedNodes(t *testing.T) {
	const verifyJob, verifyScript = "kubernetes/jobs/verify-wireguard-mesh.yaml", "kubernetes/scripts/verify-wireguard-mesh.sh"
	const updateJob = "kubernetes/jobs/update-wireguard-mesh.yaml"
	const now = 1_800_000_000
	keyOf := func(c string) string { return strings.Repeat(c, 42) + "A=" }
	keys := "master-1 " + keyOf("A") + "\nworker-1 " + keyOf("B") + "\nworker-2 " + keyOf("C") + "\n"
	conf := "[Interface]\nAddress = 10.200.0.1/24\nListenPort = 51820\nPrivateKey = " + keyOf("P") + "\n" +
		"\n[Peer]\nPublicKey = " + keyOf("B") + "\nAllowedIPs = 10.200.0.2/32\nEndpoint = 10.0.0.2:51820\nPersistentKeepalive = 25\n"
	for _, c := range []struct {
		name, hosts string
		ok          bool
	}{
		{"worker-2 removed", "master-1 10.0.0.1 master,worker-1 10.0.0.2 worker", true},
		{"worker-2 still a host", "master-1 10.0.0.1 master,worker-1 10.0.0.2 worker,worker-2 10.0.0.3 worker", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.write("/etc/wireguard/wg0.conf", conf)
			h.stub("date", fmt.Sprintf(`echo %d`, now))
			h.stub("sleep", ``)
			h.stub("wg", `case "$*" in "show wg0 latest-handshakes") printf '`+keyOf("B")+`\t`+fmt.Sprint(now-20)+`\n' ;; *) exit 2 ;; esac`)
			env := h.artifactEnv(map[string]string{"CP_HOST": "master-1", "CP_HOSTS": c.hosts}, map[string]string{"wireguard.public_key": keys})
			if ok, got := h.evidence(updateJob, "wireguard_peers_complete", env, "/etc/wireguard/wg0.conf"); ok != c.ok {
				t.Errorf("wireguard_peers_complete = %v (%q), want %v", ok, got, c.ok)
			}
			if ok, got := h.evidence(verifyJob, "wireguard_handshakes", env); ok != c.ok {
				t.Errorf("wireguard_handshakes = %v (%q), want %v", ok, got, c.ok)
			}
			res := h.run(verifyScript, env)
			if c.ok {
				succeeded(t, res)
				if !strings.Contains(res.stdout, "master-1 has a recent handshake with each of its 1 peers") {
					t.Errorf("stdout %q", res.stdout)
				}
			} else {
				refused(t, h, res, "no recent WireGuard handshake from master-1 with worker-2 (not a peer of wg0)")
			}
		})
	}
}
