package hostsim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Docker's containerd.io package, from real containerd binaries: the test
// harness puts containerd, ctr and containerd-shim-runc-v2 built from
// containerd's Go module (make bin/containerd) into each host's pool
// directory, with the release they report in its VERSION file. apt-get
// install containerd.io=VERSION unpacks them into /usr/bin (the host's
// overlay upper layer), writes the config.toml Docker's package ships (the
// CRI plugin disabled) and replaces Debian's containerd package, as
// containerd.io's Conflicts/Replaces do. A version the pool does not hold
// is not found; without a pool the install fails, saying how to build it.

// ContainerdPoolInHost is where a host holds the containerd binaries
// containerd.io installs, and VERSION their release (2.2.9).
const ContainerdPoolInHost = "/usr/local/lib/cp-hostsim/containerd.io"

// ContainerdPoolFiles are the programs of containerd.io the pool holds,
// each unpacked to /usr/bin.
var ContainerdPoolFiles = []string{"containerd", "containerd-shim-runc-v2", "ctr"}

// dockerPackageConfig is the /etc/containerd/config.toml Docker's
// containerd.io package ships: everything commented out but the CRI
// plugin, which it disables (Docker Engine does not use it).
const dockerPackageConfig = `#   Copyright 2018-2022 Docker Inc.

#   Licensed under the Apache License, Version 2.0 (the "License");
#   you may not use this file except in compliance with the License.
#   You may obtain a copy of the License at

#       http://www.apache.org/licenses/LICENSE-2.0

#   Unless required by applicable law or agreed to in writing, software
#   distributed under the License is distributed on an "AS IS" BASIS,
#   WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#   See the License for the specific language governing permissions and
#   limitations under the License.

disabled_plugins = ["cri"]

#root = "/var/lib/containerd"
#state = "/run/containerd"
#subreaper = true
#oom_score = 0

#[grpc]
#  address = "/run/containerd/containerd.sock"
#  uid = 0
#  gid = 0

#[debug]
#  address = "/run/containerd/debug.sock"
#  uid = 0
#  gid = 0
#  level = "info"
`

// dockerRepo returns the Docker apt repository configured on the host (a
// URL ending in /linux/debian or /linux/ubuntu, as Docker's and mirrors of
// it are laid out), "" when none is.
func (s *sim) dockerRepo() string {
	for _, u := range s.aptSources() {
		t := strings.TrimSuffix(u, "/")
		if strings.HasSuffix(t, "/linux/debian") || strings.HasSuffix(t, "/linux/ubuntu") {
			return t
		}
	}
	return ""
}

// osRelease returns KEY of the host's /etc/os-release, quotes removed.
func (s *sim) osRelease(key string) string {
	b, _ := os.ReadFile(s.path("/etc/os-release"))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// containerdPoolRelease returns the release of the pool's binaries, or
// why there is none.
func (s *sim) containerdPoolRelease() (string, error) {
	b, err := os.ReadFile(s.path(ContainerdPoolInHost + "/VERSION"))
	if err != nil {
		return "", fmt.Errorf("this host has no containerd binaries for containerd.io (%s: %w); build them with make bin/containerd, which the test hosts then install", ContainerdPoolInHost, err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(b)), "v")
	if v == "" {
		return "", fmt.Errorf("%s/VERSION is empty", ContainerdPoolInHost)
	}
	return v, nil
}

// containerdIOVersion is the package version Docker's repository gives the
// pool's release on this host's distribution: 2.2.9-1~debian.12~bookworm.
func (s *sim) containerdIOVersion(release string) string {
	return fmt.Sprintf("%s-1~%s.%s~%s", release, s.osRelease("ID"), s.osRelease("VERSION_ID"), s.osRelease("VERSION_CODENAME"))
}

// aptCacheMadison is apt-cache madison PKG...: containerd.io at the one
// version the pool can install, from the Docker repository configured;
// containerd at dpkg's version of the machine's real package.
func (s *sim) aptCacheMadison(p flags) int {
	if len(p.pos) < 2 {
		return s.fail(100, "E: No packages found")
	}
	for _, name := range p.pos[1:] {
		switch name {
		case "containerd.io":
			repo := s.dockerRepo()
			if repo == "" {
				continue // no Docker repository: apt knows no containerd.io
			}
			rel, err := s.containerdPoolRelease()
			if err != nil {
				s.fail(0, "cp-hostsim: %v", err)
				continue
			}
			s.printf("%13s | %s | %s %s/stable amd64 Packages\n", name, s.containerdIOVersion(rel), repo, s.osRelease("VERSION_CODENAME"))
		case "containerd":
			if v, ok := s.dpkgInstalledReal(name); ok {
				s.printf("%10s | %s | http://deb.debian.org/debian %s/main amd64 Packages\n", name, v, s.osRelease("VERSION_CODENAME"))
			} else if v, ok := emulatedPackages()[name]; ok && s.root != "/" {
				s.printf("%10s | %s | http://deb.debian.org/debian %s/main amd64 Packages\n", name, v.version, s.osRelease("VERSION_CODENAME"))
			}
		default:
			return s.notEmulated("apt-cache", "madison", name)
		}
	}
	return 0
}

// aptCacheShow is apt-cache show PKG: the real apt-cache on a host (the
// machine's package lists, as before the shadow); outside a host a
// package of the catalog or of realDebian is found, another is not.
func (s *sim) aptCacheShow(p flags) int {
	if s.root == "/" {
		return s.execReal("apt-cache", p.pos)
	}
	for _, name := range p.pos[1:] {
		if _, ok := emulatedPackages()[name]; !ok && !realDebian[name] {
			return s.fail(100, "N: Unable to locate package %s\nE: No packages found", name)
		}
		s.printf("Package: %s\n\n", name)
	}
	return 0
}

// containerdIOCandidate returns the containerd.io version apt would
// install for the asked one ("" for any), or apt's error.
func (s *sim) containerdIOCandidate(version string) (string, string) {
	if s.dockerRepo() == "" {
		return "", "E: Unable to locate package containerd.io"
	}
	rel, err := s.containerdPoolRelease()
	if err != nil {
		return "", "E: cp-hostsim: " + err.Error()
	}
	have := s.containerdIOVersion(rel)
	if version != "" && version != have {
		return "", fmt.Sprintf("E: Version '%s' for 'containerd.io' was not found (cp-hostsim: its containerd binaries are %s, package %s)", version, rel, have)
	}
	return have, ""
}

// installContainerdIO unpacks the pool's binaries, writes Docker's
// config.toml and replaces Debian's containerd package.
func (s *sim) installContainerdIO() error {
	for _, f := range ContainerdPoolFiles {
		if err := copyExecutable(s.path(filepath.Join(ContainerdPoolInHost, f)), s.path(filepath.Join("/usr/bin", f))); err != nil {
			return fmt.Errorf("unpack containerd.io: %w", err)
		}
	}
	conf := s.path(containerdConfig)
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(conf), err)
	}
	if err := os.WriteFile(conf, []byte(dockerPackageConfig), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", conf, err)
	}
	return s.dpkgForget("containerd")
}

// copyExecutable writes src's bytes to dst (mode 0755) through a
// temporary file, so a running program at dst keeps its own.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
	}
	tmp := dst + ".cp-hostsim-new"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, tmp, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

// dpkgForget removes a package's stanza from dpkg's status file, as
// dpkg does when another package's Replaces removes it.
func (s *sim) dpkgForget(name string) error {
	p := s.path(dpkgStatusPath)
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	var keep []string
	for _, stanza := range strings.Split(strings.TrimRight(string(b), "\n"), "\n\n") {
		if stanza == "" || strings.HasPrefix(stanza, "Package: "+name+"\n") {
			continue
		}
		keep = append(keep, stanza)
	}
	if err := os.WriteFile(p, []byte(strings.Join(keep, "\n\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}
