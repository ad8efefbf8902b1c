package hostsim

import (
	"os"
	"path/filepath"
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

// sysctl emulates sysctl KEY, -w KEY=V, -p [FILE] and --system; values
// are kept per host in the simulator state, never written to the kernel.
func (s *sim) sysctl(args []string) int {
	p := parseFlags(args)
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		set := func(kv string) bool {
			k, v, _ := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			ignoreMissing := strings.HasPrefix(k, "-")
			k = strings.TrimPrefix(k, "-")
			if strings.HasPrefix(k, "net.bridge.") && !slices.Contains(hs.Modules, "br_netfilter") {
				if !ignoreMissing {
					s.fail(0, "sysctl: cannot stat /proc/sys/%s: No such file or directory", strings.ReplaceAll(k, ".", "/"))
					return false
				}
				return true
			}
			if s.euid != 0 {
				s.fail(0, "sysctl: permission denied on key \"%s\"", k)
				return false
			}
			hs.Sysctl[k] = v
			if !p.has("q", "quiet") {
				s.printf("%s = %s\n", k, v)
			}
			return true
		}
		applyFile := func(f string) bool {
			b, err := os.ReadFile(s.path(f))
			if err != nil {
				s.fail(0, "sysctl: cannot open \"%s\": No such file or directory", f)
				return false
			}
			ok := true
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") || !strings.Contains(line, "=") {
					continue
				}
				ok = set(line) && ok
			}
			return ok
		}
		switch {
		case p.has("system"):
			var files []string
			for _, d := range []string{"/usr/lib/sysctl.d", "/run/sysctl.d", "/etc/sysctl.d"} {
				m, _ := filepath.Glob(s.path(d + "/*.conf"))
				for _, f := range m {
					files = append(files, strings.TrimPrefix(f, strings.TrimSuffix(s.root, "/")))
				}
			}
			sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
			files = append(files, "/etc/sysctl.conf")
			for _, f := range files {
				if !s.exists(f) {
					continue
				}
				s.printf("* Applying %s ...\n", f)
				applyFile(f)
			}
		case p.has("p", "load"):
			f := firstNonEmpty(p.arg(0), "/etc/sysctl.conf")
			if v := p.get("p"); v != "true" && v != "" {
				f = v
			}
			if !applyFile(f) {
				code = 255
			}
		case p.has("w", "write"):
			for _, kv := range p.pos {
				if !set(kv) {
					code = 255
				}
			}
		default:
			for _, k := range p.pos {
				if strings.Contains(k, "=") {
					if !set(k) {
						code = 255
					}
					continue
				}
				v := s.sysctlValue(hs, k)
				if v == "" {
					s.fail(0, "sysctl: cannot stat /proc/sys/%s: No such file or directory", strings.ReplaceAll(k, ".", "/"))
					code = 255
					continue
				}
				if p.has("n", "values") {
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

// modprobe records loaded modules per host; it never loads anything.
func (s *sim) modprobe(args []string) int {
	p := parseFlags(args)
	if s.euid != 0 && !p.has("n", "dry-run") {
		return s.fail(1, "modprobe: ERROR: could not insert '%s': Operation not permitted", p.arg(0))
	}
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		mods := p.pos
		if !p.has("a", "all") && len(mods) > 1 {
			mods = mods[:1] // modprobe MODULE [params...]
		}
		for _, m := range mods {
			if p.has("r", "remove") {
				hs.Modules = slices.DeleteFunc(hs.Modules, func(x string) bool { return x == m })
				continue
			}
			if !slices.Contains(hs.Modules, m) {
				hs.Modules = append(hs.Modules, m)
				sort.Strings(hs.Modules)
			}
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim modprobe: %v", err)
	}
	return 0
}

// swapoff records that swap is off on the host.
func (s *sim) swapoff(args []string) int {
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
