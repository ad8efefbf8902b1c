package hostsim

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/curve25519"
)

// wgGenkey prints a new curve25519 private key, clamped as wg does.
func (s *sim) wgGenkey(p flags) int {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	k[0] &= 248
	k[31] = (k[31] & 127) | 64
	s.printf("%s\n", base64.StdEncoding.EncodeToString(k))
	return 0
}

// wgPubkey prints the public key of the private key on stdin.
func (s *sim) wgPubkey(p flags) int {
	line, _ := bufio.NewReader(s.stdin).ReadString('\n')
	priv, err := base64.StdEncoding.DecodeString(strings.TrimSpace(line))
	if err != nil || len(priv) != 32 {
		return s.fail(1, "wg: Key is not the correct length or format")
	}
	pub, err := curve25519.X25519(priv, curve25519.Basepoint)
	if err != nil {
		return s.fail(1, "wg: %v", err)
	}
	s.printf("%s\n", base64.StdEncoding.EncodeToString(pub))
	return 0
}

// wgShow is wg show IFACE listen-port|peers|latest-handshakes, from the
// configuration of the interface wg-quick@IFACE brought up.
func (s *sim) wgShow(p flags) int {
	iface, field := p.arg(1), p.arg(2)
	if field != "listen-port" && field != "peers" && field != "latest-handshakes" || len(p.pos) != 3 {
		return s.notEmulated("wg", "show", iface, field, "(listen-port, peers or latest-handshakes of one interface)")
	}
	if !s.wgUp(iface) {
		return s.fail(1, "Unable to access interface: No such device")
	}
	b, _ := os.ReadFile(s.path("/etc/wireguard/" + iface + ".conf"))
	switch field {
	case "listen-port":
		s.printf("%s\n", firstNonEmpty(lastOf(confValues(string(b), "ListenPort")), "0"))
	case "peers":
		for _, k := range confValues(string(b), "PublicKey") {
			s.printf("%s\n", k)
		}
	default:
		return s.wgHandshakes(iface)
	}
	return 0
}

func lastOf(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// wgUp reports whether wg-quick@iface is active in the state.
func (s *sim) wgUp(iface string) bool {
	up := false
	_ = s.st.view(func(st *State) error {
		if svc := st.host(s.host.Host).Services["wg-quick@"+iface+".service"]; svc != nil && svc.Active {
			up = true
		}
		return nil
	})
	return up
}

// confValues lists the values of key in a wg-quick configuration, in order.
func confValues(conf, key string) []string {
	var out []string
	for _, line := range strings.Split(conf, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == key {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// WGInterface is a WireGuard interface as wg-quick brought it up: what a
// handshake with its peers depends on.
type WGInterface struct {
	// PublicKey is derived from the configured PrivateKey ("" when that
	// is no key: no peer can then complete a handshake).
	PublicKey  string    `json:"public_key,omitempty"`
	Address    string    `json:"address"` // the host's address
	ListenPort string    `json:"listen_port,omitempty"`
	Peers      []WGPeer  `json:"peers,omitempty"`
	Up         time.Time `json:"up"`
}

// WGPeer is one [Peer] of a configuration.
type WGPeer struct {
	PublicKey string `json:"public_key"`
	Endpoint  string `json:"endpoint,omitempty"`
}

// wgRecord records the interface wg-quick@iface brings up from its
// configuration.
func (s *sim) wgRecord(hs *HostState, iface string) {
	b, _ := os.ReadFile(s.path("/etc/wireguard/" + iface + ".conf"))
	in := &WGInterface{Address: s.host.Address, Up: s.now()}
	var peer *WGPeer
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "[Peer]" {
			in.Peers = append(in.Peers, WGPeer{})
			peer = &in.Peers[len(in.Peers)-1]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case peer == nil && k == "PrivateKey":
			in.PublicKey = wgPublic(v)
		case peer == nil && k == "ListenPort":
			in.ListenPort = v
		case peer != nil && k == "PublicKey":
			peer.PublicKey = v
		case peer != nil && k == "Endpoint":
			peer.Endpoint = v
		}
	}
	if hs.WireGuard == nil {
		hs.WireGuard = map[string]*WGInterface{}
	}
	hs.WireGuard[iface] = in
}

// wgPublic is the public key of a base64 private key, "" if it is none.
func wgPublic(priv string) string {
	k, err := base64.StdEncoding.DecodeString(priv)
	if err != nil || len(k) != 32 {
		return ""
	}
	pub, err := curve25519.X25519(k, curve25519.Basepoint)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(pub)
}

// wgRekey is WireGuard's REKEY_AFTER_TIME: a session older than this is
// renewed by a new handshake when a packet is sent, and the
// PersistentKeepalive the packs configure sends one every 25 seconds.
const wgRekey = 120 * time.Second

// wgHandshakes prints "public-key<TAB>unix-time" for each peer of iface,
// as wg show IFACE latest-handshakes does. There is no network here: a
// handshake counts as done when a host of the cluster has an interface
// up whose key is the peer's public key and which has this interface's
// public key among its peers, and one of the two has the other's address
// and listen port as the endpoint: what WireGuard's handshake needs of
// the two configurations. The first is at the later of the two
// interfaces' start times and one follows every wgRekey while both stay
// up, so the latest is never older than wgRekey. Otherwise the time is 0.
func (s *sim) wgHandshakes(iface string) int {
	_ = s.st.view(func(st *State) error {
		self := st.host(s.host.Host).WireGuard[iface]
		if self == nil {
			return nil
		}
		for _, p := range self.Peers {
			at := int64(0)
			for name, hs := range st.Hosts {
				for other, in := range hs.WireGuard {
					if svc := hs.Services["wg-quick@"+other+".service"]; svc == nil || !svc.Active || name == s.host.Host {
						continue
					}
					if self.PublicKey == "" || in.PublicKey != p.PublicKey {
						continue
					}
					for _, back := range in.Peers {
						// Either side may initiate: it needs the other's
						// endpoint.
						reach := p.Endpoint == wgEndpoint(in.Address, in.ListenPort) || back.Endpoint == wgEndpoint(self.Address, self.ListenPort)
						if back.PublicKey == self.PublicKey && reach {
							at = wgLatest(max(self.Up.Unix(), in.Up.Unix()), s.now().Unix())
						}
					}
				}
			}
			s.printf("%s\t%d\n", p.PublicKey, at)
		}
		return nil
	})
	return 0
}

// wgLatest is the latest handshake at now of a session first made at
// first and renewed every wgRekey since.
func wgLatest(first, now int64) int64 {
	if now <= first {
		return first
	}
	period := int64(wgRekey / time.Second)
	return first + (now-first)/period*period
}

// wgEndpoint is address:port as a configuration writes it, IPv6 in brackets.
func wgEndpoint(addr, port string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]:" + port
	}
	return addr + ":" + port
}

// realWg is Debian's wg (wireguard-tools, installed on the machine by
// scripts/prereqs.sh). The simulator's link /usr/local/bin/wg shadows it
// only for `wg show`, which needs an interface no test host has; genkey,
// pubkey and the rest run the real program.
const realWg = "/usr/bin/wg"

func (s *sim) wgReal(args []string) (int, bool) {
	if s.root != "/" || (len(args) > 0 && args[0] == "show") {
		return 0, false
	}
	if fi, err := os.Lstat(realWg); err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	err := syscall.Exec(realWg, append([]string{"wg"}, args...), os.Environ())
	return s.fail(126, "cp-hostsim: exec %s: %v", realWg, err), true
}
