package hostsim

import "testing"

func TestWgShowPeers(t *testing.T) {
	e := newEnv(t)
	e.must("w", "apt-get", "install", "-y", "wireguard-tools")
	e.write("w", "/etc/wireguard/wg0.conf", "[Interface]\nListenPort = 51820\n\n[Peer]\nPublicKey = abc=\n\n[Peer]\nPublicKey = def=\n")
	e.fails("w", "No such device", "wg", "show", "wg0", "peers")
	e.must("w", "systemctl", "enable", "--now", "wg-quick@wg0")
	if r := e.must("w", "wg", "show", "wg0", "peers"); r.out != "abc=\ndef=\n" {
		t.Fatalf("wg show wg0 peers: %q, want the two public keys one per line", r.out)
	}
	e.fails("w", "is not simulated", "wg", "show", "wg0", "transfer")
}
