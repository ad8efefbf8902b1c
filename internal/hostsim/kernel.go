package hostsim

import (
	"os"
	"slices"
	"sort"
	"strings"
)

// sysctlValue is a kernel parameter as the host sees it: set by the
// simulated sysctl, else defaults (ip_forward 0; bridge keys exist only
// with br_netfilter loaded), else the machine's /proc/sys.
func (s *sim) sysctlValue(hs *HostState, key string) string {
	if v, ok := hs.Sysctl[key]; ok {
		return v
	}
	switch {
	case key == "net.ipv4.ip_forward":
		return "0"
	case strings.HasPrefix(key, "net.bridge."):
		if slices.Contains(hs.Modules, "br_netfilter") {
			return "1"
		}
		return ""
	}
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(key, ".", "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sysctl is sysctl -n KEY... (print values) and sysctl -w KEY=VALUE...;
// values are kept per host in the state, never written to the kernel.
func (s *sim) sysctl(p flags) int {
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		for _, arg := range p.pos {
			k, v, assign := strings.Cut(arg, "=")
			switch {
			case assign != p.has("w"):
				// sysctl KEY=V without -w, or -w KEY: not what packs run.
				code = s.notEmulated("sysctl", arg, "(use -w KEY=VALUE or -n KEY)")
				return nil
			case strings.HasPrefix(k, "net.bridge.") && !slices.Contains(hs.Modules, "br_netfilter"):
				s.fail(0, "sysctl: cannot stat /proc/sys/%s: No such file or directory", strings.ReplaceAll(k, ".", "/"))
				code = 255
			case assign && s.euid != 0:
				s.fail(0, "sysctl: permission denied on key \"%s\"", k)
				code = 255
			case assign:
				hs.Sysctl[k] = v
				s.printf("%s = %s\n", k, v)
			default:
				v := s.sysctlValue(hs, k)
				if v == "" {
					s.fail(0, "sysctl: cannot stat /proc/sys/%s: No such file or directory", strings.ReplaceAll(k, ".", "/"))
					code = 255
					continue
				}
				if p.has("n") {
					s.printf("%s\n", v)
				} else {
					s.printf("%s = %s\n", k, v)
				}
			}
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim sysctl: %v", err)
	}
	return code
}

// modprobe MODULE records the module as loaded on the host; it never
// loads anything.
func (s *sim) modprobe(p flags) int {
	if s.euid != 0 {
		return s.fail(1, "modprobe: ERROR: could not insert '%s': Operation not permitted", p.arg(0))
	}
	if len(p.pos) != 1 {
		return s.notEmulated("modprobe", "(give exactly one MODULE)")
	}
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		if m := p.arg(0); !slices.Contains(hs.Modules, m) {
			hs.Modules = append(hs.Modules, m)
			sort.Strings(hs.Modules)
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim modprobe: %v", err)
	}
	return 0
}

// swapoff -a records that swap is off on the host.
func (s *sim) swapoff(p flags) int {
	if !p.has("a") || len(p.pos) > 0 {
		return s.notEmulated("swapoff", "(only swapoff -a)")
	}
	if s.euid != 0 {
		return s.fail(1, "swapoff: Not superuser.")
	}
	err := s.st.update(func(st *State) error {
		st.host(s.host.Host).SwapOff = true
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim swapoff: %v", err)
	}
	return 0
}
