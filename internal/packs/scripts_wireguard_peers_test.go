package packs

import (
	"strings"
	"testing"
)

// TestWireguardPeersCompleteEvidence: the mesh jobs' evidence
// wireguard_peers_complete holds while wg0.conf has every other node of
// wireguard.public_key as a peer, and fails naming a node added since (so
// a later add_node runs the job again on the nodes already there, rather
// than counting it satisfied), or when the keys cannot be read.
func TestWireguardPeersCompleteEvidence(t *testing.T) {
	keyOf := func(c string) string { return strings.Repeat(c, 42) + "A=" }
	conf := "[Interface]\nAddress = 10.200.0.1/24\nListenPort = 51820\nPrivateKey = " + keyOf("P") + "\n" +
		"\n[Peer]\nPublicKey = " + keyOf("B") + "\nAllowedIPs = 10.200.0.2/32\nEndpoint = 10.0.0.2:51820\nPersistentKeepalive = 25\n"
	for _, file := range []string{"kubernetes/jobs/configure-wireguard-mesh.yaml", "kubernetes/jobs/update-wireguard-mesh.yaml"} {
		for _, c := range []struct {
			name, keys, want string
			ok               bool
		}{
			{"every peer", "master-1 " + keyOf("A") + "\nworker-1 " + keyOf("B") + "\n", "complete", true},
			{"a node added since", "master-1 " + keyOf("A") + "\nworker-1 " + keyOf("B") + "\nworker-7 " + keyOf("C") + "\n", "not peers of wg0: worker-7", false},
		} {
			t.Run(file+" "+c.name, func(t *testing.T) {
				h := newScriptHost(t)
				h.write("/etc/wireguard/wg0.conf", conf)
				env := h.artifactEnv(map[string]string{"CP_HOST": "master-1"}, map[string]string{"wireguard.public_key": c.keys})
				ok, got := h.evidence(file, "wireguard_peers_complete", env, "/etc/wireguard/wg0.conf")
				if ok != c.ok || got != c.want {
					t.Errorf("wireguard_peers_complete = %v %q, want %v %q", ok, got, c.ok, c.want)
				}
			})
		}
		t.Run(file+" keys unreadable", func(t *testing.T) {
			h := newScriptHost(t)
			h.write("/etc/wireguard/wg0.conf", conf)
			env := map[string]string{"CP_HOST": "master-1", "CP_ARTIFACT_WIREGUARD_PUBLIC_KEY": h.path("/.in/absent")}
			if ok, got := h.evidence(file, "wireguard_peers_complete", env, "/etc/wireguard/wg0.conf"); ok {
				t.Errorf("wireguard_peers_complete holds (%q) without the keys", got)
			}
		})
	}
}
