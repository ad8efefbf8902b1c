package hostsim

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// aptRoot runs fn on the state when the caller is root, as apt-get
// needs dpkg's lock.
func (s *sim) aptRoot(fn func(st *State, hs *HostState, dnsDown bool) int) int {
	if s.euid != 0 {
		return s.fail(100, "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?")
	}
	var code int
	err := s.st.update(func(st *State) error {
		_ = applyDNS(st, s.host.Host, s.root)
		broken, _ := dnsBroken(st, s.host.Host, s.root)
		code = fn(st, st.host(s.host.Host), broken)
		return nil
	})
	if err != nil {
		return s.fail(100, "E: cp-hostsim: %v", err)
	}
	return code
}

// aptSources lists the repository URLs configured on the host, sorted.
func (s *sim) aptSources() []string {
	files := []string{s.path("/etc/apt/sources.list")}
	m, _ := filepath.Glob(s.path("/etc/apt/sources.list.d/*"))
	files = append(files, m...)
	seen := map[string]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			for _, w := range strings.Fields(line) {
				if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") {
					seen[w] = true
				}
				if u, ok := strings.CutPrefix(w, "URIs:"); ok && u != "" {
					seen[u] = true
				}
			}
			if f := strings.Fields(line); len(f) == 2 && f[0] == "URIs:" {
				seen[f[1]] = true
			}
		}
	}
	var out []string
	for u := range seen {
		out = append(out, u)
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"http://deb.debian.org/debian"}
	}
	return out
}

func repoHost(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	h, _, _ := strings.Cut(u, "/")
	return h
}

// aptUpdate prints one Hit: line per repository (Ign: and warnings
// while DNS is broken).
func (s *sim) aptUpdate(p flags) int {
	return s.aptRoot(func(st *State, hs *HostState, broken bool) int {
		srcs := s.aptSources()
		for i, u := range srcs {
			if broken {
				s.printf("Ign:%d %s InRelease\n  Temporary failure resolving '%s'\n", i+1, u, repoHost(u))
			} else {
				s.printf("Hit:%d %s InRelease\n", i+1, u)
			}
		}
		s.printf("Reading package lists...\n")
		if broken {
			for _, u := range srcs {
				s.fail(0, "W: Failed to fetch %s/InRelease  Temporary failure resolving '%s'", u, repoHost(u))
			}
			s.fail(0, "W: Some index files failed to download. They have been ignored, or old ones used instead.")
		}
		return 0
	})
}

// aptInstall is apt-get install [-y] [--allow-change-held-packages]
// PKG[=VERSION]...: dependencies of emulated packages come along (then,
// without -y, apt asks and stdin must say yes); a held package whose
// version changes needs --allow-change-held-packages.
func (s *sim) aptInstall(p flags) int {
	return s.aptRoot(func(st *State, hs *HostState, dnsDown bool) int { return s.aptInstallIn(st, hs, p, dnsDown) })
}

func (s *sim) aptInstallIn(st *State, hs *HostState, p flags, dnsDown bool) int {
	s.printf("Reading package lists...\nBuilding dependency tree...\nReading state information...\n")
	type want struct{ name, version string }
	var queue []want
	for _, a := range p.pos[1:] {
		name, ver, _ := strings.Cut(a, "=")
		if strings.Contains(ver, "*") {
			// apt matches a version glob; the simulated repository has
			// one Debian revision per upstream version.
			ver = strings.TrimSuffix(strings.TrimSuffix(ver, "*"), "-") + "-1.1"
		}
		queue = append(queue, want{name, ver})
	}
	if len(queue) == 0 {
		s.printf("0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n")
		return 0
	}
	catalog := emulatedPackages()
	var newPkgs []want
	seen := map[string]bool{}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if seen[w.name] {
			continue
		}
		seen[w.name] = true
		if w.name == "containerd.io" {
			// Docker's package, from the real binaries of the host's pool.
			if v, ok := s.dpkgInstalled(w.name); ok && (w.version == "" || w.version == v) {
				s.printf("%s is already the newest version (%s).\n", w.name, v)
				continue
			}
			v, msg := s.containerdIOCandidate(w.version)
			if msg != "" {
				return s.fail(100, "%s", msg)
			}
			w.version = v
			newPkgs = append(newPkgs, w)
			continue
		}
		info, emulated := catalog[w.name]
		if realDebian[w.name] {
			if v, ok := s.dpkgInstalledReal(w.name); ok {
				// The machine's real package, seen through the host's overlay.
				if w.version == "" || w.version == v {
					s.printf("%s is already the newest version (%s).\n", w.name, v)
					continue
				}
				return s.fail(100, "E: Version '%s' for '%s' was not found (cp-hostsim: %s is the machine's real Debian package, version %s)", w.version, w.name, w.name, v)
			}
			if s.root == "/" {
				return s.fail(100, "E: Unable to locate package %s (cp-hostsim: on test hosts %s is the machine's real Debian package; install it on the machine with scripts/prereqs.sh)", w.name, w.name)
			}
		}
		if v, ok := hs.Packages[w.name]; ok && (w.version == "" || w.version == v) {
			s.printf("%s is already the newest version (%s).\n", w.name, v)
			continue
		}
		if v, ok := s.dpkgInstalled(w.name); ok && !emulated && (w.version == "" || w.version == v) {
			s.printf("%s is already the newest version (%s).\n", w.name, v)
			continue
		}
		if w.version == "" {
			w.version = info.version
			if emulated && w.version == "" {
				w.version = s.kubePackageVersion()
			}
			if !emulated {
				w.version = "1.0-1"
			}
		}
		newPkgs = append(newPkgs, w)
		for _, d := range info.deps {
			queue = append(queue, want{name: d})
		}
	}
	if len(newPkgs) == 0 {
		s.printf("0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n")
		return 0
	}
	if dnsDown {
		for _, w := range newPkgs {
			u := s.aptSources()[0]
			s.fail(0, "E: Failed to fetch %s/pool/main/%s_%s_amd64.deb  Temporary failure resolving '%s'", u, w.name, w.version, repoHost(u))
		}
		return s.fail(100, "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?")
	}
	var names, held []string
	for _, w := range newPkgs {
		names = append(names, w.name)
		if s.dpkgHeld(w.name) {
			held = append(held, w.name)
		}
	}
	sort.Strings(names)
	if len(held) > 0 {
		sort.Strings(held)
		s.printf("The following held packages will be changed:\n  %s\n", strings.Join(held, " "))
		if !p.has("allow-change-held-packages") {
			return s.fail(100, "E: Held packages were changed and -y was used without --allow-change-held-packages.")
		}
	}
	s.printf("The following NEW packages will be installed:\n  %s\n", strings.Join(names, " "))
	s.printf("0 upgraded, %d newly installed, 0 to remove and 0 not upgraded.\n", len(newPkgs))
	if len(newPkgs) > len(p.pos)-1 && !p.has("y") {
		// Packages beyond those asked for: apt asks first.
		s.printf("Do you want to continue? [Y/n] ")
		line, _ := bufio.NewReader(s.stdin).ReadString('\n')
		if a := strings.TrimSpace(line); line == "" || (a != "" && a != "y" && a != "Y") {
			return s.fail(1, "Abort.")
		}
	}
	for i := len(newPkgs) - 1; i >= 0; i-- { // dependencies first
		w := newPkgs[i]
		s.printf("Setting up %s (%s) ...\n", w.name, w.version)
		info := catalog[w.name]
		if w.name == "containerd.io" {
			if err := s.installContainerdIO(); err != nil {
				return s.fail(100, "E: cp-hostsim: install %s: %v", w.name, err)
			}
		}
		if err := s.installFiles(info); err != nil {
			return s.fail(100, "E: cp-hostsim: install %s: %v", w.name, err)
		}
		if err := s.dpkgRecord(w.name, w.version); err != nil {
			return s.fail(100, "E: cp-hostsim: install %s: %v", w.name, err)
		}
		hs.Packages[w.name] = w.version
		for _, u := range info.units {
			if strings.Contains(u, "@.") {
				continue
			}
			// Debian enables and starts services on install.
			svc := &Service{Enabled: true, Active: true, Since: s.now()}
			hs.Services[u] = svc
			s.unitStarted(st, hs, u)
		}
	}
	return 0
}
