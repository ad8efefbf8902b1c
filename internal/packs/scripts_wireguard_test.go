package packs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wgStub stands for wg: genkey prints $CP_TEST_WG_GENKEY, pubkey prints
// a key derived from its input (pub(k)), so keys travel as the real ones.
const wgStub = `#!/bin/sh
__l=wg; for a in "$@"; do __l="$__l $a"; done; printf '%s\n' "$__l" >>"$CP_TEST_CALLS"
case $1 in
  genkey) printf '%s\n' "$CP_TEST_WG_GENKEY" ;;
  pubkey) read -r k; printf '%s' "$k" | sha256sum | cut -c1-42 | sed 's/$/A=/' ;;
  *) exit 1 ;;
esac
`

// pub is what wgStub's pubkey prints for private key k.
func pub(k string) string {
	s := sha256.Sum256([]byte(k))
	return hex.EncodeToString(s[:])[:42] + "A="
}

const (
	keyA = "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd28="
	keyB = "YW5vdGhlciBrZXkgYW5vdGhlciBrZXkgYW5vdGhlciA="
)

// wgHost is a host with the wg stub and a chown that only records.
func wgHost(t *testing.T) *scriptHost {
	h := newScriptHost(t)
	for name, body := range map[string]string{"wg": wgStub,
		"chown": "#!/bin/sh\n__l=chown; for a in \"$@\"; do __l=\"$__l $a\"; done; printf '%s\\n' \"$__l\" >>\"$CP_TEST_CALLS\"\n"} {
		if err := os.WriteFile(filepath.Join(h.bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func mode(t *testing.T, h *scriptHost, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(h.path(p))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestGenerateWireGuardKey: the key is generated on the host once, kept
// on later runs, root-only, and only its public key is written out.
func TestGenerateWireGuardKey(t *testing.T) {
	const script = "kubernetes/scripts/generate-wireguard-key.sh"
	h := wgHost(t)
	h.write("/var/lib/cp/kubernetes/wireguard-mesh.secret", "old mesh secret\n")
	run := func(genkey string) scriptResult {
		return h.run(script, map[string]string{"CP_TEST_WG_GENKEY": genkey}, "/etc/wireguard", "/var/lib/cp/kubernetes")
	}
	succeeded(t, run(keyA))
	if got := strings.TrimSpace(h.read("/etc/wireguard/wg0.key")); got != keyA {
		t.Fatalf("wg0.key = %q, want the generated key", got)
	}
	if m := mode(t, h, "/etc/wireguard/wg0.key"); m != 0o600 {
		t.Errorf("wg0.key mode %v, want 0600", m)
	}
	if m := mode(t, h, "/etc/wireguard"); m != 0o700 {
		t.Errorf("/etc/wireguard mode %v, want 0700", m)
	}
	if !strings.Contains(h.log(h.calls), "chown root:root "+h.path("/etc/wireguard/wg0.key")) {
		t.Errorf("wg0.key not given to root:\n%s", h.log(h.calls))
	}
	out, _ := os.ReadFile(filepath.Join(h.root, ".out", "wireguard.public_key"))
	if string(out) != pub(keyA)+"\n" {
		t.Errorf("published %q, want only the public key %q", out, pub(keyA))
	}
	if h.exists("/var/lib/cp/kubernetes/wireguard-mesh.secret") {
		t.Errorf("the retired mesh secret is still on the host")
	}
	// A second run keeps the key although wg genkey would print another.
	succeeded(t, run(keyB))
	if got := strings.TrimSpace(h.read("/etc/wireguard/wg0.key")); got != keyA {
		t.Errorf("second run replaced the key with %q", got)
	}
	// A file that holds no key is refused, not replaced.
	h.write("/etc/wireguard/wg0.key", "PostUp = touch /tmp/x\n")
	refused(t, h, run(keyB), "does not hold a WireGuard private key")
	if got := h.read("/etc/wireguard/wg0.key"); got != "PostUp = touch /tmp/x\n" {
		t.Errorf("the bad key file was replaced: %q", got)
	}
}

// meshHost is node-1 (10.0.0.11, host 1 of the inventory) with its key
// and two peers.
func meshHost(t *testing.T) (*scriptHost, map[string]string) {
	h := wgHost(t)
	h.write("/etc/wireguard/wg0.key", keyA+"\n")
	arts := map[string]string{
		"node_inventory":       "1 node-1 10.0.0.11 master\n2 node-2 10.0.0.12 worker\n3 node-3 fd00::13 worker\n",
		"wireguard.public_key": "node-1 " + pub(keyA) + "\nnode-2 " + pub(keyB) + "\nnode-3 " + pub("c") + "\n",
	}
	return h, arts
}

// TestWireGuardMeshConfig: wg0.conf is the strict template of checked
// values: the host's own key, each peer's public key, allowed IP and
// endpoint (IPv6 in brackets), root-only.
func TestWireGuardMeshConfig(t *testing.T) {
	const script = "kubernetes/scripts/wireguard-mesh.sh"
	h, arts := meshHost(t)
	env := h.artifactEnv(packEnv(t, "kubernetes", nil), arts)
	succeeded(t, h.run(script, env, "/etc/wireguard"))
	want := "[Interface]\nAddress = 10.200.0.1/24\nListenPort = 51820\nPrivateKey = " + keyA + "\n" +
		"\n[Peer]\nPublicKey = " + pub(keyB) + "\nAllowedIPs = 10.200.0.2/32\nEndpoint = 10.0.0.12:51820\nPersistentKeepalive = 25\n" +
		"\n[Peer]\nPublicKey = " + pub("c") + "\nAllowedIPs = 10.200.0.3/32\nEndpoint = [fd00::13]:51820\nPersistentKeepalive = 25\n"
	if got := h.read("/etc/wireguard/wg0.conf"); got != want {
		t.Errorf("wg0.conf:\n%s\nwant:\n%s", got, want)
	}
	if m := mode(t, h, "/etc/wireguard/wg0.conf"); m != 0o600 {
		t.Errorf("wg0.conf mode %v, want 0600", m)
	}
}

// TestWireGuardMeshRefusals: a value that is not a port, a /24, an IP
// address, a host number or a key stops the script before wg0.conf is
// written, whatever it holds.
func TestWireGuardMeshRefusals(t *testing.T) {
	const script = "kubernetes/scripts/wireguard-mesh.sh"
	inject := "\nPostUp = touch /tmp/x"
	cases := []struct {
		name   string
		params map[string]string
		arts   func(map[string]string)
		want   string
	}{
		{"port with a line", map[string]string{"wireguard_port": "51820" + inject}, nil, "wireguard_port must be a number"},
		{"port 0", map[string]string{"wireguard_port": "0"}, nil, "wireguard_port 0 is not from 1 to 65535"},
		{"port 70000", map[string]string{"wireguard_port": "70000"}, nil, "wireguard_port 70000 is not from 1 to 65535"},
		{"port expression", map[string]string{"wireguard_port": "a[$(touch /tmp/x)]"}, nil, "wireguard_port must be a number"},
		{"cidr with a line", map[string]string{"wireguard_cidr": "10.200.0.0/24" + inject}, nil, "wireguard_cidr must be an IPv4 /24"},
		{"cidr /16", map[string]string{"wireguard_cidr": "10.200.0.0/16"}, nil, "wireguard_cidr must be an IPv4 /24"},
		{"key with a field", nil, func(a map[string]string) {
			a["wireguard.public_key"] = strings.Replace(a["wireguard.public_key"], "node-2 "+pub(keyB), "node-2 "+pub(keyB)+" PostUp=x", 1)
		}, "the wireguard.public_key line of host node-2"},
		{"not a key", nil, func(a map[string]string) {
			a["wireguard.public_key"] = strings.Replace(a["wireguard.public_key"], pub(keyB), "PostUp=touch", 1)
		}, "the wireguard.public_key line of host node-2"},
		{"peer without a key", nil, func(a map[string]string) {
			a["wireguard.public_key"] = "node-1 " + pub(keyA) + "\nnode-2 " + pub(keyB) + "\n"
		}, "host node-3 published no WireGuard public key"},
		{"own key not published", nil, func(a map[string]string) {
			a["wireguard.public_key"] = strings.Replace(a["wireguard.public_key"], "node-1 "+pub(keyA), "node-1 "+pub(keyB), 1)
		}, "the public key published for this host is not the one"},
		{"address not an IP", nil, func(a map[string]string) {
			a["node_inventory"] = strings.Replace(a["node_inventory"], "10.0.0.12", "evil.example:1", 1)
		}, "the node inventory address of host node-2 is not an IP address"},
		{"address octet", nil, func(a map[string]string) {
			a["node_inventory"] = strings.Replace(a["node_inventory"], "10.0.0.12", "10.0.0.312", 1)
		}, "the node inventory address of host node-2 is not an IP address"},
		{"host number", nil, func(a map[string]string) {
			a["node_inventory"] = strings.Replace(a["node_inventory"], "2 node-2", "300 node-2", 1)
		}, "the node inventory numbers host node-2 outside 1-254"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, arts := meshHost(t)
			if c.arts != nil {
				c.arts(arts)
			}
			env := h.artifactEnv(packEnv(t, "kubernetes", c.params), arts)
			refused(t, h, h.run(script, env, "/etc/wireguard"), c.want)
			if h.exists("/etc/wireguard/wg0.conf") || h.exists("/etc/wireguard/wg0.conf.new") {
				t.Errorf("wg0.conf written:\n%s", h.read("/etc/wireguard/wg0.conf.new")+h.read("/etc/wireguard/wg0.conf"))
			}
		})
	}
}
