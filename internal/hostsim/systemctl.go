package hostsim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
		for _, f := range []string{unit, tmpl} { // wg-quick@wg0 from wg-quick@.service
			if _, err := os.Stat(s.path(filepath.Join(d, f))); err == nil {
				return true
			}
		}
	}
	return false
}

// unitState is what systemctl is-active prints.
func (s *sim) unitState(hs *HostState, unit string) string {
	svc := hs.Services[unit]
	if s.pgUnit(unit) {
		return s.pgUnitState(svc, unit)
	}
	if unit == "containerd.service" && s.realContainerd() {
		// The real daemon: active while its process runs.
		switch {
		case s.containerdPid() > 0:
			return "active"
		case svc != nil && svc.Active:
			return "failed" // started, then exited
		}
		return "inactive"
	}
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
)

// readContainerdConfig records what containerd would read from its config
// when it starts: a registry mirror, the CRI plugin.
func (s *sim) readContainerdConfig(hs *HostState) {
	b, _ := os.ReadFile(s.path("/etc/containerd/config.toml"))
	cfg := string(b)
	hs.CRIDisabled = criOffRE.MatchString(cfg)
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

// systemctlUnits runs fn on the host's state with the named units
// (".service" added to bare names).
func (s *sim) systemctlUnits(p flags, fn func(st *State, hs *HostState, units []string) int) int {
	var units []string
	for _, u := range p.pos[1:] {
		units = append(units, unitName(u))
	}
	code := 0
	err := s.st.update(func(st *State) error {
		code = fn(st, st.host(s.host.Host), units)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim systemctl: %v", err)
	}
	for _, fn := range s.afterUnlock {
		if c := fn(); c != 0 && code == 0 {
			code = c
		}
	}
	return code
}

func (s *sim) systemctlDaemonReload(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "Failed to reload daemon: Interactive authentication required.")
	}
	return 0
}

// systemctlIsActive prints each unit's state (unless --quiet); exit 0
// when one is active, else 3.
func (s *sim) systemctlIsActive(p flags) int {
	return s.systemctlUnits(p, func(st *State, hs *HostState, units []string) int {
		code := 3
		for _, u := range units {
			state := s.unitState(hs, u)
			if !p.has("quiet") {
				s.printf("%s\n", state)
			}
			if state == "active" {
				code = 0
			}
		}
		return code
	})
}

// systemctlIsEnabled prints enabled or disabled; exit 0 when one is enabled.
func (s *sim) systemctlIsEnabled(p flags) int {
	return s.systemctlUnits(p, func(st *State, hs *HostState, units []string) int {
		code := 1
		for _, u := range units {
			if !s.unitKnown(hs, u) {
				s.fail(0, "Failed to get unit file state for %s: No such file or directory", u)
				continue
			}
			if svc := hs.Services[u]; svc != nil && svc.Enabled {
				s.printf("enabled\n")
				code = 0
			} else {
				s.printf("disabled\n")
			}
		}
		return code
	})
}

// systemctlChange is enable [--now], disable [--now] and restart: root
// only, for units the host knows.
func (s *sim) systemctlChange(p flags) int {
	verb := p.arg(0)
	return s.systemctlUnits(p, func(st *State, hs *HostState, units []string) int {
		if len(units) == 0 {
			return s.fail(1, "Too few arguments.")
		}
		for _, u := range units {
			if s.euid != 0 {
				return s.fail(1, "Failed to %s %s: Interactive authentication required.\nSee system logs and 'systemctl status %s' for details.", verb, u, u)
			}
			if !s.unitKnown(hs, u) {
				if verb == "restart" {
					return s.fail(5, "Failed to restart %s: Unit %s not found.", u, u)
				}
				return s.fail(1, "Failed to %s unit: Unit file %s does not exist.", verb, u)
			}
			svc := hs.Services[u]
			if svc == nil {
				svc = &Service{}
				hs.Services[u] = svc
			}
			start := false
			switch verb {
			case "restart":
				svc.Active, start = false, true
			case "enable":
				svc.Enabled = true
				s.fail(0, "Created symlink /etc/systemd/system/multi-user.target.wants/%s → /lib/systemd/system/%s.", u, u)
				start = p.has("now")
			case "disable":
				svc.Enabled = false
				s.fail(0, "Removed \"/etc/systemd/system/multi-user.target.wants/%s\".", u)
				if p.has("now") {
					svc.Active = false
					if u == "containerd.service" && s.realContainerd() {
						s.stopContainerd()
					}
					if s.pgUnit(u) {
						s.pgStop(u)
					}
				}
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
	})
}

// startCheck returns why a unit fails to start ("" if it starts).
func (s *sim) startCheck(unit string) string {
	if s.pgUnit(unit) {
		s.pgStart(unit)
		return ""
	}
	if unit == "containerd.service" && s.realContainerd() {
		if msg := s.spawnContainerd(); msg != "" {
			return msg
		}
		s.afterUnlock = append(s.afterUnlock, func() int {
			if msg := s.awaitContainerd(); msg != "" {
				return s.fail(1, "Job for %s failed because the control process exited with error code.\nSee \"systemctl status %s\" and \"journalctl -xeu %s\" for details.\n%s", unit, unit, unit, msg)
			}
			return 0
		})
	}
	if rest, ok := strings.CutPrefix(unit, "wg-quick@"); ok {
		iface := strings.TrimSuffix(rest, ".service")
		if _, err := os.Stat(s.path("/etc/wireguard/" + iface + ".conf")); err != nil {
			return fmt.Sprintf("wg-quick: `/etc/wireguard/%s.conf' does not exist", iface)
		}
	}
	return ""
}
