package hostsim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// unitName adds ".service" to a bare unit name.
func unitName(u string) string {
	if strings.Contains(u, ".") && !strings.HasSuffix(u, ".") {
		if i := strings.LastIndex(u, "."); i > 0 {
			switch u[i:] {
			case ".service", ".socket", ".timer", ".target", ".mount", ".path":
				return u
			}
		}
	}
	return u + ".service"
}

// unitKnown reports whether a unit exists on the host: provided by an
// emulated package that is installed, or a unit file on disk.
func (s *sim) unitKnown(hs *HostState, unit string) bool {
	tmpl := unit
	if at := strings.Index(unit, "@"); at >= 0 {
		tmpl = unit[:at+1] + unit[strings.LastIndex(unit, "."):]
	}
	catalog := emulatedPackages()
	for name := range hs.Packages {
		for _, u := range catalog[name].units {
			if u == unit || u == tmpl {
				return true
			}
		}
	}
	for _, d := range []string{"/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"} {
		if _, err := os.Stat(s.path(filepath.Join(d, unit))); err == nil {
			return true
		}
	}
	return false
}

// unitState is what systemctl is-active prints.
func (s *sim) unitState(hs *HostState, unit string) string {
	svc := hs.Services[unit]
	if svc == nil || !svc.Active {
		return "inactive"
	}
	if unit == "kubelet.service" {
		// kubelet crash-loops until kubeadm wrote its configuration. A
		// caller without root may not see into /var/lib/kubelet (0700):
		// only a file known to be absent counts.
		if _, err := os.Stat(s.path("/var/lib/kubelet/config.yaml")); errors.Is(err, fs.ErrNotExist) {
			return "activating"
		}
	}
	return "active"
}

var (
	mirrorRE     = regexp.MustCompile(`registry\.mirrors\.`)
	configPathRE = regexp.MustCompile(`(?m)^\s*config_path\s*=\s*["']([^"']+)["']`)
	criOffRE     = regexp.MustCompile(`(?m)^\s*disabled_plugins\s*=\s*\[[^\]]*["'](cri|io\.containerd\.grpc\.v1\.cri)["']`)
	systemdCgRE  = regexp.MustCompile(`(?m)^\s*SystemdCgroup\s*=\s*true`)
)

// readContainerdConfig records what containerd would read from its config
// when it starts: a registry mirror, the CRI plugin, the cgroup driver.
func (s *sim) readContainerdConfig(hs *HostState) {
	b, _ := os.ReadFile(s.path("/etc/containerd/config.toml"))
	cfg := string(b)
	hs.CRIDisabled = criOffRE.MatchString(cfg)
	hs.SystemdCgroup = systemdCgRE.MatchString(cfg)
	hs.MirrorConfigured = mirrorRE.MatchString(cfg)
	if m := configPathRE.FindStringSubmatch(cfg); m != nil {
		for _, dir := range strings.Split(m[1], ":") {
			hosts, _ := filepath.Glob(s.path(filepath.Join(dir, "*", "hosts.toml")))
			for _, h := range hosts {
				hb, _ := os.ReadFile(h)
				if strings.Contains(string(hb), "[host.") || strings.Contains(string(hb), "server") {
					hs.MirrorConfigured = true
				}
			}
		}
	}
}

// unitStarted runs what starting a unit does in the simulation.
func (s *sim) unitStarted(st *State, hs *HostState, unit string) {
	if unit == "containerd.service" {
		s.readContainerdConfig(hs)
	}
	if rest, ok := strings.CutPrefix(unit, "wg-quick@"); ok {
		s.wgRecord(hs, strings.TrimSuffix(rest, ".service"))
	}
}

// systemctl emulates systemctl for the units of emulated packages and
// unit files on the host.
func (s *sim) systemctl(args []string) int {
	p := parseFlags(args, "type", "t", "state", "property", "p", "output", "o", "lines", "n")
	if len(p.pos) == 0 {
		return s.fail(1, "cp-hostsim systemctl: listing units is not simulated; name a verb (start, stop, is-active, ...)")
	}
	verb := p.pos[0]
	var units []string
	for _, u := range p.pos[1:] {
		units = append(units, unitName(u))
	}
	quiet := p.has("q", "quiet")
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		code = s.systemctlVerb(st, hs, verb, units, quiet, p.has("now"))
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim systemctl: %v", err)
	}
	return code
}

func (s *sim) needRoot(verb string, unit string) bool {
	if s.euid == 0 {
		return false
	}
	s.fail(1, "Failed to %s %s: Interactive authentication required.\nSee system logs and 'systemctl status %s' for details.", verb, unit, unit)
	return true
}

func (s *sim) systemctlVerb(st *State, hs *HostState, verb string, units []string, quiet, now bool) int {
	switch verb {
	case "daemon-reload", "daemon-reexec", "reset-failed":
		if s.euid != 0 && verb != "reset-failed" {
			return s.fail(1, "Failed to reload daemon: Interactive authentication required.")
		}
		return 0
	case "is-active", "is-failed":
		code := 3
		for _, u := range units {
			state := s.unitState(hs, u)
			if verb == "is-failed" {
				if !quiet {
					s.printf("%s\n", state)
				}
				continue
			}
			if !quiet {
				s.printf("%s\n", state)
			}
			if state == "active" {
				code = 0
			}
		}
		if verb == "is-failed" {
			return 1
		}
		return code
	case "is-enabled":
		code := 1
		for _, u := range units {
			if !s.unitKnown(hs, u) {
				if !quiet {
					s.fail(0, "Failed to get unit file state for %s: No such file or directory", u)
				}
				continue
			}
			if svc := hs.Services[u]; svc != nil && svc.Enabled {
				if !quiet {
					s.printf("enabled\n")
				}
				code = 0
			} else if !quiet {
				s.printf("disabled\n")
			}
		}
		return code
	case "status":
		code := 0
		for _, u := range units {
			c := s.unitStatus(hs, u)
			code = max(code, c)
		}
		return code
	case "start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "enable", "disable", "mask", "unmask":
	default:
		return s.fail(1, "cp-hostsim systemctl: verb %q is not simulated (see internal/hostsim/README.md)", verb)
	}
	if len(units) == 0 {
		return s.fail(1, "Too few arguments.")
	}
	for _, u := range units {
		if s.needRoot(verb, u) {
			return 1
		}
		if !s.unitKnown(hs, u) {
			if verb == "enable" || verb == "disable" {
				return s.fail(1, "Failed to %s unit: Unit file %s does not exist.", verb, u)
			}
			if verb == "stop" {
				return s.fail(5, "Failed to stop %s: Unit %s not loaded.", u, u)
			}
			return s.fail(5, "Failed to %s %s: Unit %s not found.", verb, u, u)
		}
		svc := hs.Services[u]
		if svc == nil {
			svc = &Service{}
			hs.Services[u] = svc
		}
		start, stop := false, false
		switch verb {
		case "start":
			start = true
		case "stop":
			stop = true
		case "restart", "reload", "reload-or-restart":
			stop, start = true, true
		case "try-restart":
			start = svc.Active
		case "enable":
			svc.Enabled = true
			s.fail(0, "Created symlink /etc/systemd/system/multi-user.target.wants/%s → /lib/systemd/system/%s.", u, u)
			start = now
		case "disable":
			svc.Enabled = false
			s.fail(0, "Removed \"/etc/systemd/system/multi-user.target.wants/%s\".", u)
			stop = now
		}
		if stop {
			svc.Active = false
		}
		if start {
			if fail := s.startCheck(u); fail != "" {
				svc.Active = false
				return s.fail(1, "Job for %s failed because the control process exited with error code.\nSee \"systemctl status %s\" and \"journalctl -xeu %s\" for details.\n%s", u, u, u, fail)
			}
			svc.Active = true
			svc.Since = s.now()
			s.unitStarted(st, hs, u)
		}
	}
	return 0
}

// startCheck returns why a unit fails to start ("" if it starts).
func (s *sim) startCheck(unit string) string {
	if rest, ok := strings.CutPrefix(unit, "wg-quick@"); ok {
		iface := strings.TrimSuffix(rest, ".service")
		if _, err := os.Stat(s.path("/etc/wireguard/" + iface + ".conf")); err != nil {
			return fmt.Sprintf("wg-quick: `/etc/wireguard/%s.conf' does not exist", iface)
		}
	}
	return ""
}

func (s *sim) unitStatus(hs *HostState, u string) int {
	if !s.unitKnown(hs, u) {
		s.fail(0, "Unit %s could not be found.", u)
		return 4
	}
	svc := hs.Services[u]
	enabled := "disabled"
	if svc != nil && svc.Enabled {
		enabled = "enabled"
	}
	state := s.unitState(hs, u)
	s.printf("● %s\n     Loaded: loaded (/lib/systemd/system/%s; %s; preset: enabled)\n", u, u, enabled)
	switch state {
	case "active":
		s.printf("     Active: active (running) since %s\n", svc.Since.UTC().Format("Mon 2006-01-02 15:04:05 MST"))
		return 0
	case "activating":
		s.printf("     Active: activating (auto-restart) (Result: exit-code)\n")
		return 3
	}
	s.printf("     Active: inactive (dead)\n")
	return 3
}

// servicesOf lists a host's units, sorted (for tests and state output).
func servicesOf(hs *HostState) []string {
	var out []string
	for u := range hs.Services {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
