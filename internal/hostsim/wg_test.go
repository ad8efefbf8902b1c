package hostsim

import (
	"strings"
	"testing"
)

func TestWgShowPeers(t *testing.T) {
	e := newEnv(t)
	e.must("w", "apt-get", "install", "-y", "wireguard-tools")
	e.write("w", "/etc/wireguard/wg0.conf", "[Interface]\nListenPort = 51820\n\n[Peer]\nPublicKey = abc=\n\n[Peer]\nPublicKey = def=\n")
	e.fails("w", "No such device", "wg", "show", "wg0", "peers")
	e.must("w", "systemctl", "enable", "--now", "wg-quick@wg0")
	if r := e.must("w", "wg", "show", "wg0", "peers"); r.out != "abc=\ndef=\n" {
		t.Fatalf("wg show wg0 peers: %q, want the two public keys one per line", r.out)
	}
	e.fails("w", "not emulated: wg show wg0 transfer", "wg", "show", "wg0", "transfer")
}

// A handshake between two interfaces counts as done only when each lists
// the other's real public key, one knows the other's endpoint and both
// are up.
func TestWgLatestHandshakes(t *testing.T) {
	e := newEnv(t)
	hosts := []string{"worker-1", "worker-2"}
	addr := map[string]string{"worker-1": "10.0.0.11", "worker-2": "10.0.0.12"}
	priv, pub := map[string]string{}, map[string]string{}
	for _, h := range hosts {
		e.must(h, "apt-get", "install", "-y", "wireguard-tools")
		priv[h] = strings.TrimSpace(e.must(h, "wg", "genkey").out)
		pub[h] = strings.TrimSpace(e.runAs(h, "0", priv[h]+"\n", "wg", "pubkey").out)
	}
	conf := func(h, peer, peerKey, endpoint string) {
		e.write(h, "/etc/wireguard/wg0.conf", "[Interface]\nListenPort = 51820\nPrivateKey = "+priv[h]+
			"\n\n[Peer]\nPublicKey = "+peerKey+"\nEndpoint = "+endpoint+"\n")
		e.must(h, "systemctl", "restart", "wg-quick@wg0")
	}
	handshake := func(h, peer string) string {
		out := strings.TrimSpace(e.must(h, "wg", "show", "wg0", "latest-handshakes").out)
		k, ts, _ := strings.Cut(out, "\t")
		if k != pub[peer] {
			t.Fatalf("%s: latest-handshakes %q, want peer %s", h, out, pub[peer])
		}
		return ts
	}
	conf("worker-1", "worker-2", pub["worker-2"], addr["worker-2"]+":51820")
	if ts := handshake("worker-1", "worker-2"); ts != "0" {
		t.Errorf("handshake with a peer that is down: %s, want 0", ts)
	}
	conf("worker-2", "worker-1", pub["worker-1"], addr["worker-1"]+":51820")
	for _, h := range hosts {
		other := map[string]string{"worker-1": "worker-2", "worker-2": "worker-1"}[h]
		if ts := handshake(h, other); ts == "0" {
			t.Errorf("%s: no handshake with %s although both list each other", h, other)
		}
	}
	// worker-2 lists a key that is not worker-1's: neither side completes.
	conf("worker-2", "worker-1", pub["worker-2"], addr["worker-1"]+":51820")
	if ts := handshake("worker-1", "worker-2"); ts != "0" {
		t.Errorf("handshake with a peer that does not know our key: %s, want 0", ts)
	}
	// One wrong endpoint: worker-2 still reaches worker-1.
	conf("worker-2", "worker-1", pub["worker-1"], addr["worker-1"]+":51820")
	conf("worker-1", "worker-2", pub["worker-2"], addr["worker-2"]+":51821")
	if ts := handshake("worker-1", "worker-2"); ts == "0" {
		t.Errorf("no handshake although worker-2 has worker-1's endpoint")
	}
	// Both wrong: neither reaches the other.
	conf("worker-2", "worker-1", pub["worker-1"], addr["worker-1"]+":51821")
	if ts := handshake("worker-1", "worker-2"); ts != "0" {
		t.Errorf("handshake with both endpoints wrong: %s, want 0", ts)
	}
}

// A session is renewed every two minutes while both interfaces stay up:
// the latest handshake a refresh reads long after the start is recent,
// so evidence that wants a recent handshake holds for a live mesh.
func TestWgLatestRenewed(t *testing.T) {
	const first = int64(1_000_000)
	for _, c := range []struct{ now, want int64 }{
		{first - 5, first}, {first, first}, {first + 119, first},
		{first + 120, first + 120}, {first + 3600 + 7, first + 3600},
	} {
		if got := wgLatest(first, c.now); got != c.want {
			t.Errorf("wgLatest(first, first%+d) = first%+d, want first%+d", c.now-first, got-first, c.want-first)
		}
		if c.now >= first && c.now-wgLatest(first, c.now) >= int64(wgRekey.Seconds()) {
			t.Errorf("latest handshake at first%+d is older than %s", c.now-first, wgRekey)
		}
	}
}
