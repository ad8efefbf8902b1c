package hostsim

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// pkgInfo is what installing an emulated package does.
type pkgInfo struct {
	version string   // default version ("" = Kubernetes version)
	bins    []string // links to the simulator created in the host
	units   []string // systemd units it provides
	deps    []string
	files   map[string]string // files written on install
}

const (
	defaultKubeVersion = "1.31.2"
	containerdVersion  = "1.7.22"
	helmVersion        = "3.16.2"
	crictlVersion      = "1.31.1"
)

// emulatedPackages are the packages whose programs the simulator provides.
func emulatedPackages() map[string]pkgInfo {
	// containerd's programs are Debian's real ones on test hosts (see
	// realDebian); outside a host it is only its unit.
	ctrd := pkgInfo{version: containerdVersion + "-1", units: []string{"containerd.service"}, deps: []string{"runc"}}
	return map[string]pkgInfo{
		"containerd": ctrd,
		// Docker's containerd.io: the real binaries of the host's pool
		// (containerd_io.go); its version is the pool's.
		"containerd.io": {units: []string{"containerd.service"}},
		"cri-tools":     {version: crictlVersion + "-1.1", bins: []string{"/usr/bin/crictl"}},
		// Debian's etcd-client is etcd 3.4: etcdctl, no etcdutl.
		"etcd-client":     {version: "3.4.23-4", bins: []string{"/usr/bin/etcdctl"}},
		"helm":            {version: helmVersion + "-1", bins: []string{"/usr/bin/helm"}},
		"kubeadm":         {bins: []string{"/usr/bin/kubeadm"}, deps: []string{"cri-tools", "kubernetes-cni"}},
		"kubectl":         {bins: []string{"/usr/bin/kubectl"}},
		"kubelet":         {bins: []string{"/usr/bin/kubelet"}, units: []string{"kubelet.service"}, deps: []string{"kubernetes-cni"}},
		"kubernetes-cni":  {version: "1.5.1-1.1", files: map[string]string{"/opt/cni/bin/README": "CNI plugins (simulated by cp-hostsim)\n"}},
		"open-iscsi":      {version: "2.1.8-1", units: []string{"iscsid.service"}},
		"runc":            {version: "1.1.12-0ubuntu3"},
		"wireguard":       {version: "1.0.20210914-1", deps: []string{"wireguard-tools"}},
		"wireguard-tools": {version: "1.0.20210914-1", bins: []string{"/usr/bin/wg", "/usr/bin/wg-quick"}, units: []string{"wg-quick@.service"}},
	}
}

// realDebian are the Debian 12 packages the packs install that test hosts
// get for real: scripts/prereqs.sh installs them on the machine, whose
// files every host sees through its overlay, and apt-get reports them as
// installed from dpkg's real status. Only a state directory outside a
// host (unit tests) emulates them, from the catalog above.
var realDebian = map[string]bool{
	"containerd":               true,
	"postgresql-15":            true,
	"postgresql-client-15":     true,
	"postgresql-common":        true,
	"postgresql-client-common": true,
	"runc":                     true,
	"wireguard-tools":          true,
}

// dpkgInstalledReal returns the version of a package dpkg installed for
// real (not recorded by the simulator).
func (s *sim) dpkgInstalledReal(name string) (string, bool) {
	b, err := os.ReadFile(s.path(dpkgStatusPath))
	if err != nil {
		return "", false
	}
	for _, stanza := range strings.Split(string(b), "\n\n") {
		if strings.HasPrefix(stanza, "Package: "+name+"\n") && strings.Contains(stanza, "\nMaintainer: cp-hostsim ") {
			return "", false
		}
	}
	return s.dpkgInstalled(name)
}

var kubeRepoRE = regexp.MustCompile(`/v(1\.\d+)/deb/`)

// kubePackageVersion is the version apt would pick for kubeadm, kubelet
// and kubectl: the minor of the configured pkgs.k8s.io repository, or of
// a mirror laid out as it is (.../v1.NN/deb/).
func (s *sim) kubePackageVersion() string {
	var files []string
	files = append(files, s.path("/etc/apt/sources.list"))
	m, _ := filepath.Glob(s.path("/etc/apt/sources.list.d/*"))
	files = append(files, m...)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if mm := kubeRepoRE.FindStringSubmatch(string(b)); mm != nil {
			if mm[1] == "1.31" {
				return defaultKubeVersion + "-1.1"
			}
			return mm[1] + ".2-1.1"
		}
	}
	return defaultKubeVersion + "-1.1"
}

// dpkgStatusPath is dpkg's database of installed packages in the host.
const dpkgStatusPath = "/var/lib/dpkg/status"

// dpkgInstalled returns the version of a package installed per dpkg.
func (s *sim) dpkgInstalled(name string) (string, bool) {
	b, err := os.ReadFile(s.path(dpkgStatusPath))
	if err != nil {
		return "", false
	}
	for _, stanza := range strings.Split(string(b), "\n\n") {
		if !strings.HasPrefix(stanza, "Package: "+name+"\n") {
			continue
		}
		if !strings.Contains(stanza, "\nStatus: install ok installed") && !strings.Contains(stanza, "\nStatus: hold ok installed") {
			return "", false
		}
		for _, line := range strings.Split(stanza, "\n") {
			if v, ok := strings.CutPrefix(line, "Version: "); ok {
				return v, true
			}
		}
		return "", true
	}
	return "", false
}

// dpkgHeld reports whether apt-mark hold marked an installed package.
func (s *sim) dpkgHeld(name string) bool {
	b, _ := os.ReadFile(s.path(dpkgStatusPath))
	for _, stanza := range strings.Split(string(b), "\n\n") {
		if strings.HasPrefix(stanza, "Package: "+name+"\n") {
			return strings.Contains(stanza, "\nStatus: hold ")
		}
	}
	return false
}

// dpkgRecord records an installed package in dpkg's status file so
// dpkg -s, dpkg -l and apt-mark see emulated installs.
func (s *sim) dpkgRecord(name, version string) error {
	p := s.path(dpkgStatusPath)
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", p, err)
	}
	var keep []string
	want := "install"
	if s.dpkgHeld(name) {
		want = "hold" // apt keeps the selection
	}
	for _, stanza := range strings.Split(strings.TrimRight(string(b), "\n"), "\n\n") {
		if stanza == "" || strings.HasPrefix(stanza, "Package: "+name+"\n") {
			continue
		}
		keep = append(keep, stanza)
	}
	keep = append(keep, fmt.Sprintf("Package: %s\nStatus: %s ok installed\nPriority: optional\nSection: admin\nInstalled-Size: 1024\nMaintainer: cp-hostsim <cp-hostsim@localhost>\nArchitecture: amd64\nVersion: %s\nDescription: %s (simulated by cp-hostsim)", name, want, version, name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(keep, "\n\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// installFiles creates a package's program links and files.
func (s *sim) installFiles(info pkgInfo) error {
	for _, b := range info.bins {
		p := s.path(b)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		_ = os.Remove(p)
		if err := os.Symlink(s.selfPath(), p); err != nil {
			return fmt.Errorf("link %s: %w", p, err)
		}
	}
	paths := make([]string, 0, len(info.files))
	for f := range info.files {
		paths = append(paths, f)
	}
	sort.Strings(paths)
	for _, f := range paths {
		p := s.path(f)
		if _, err := os.Stat(p); err == nil {
			continue // dpkg keeps a changed conffile
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, []byte(info.files[f]), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// selfPath is the simulator binary the tool links point to.
func (s *sim) selfPath() string {
	if s.root == "/" {
		if _, err := os.Stat(BinaryPathInHost); err == nil {
			return BinaryPathInHost
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return BinaryPathInHost
}
