package hostsim

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/crypto/curve25519"
)

// wg emulates wg genkey, pubkey, genpsk and show (from the host's
// config); it never touches network interfaces.
func (s *sim) wg(args []string) int {
	p := parseFlags(args)
	switch p.arg(0) {
	case "genkey", "genpsk":
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		if p.arg(0) == "genkey" {
			k[0] &= 248
			k[31] = (k[31] & 127) | 64
		}
		s.printf("%s\n", base64.StdEncoding.EncodeToString(k))
		return 0
	case "pubkey":
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
	case "show", "showconf", "":
		iface := firstNonEmpty(p.arg(1), "wg0")
		if !s.wgUp(iface) {
			if p.arg(1) == "" {
				return 0
			}
			return s.fail(1, "Unable to access interface: No such device")
		}
		b, _ := os.ReadFile(s.path("/etc/wireguard/" + iface + ".conf"))
		if p.arg(0) == "show" && p.arg(2) == "listen-port" {
			port := "0"
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "ListenPort" {
					port = strings.TrimSpace(v)
				}
			}
			s.printf("%s\n", port)
			return 0
		}
		if p.arg(0) == "show" && p.arg(2) == "peers" {
			for _, k := range confValues(string(b), "PublicKey") {
				s.printf("%s\n", k)
			}
			return 0
		}
		if p.arg(0) == "show" && p.arg(2) == "latest-handshakes" {
			return s.wgHandshakes(iface)
		}
		if p.arg(0) == "show" && p.arg(2) != "" {
			return s.fail(1, "cp-hostsim wg: show %s %s is not simulated (listen-port, peers, latest-handshakes)", iface, p.arg(2))
		}
		if p.arg(0) == "showconf" {
			s.printf("%s", b)
			return 0
		}
		s.printf("interface: %s\n", iface)
		for _, k := range confValues(string(b), "PublicKey") {
			s.printf("\npeer: %s\n", k)
		}
		return 0
	}
	return s.fail(1, "cp-hostsim wg: %q is not simulated (genkey, genpsk, pubkey, show, showconf)", p.arg(0))
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

// wgQuick emulates wg-quick up|down IFACE through the wg-quick@ unit.
func (s *sim) wgQuick(args []string) int {
	p := parseFlags(args)
	iface := p.arg(1)
	if iface == "" {
		return s.fail(1, "Usage: wg-quick [ up | down | save | strip ] [ CONFIG_FILE | INTERFACE ]")
	}
	switch p.arg(0) {
	case "up":
		if s.wgUp(iface) {
			return s.fail(1, "wg-quick: `%s' already exists", iface)
		}
		if code := s.systemctl([]string{"start", "wg-quick@" + iface}); code != 0 {
			return code
		}
		s.printf("[#] ip link add %s type wireguard\n[#] wg setconf %s /dev/fd/63\n[#] ip link set mtu 1420 up dev %s\n", iface, iface, iface)
		return 0
	case "down":
		if !s.wgUp(iface) {
			return s.fail(1, "wg-quick: `%s' is not a WireGuard interface", iface)
		}
		s.printf("[#] ip link delete dev %s\n", iface)
		return s.systemctl([]string{"stop", "wg-quick@" + iface})
	case "strip":
		b, err := os.ReadFile(s.path("/etc/wireguard/" + iface + ".conf"))
		if err != nil {
			return s.fail(1, "wg-quick: `/etc/wireguard/%s.conf' does not exist", iface)
		}
		s.printf("%s", b)
		return 0
	}
	return s.fail(1, "%s", fmt.Sprintf("cp-hostsim wg-quick: %q is not simulated (up, down, strip)", p.arg(0)))
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

// wgHandshakes prints "public-key<TAB>unix-time" for each peer of iface,
// as wg show IFACE latest-handshakes does. There is no network here: a
// handshake counts as done, at the later of the two interfaces' start
// times, when a host of the cluster has an interface up whose key is
// the peer's public key and which has this interface's public key among
// its peers, and one of the two has the other's address and listen port
// as the endpoint: what WireGuard's handshake needs of the two
// configurations. Otherwise the time is 0.
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
							at = max(self.Up.Unix(), in.Up.Unix())
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

// wgEndpoint is address:port as a configuration writes it, IPv6 in brackets.
func wgEndpoint(addr, port string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]:" + port
	}
	return addr + ":" + port
}
