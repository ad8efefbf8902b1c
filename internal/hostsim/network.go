package hostsim

import (
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

// KnownNames lists the external names the simulator resolves, sorted.
func KnownNames() []string { return sortedKeys(knownNames) }

// realTool is where the shadowed program lives on a Debian/Ubuntu host.
var realTool = map[string]string{"getent": "/usr/bin/getent", "curl": "/usr/bin/curl"}

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

// getent emulates `getent hosts|ahosts|ahostsv4 NAME...` for the names
// DNS would answer: known external names resolve, and nothing that needs
// DNS resolves while a dns fault breaks resolv.conf. Names in /etc/hosts,
// address literals, other names and other databases go to the real getent.
func (s *sim) getent(args []string) int {
	if len(args) < 2 || !(args[0] == "hosts" || args[0] == "ahosts" || args[0] == "ahostsv4") {
		return s.execReal("getent", args)
	}
	local := func(name string) bool {
		_, err := netip.ParseAddr(name)
		return err == nil || s.inEtcHosts(name)
	}
	needDNS := false
	for _, raw := range args[1:] {
		needDNS = needDNS || !local(strings.TrimSuffix(strings.ToLower(raw), "."))
	}
	if !needDNS {
		return s.execReal("getent", args)
	}
	broken, _ := s.resolveBroken()
	code := 0
	for _, raw := range args[1:] {
		name := strings.TrimSuffix(strings.ToLower(raw), ".")
		addr, known := knownNames[name]
		switch {
		case local(name) || (!broken && !known):
			if c := s.realGetentOne(args[0], raw); c != 0 {
				code = c
			}
		case broken:
			code = 2 // getent: one or more keys not found
		case args[0] == "hosts":
			s.printf("%-15s %s\n", addr, raw)
		default:
			s.printf("%-15s STREAM %s\n%-15s DGRAM  \n%-15s RAW    \n", addr, raw, addr, addr)
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
}

// curl emulates fetching the apt repository keys the builtin scripts
// download (`curl -fsSL https://pkgs.k8s.io/core:/stable:/v1.NN/deb/Release.key`,
// `curl -fsSL https://packages.buildkite.com/helm-linux/helm-debian/gpgkey`),
// to stdout or -o FILE. Any other URL goes to the real curl, which fails
// on test hosts like curl without network.
func (s *sim) curl(args []string) int {
	p := parseFlags(args, "o", "output", "H", "header", "X", "request", "d", "data", "u", "user", "A", "user-agent",
		"m", "max-time", "connect-timeout", "retry", "w", "write-out", "e", "referer", "T", "upload-file", "x", "proxy")
	var urls []string
	for _, a := range p.pos {
		if strings.Contains(a, "://") {
			urls = append(urls, a)
		}
	}
	var key []string
	if len(urls) == 1 {
		for _, re := range aptKeyURLs {
			if m := re.FindStringSubmatch(urls[0]); m != nil {
				key = m
			}
		}
	}
	if key == nil {
		return s.execReal("curl", args)
	}
	showErr := !s.curlSilent(args) || s.curlShowError(args)
	if broken, _ := s.resolveBroken(); broken {
		if showErr {
			s.fail(6, "curl: (6) Could not resolve host: %s", repoHost(urls[0]))
		}
		return 6
	}
	body := aptKeyArmor(key[1])
	if out := firstNonEmpty(p.get("o"), p.get("output")); out != "" && out != "-" {
		path := out
		if !strings.HasPrefix(path, "/") {
			wd, _ := os.Getwd()
			path = wd + "/" + path
		}
		if err := os.WriteFile(s.path(path), []byte(body), 0o644); err != nil {
			if showErr {
				s.fail(23, "curl: (23) Failure writing output to destination")
			}
			return 23
		}
		return 0
	}
	s.printf("%s", body)
	return 0
}

// curlSilent reports -s/--silent, also inside combined short flags (-fsSL).
func (s *sim) curlSilent(args []string) bool { return curlShort(args, 's', "silent") }

func (s *sim) curlShowError(args []string) bool { return curlShort(args, 'S', "show-error") }

func curlShort(args []string, c byte, long string) bool {
	for _, a := range args {
		if a == "--"+long {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0 {
			return true
		}
	}
	return false
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
