package hostsim

import (
	_ "embed"
	"encoding/base64"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
)

// Test hosts have no upstream DNS and no internet. getent and curl are
// shadowed so that the names and package keys the builtin scripts need
// behave as on a host with internet, while the dns fault still breaks them.

// knownNames are the external names the simulator resolves (registries,
// package and chart repositories the builtin packs use). The addresses are
// from 198.18.0.0/15 (RFC 2544, never routed): nothing answers there, and
// nothing should try, since every tool that would connect is simulated.
var knownNames = map[string]string{
	"registry.k8s.io":               "198.18.0.10",
	"k8s.gcr.io":                    "198.18.0.11",
	"gcr.io":                        "198.18.0.12",
	"mirror.gcr.io":                 "198.18.0.13",
	"docker.io":                     "198.18.0.20",
	"registry-1.docker.io":          "198.18.0.21",
	"auth.docker.io":                "198.18.0.22",
	"quay.io":                       "198.18.0.30",
	"ghcr.io":                       "198.18.0.31",
	"pkgs.k8s.io":                   "198.18.0.40",
	"packages.buildkite.com":        "198.18.0.42",
	"prod-cdn.packages.k8s.io":      "198.18.0.41",
	"deb.debian.org":                "198.18.0.50",
	"security.debian.org":           "198.18.0.51",
	"archive.ubuntu.com":            "198.18.0.52",
	"security.ubuntu.com":           "198.18.0.53",
	"charts.longhorn.io":            "198.18.0.60",
	"helm.cilium.io":                "198.18.0.61",
	"charts.min.io":                 "198.18.0.62",
	"grafana.github.io":             "198.18.0.63",
	"github.com":                    "198.18.0.70",
	"raw.githubusercontent.com":     "198.18.0.71",
	"objects.githubusercontent.com": "198.18.0.72",
}

// realTool is where the shadowed program lives on a Debian/Ubuntu host.
var realTool = map[string]string{"getent": "/usr/bin/getent", "curl": "/usr/bin/curl", "apt-cache": "/usr/bin/apt-cache"}

// execReal replaces the process with the real program (inside a host) or,
// when it is missing, fails like a shell that cannot find it.
func (s *sim) execReal(tool string, args []string) int {
	p := realTool[tool]
	if s.root != "/" {
		// Outside a host (tests): the real program is not ours to run.
		return s.fail(127, "cp-hostsim: %s %s is not simulated and the real %s is not run outside a host", tool, strings.Join(args, " "), p)
	}
	if _, err := os.Stat(p); err != nil {
		return s.fail(127, "%s: command not found", tool)
	}
	err := syscall.Exec(p, append([]string{tool}, args...), os.Environ())
	return s.fail(126, "cp-hostsim: exec %s: %v", p, err)
}

// resolveBroken applies a pending dns fault to the host and reports
// whether name resolution fails there, with the nameserver tried.
func (s *sim) resolveBroken() (bool, string) {
	broken, ns := false, ""
	_ = s.st.update(func(st *State) error {
		if _, ok := st.fault(FaultDNS, s.host.Host); !ok {
			return nil
		}
		_ = applyDNS(st, s.host.Host, s.root)
		broken, ns = dnsBroken(st, s.host.Host, s.root)
		return nil
	})
	return broken, ns
}

// inEtcHosts reports whether /etc/hosts of the host names name.
func (s *sim) inEtcHosts(name string) bool {
	b, _ := os.ReadFile(s.path("/etc/hosts"))
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		for _, n := range f[min(1, len(f)):] {
			if strings.EqualFold(n, name) {
				return true
			}
		}
	}
	return false
}

// getentReal hands getent to the real program unless it asks for hosts
// that need DNS: other databases, address literals and /etc/hosts names.
func (s *sim) getentReal(args []string) (int, bool) {
	if len(args) < 2 || args[0] != "hosts" {
		return s.execReal("getent", args), true
	}
	for _, raw := range args[1:] {
		if !s.localName(raw) {
			return 0, false
		}
	}
	return s.execReal("getent", args), true
}

// localName reports whether a name resolves without DNS.
func (s *sim) localName(raw string) bool {
	name := strings.TrimSuffix(strings.ToLower(raw), ".")
	_, err := netip.ParseAddr(name)
	return err == nil || s.inEtcHosts(name)
}

// getentHosts is getent hosts NAME...: the known external names resolve
// (to 198.18.0.0/15), nothing that needs DNS resolves while a dns fault
// breaks resolv.conf, and other names go to the real getent.
func (s *sim) getentHosts(p flags) int {
	broken, _ := s.resolveBroken()
	code := 0
	for _, raw := range p.pos[1:] {
		addr, known := knownNames[strings.TrimSuffix(strings.ToLower(raw), ".")]
		switch {
		case s.localName(raw) || (!broken && !known):
			if c := s.realGetentOne("hosts", raw); c != 0 {
				code = c
			}
		case broken:
			code = 2 // getent: one or more keys not found
		default:
			s.printf("%-15s %s\n", addr, raw)
		}
	}
	return code
}

// realGetentOne runs the real getent for one key and copies its output.
func (s *sim) realGetentOne(db, key string) int {
	if s.root != "/" {
		return 2
	}
	cmd := exec.Command(realTool["getent"], db, key)
	cmd.Stdout, cmd.Stderr = s.out, s.err
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 2
	}
	return 0
}

// aptKeyURLs are the repository signing keys the builtin scripts fetch;
// the submatch names the key in the stand-in's text.
var aptKeyURLs = []*regexp.Regexp{
	regexp.MustCompile(`^https://pkgs\.k8s\.io/core:/stable:/(v1\.\d+)/deb/Release\.key$`),
	regexp.MustCompile(`^https://packages\.buildkite\.com/(helm-linux/helm-debian)/gpgkey$`),
	dockerKeyURL,
}

// dockerKeyURL is the key Docker publishes for its apt repositories; the
// simulator serves Docker's real public key (docker-apt-key.asc, primary
// fingerprint 9DC8 5822 9FC7 DD38 854A E2D8 8D81 803C 0EBF CD88, the one
// Docker's install guide publishes), which the real gpg on a host reads.
var dockerKeyURL = regexp.MustCompile(`^https://download\.docker\.com/(linux/(?:debian|ubuntu))/gpg$`)

//go:embed docker-apt-key.asc
var dockerAptKey string

// registryProbeURL is a container registry's API root (OCI distribution:
// GET /v2/ answers 200, or 401 when it wants a token), which
// validate-credentials reaches over TLS or HTTP.
var registryProbeURL = regexp.MustCompile(`^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/v2/$`)

// curlReal hands curl to the real program unless it fetches one of the
// apt repository keys the builtin scripts download or probes a registry.
func (s *sim) curlReal(args []string) (int, bool) {
	for _, a := range args {
		if registryProbeURL.MatchString(a) || cniManifestURL.MatchString(a) {
			return 0, false
		}
		for _, re := range aptKeyURLs {
			if re.MatchString(a) {
				return 0, false
			}
		}
	}
	return s.execReal("curl", args), true
}

// curl is curl [-f] [-s] [-S] [-L] KEY-URL to stdout. pkgs.k8s.io
// redirects to its CDN (without -L curl prints the redirect page), and
// has repositories from v1.24 on (older ones answer 403, an error with
// -f); -s hides errors unless -S shows them.
func (s *sim) curl(p flags) int {
	u := p.arg(0)
	if registryProbeURL.MatchString(u) && len(p.pos) == 1 {
		return s.curlRegistryProbe(p, u)
	}
	if cniManifestURL.MatchString(u) && len(p.pos) == 1 {
		return s.curlManifest(p, u)
	}
	var key []string
	for _, re := range aptKeyURLs {
		if m := re.FindStringSubmatch(u); m != nil {
			key = m
		}
	}
	if key == nil || len(p.pos) != 1 {
		return s.notEmulated("curl", "(one apt repository key URL)")
	}
	if o := p.get("o"); o != "" {
		return s.notEmulated("curl", "-o", o, "(a key goes to stdout)")
	}
	showErr := !p.has("s") || p.has("S")
	if broken, _ := s.resolveBroken(); broken {
		if showErr {
			s.fail(6, "curl: (6) Could not resolve host: %s", repoHost(u))
		}
		return 6
	}
	if strings.HasPrefix(u, "https://pkgs.k8s.io/") {
		if !p.has("L") {
			s.printf("<a href=\"https://prod-cdn.packages.k8s.io/repositories/isv:/kubernetes:/core:/stable:/%s/deb/Release.key\">Found</a>.\n\n", key[1])
			return 0
		}
		if minor("v"+strings.TrimPrefix(key[1], "v")) < 24 {
			if p.has("f") {
				if showErr {
					s.fail(22, "curl: (22) The requested URL returned error: 403")
				}
				return 22
			}
			s.printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>")
			return 0
		}
	}
	if dockerKeyURL.MatchString(u) {
		s.printf("%s", dockerAptKey)
		return 0
	}
	s.printf("%s", aptKeyArmor(key[1]))
	return 0
}

// aptKeyArmor is an ASCII-armored stand-in for the repository key of a
// Kubernetes minor: gpg --dearmor accepts it; the simulated apt-get never
// checks signatures, so it is not a real OpenPGP key.
func aptKeyArmor(name string) string {
	payload := []byte("cp-hostsim stand-in for the " + name + " apt repository key; not an OpenPGP key\n")
	enc := base64.StdEncoding.EncodeToString(payload)
	var b strings.Builder
	b.WriteString("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n")
	for len(enc) > 64 {
		b.WriteString(enc[:64] + "\n")
		enc = enc[64:]
	}
	b.WriteString(enc + "\n")
	c := crc24(payload)
	b.WriteString("=" + base64.StdEncoding.EncodeToString([]byte{byte(c >> 16), byte(c >> 8), byte(c)}) + "\n")
	b.WriteString("-----END PGP PUBLIC KEY BLOCK-----\n")
	return b.String()
}

// crc24 is the OpenPGP armor checksum (RFC 4880 §6.1).
func crc24(data []byte) uint32 {
	crc := uint32(0xB704CE)
	for _, d := range data {
		crc ^= uint32(d) << 16
		for i := 0; i < 8; i++ {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= 0x1864CFB
			}
		}
	}
	return crc & 0xFFFFFF
}

// curlRegistryProbe is curl -sS [--max-time N] -o /dev/null -w '%{http_code}'
// REGISTRY/v2/: the registry answers 200 (its status code on stdout, exit
// 0, as curl without -f does for any HTTP answer) unless the host cannot
// resolve names (exit 6).
func (s *sim) curlRegistryProbe(p flags, u string) int {
	if p.get("o") != "/dev/null" || p.get("w") != "%{http_code}" {
		return s.notEmulated("curl", "(a registry probe without -o /dev/null -w %{http_code})")
	}
	if broken, _ := s.resolveBroken(); broken {
		if !p.has("s") || p.has("S") {
			s.fail(6, "curl: (6) Could not resolve host: %s", repoHost(u))
		}
		s.printf("000")
		return 6
	}
	s.printf("200")
	return 0
}
