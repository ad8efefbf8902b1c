package hostsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A package test hosts get for real (realDebian) that dpkg installed is
// reported installed with dpkg's version and gets no simulator link; a
// version other than the real one is refused.
func TestAptGetRealDebianPackage(t *testing.T) {
	e := newEnv(t)
	e.write("w", dpkgStatusPath, "Package: containerd\nStatus: install ok installed\nMaintainer: Debian Go Packaging Team <team+pkg-go@tracker.debian.org>\nArchitecture: amd64\nVersion: 1.6.20~ds1-1+deb12u3\nDescription: daemon to control runC\n")
	r := e.must("w", "apt-get", "install", "-y", "containerd")
	contains(t, r, "containerd is already the newest version (1.6.20~ds1-1+deb12u3).")
	if strings.Contains(r.out, "Setting up") {
		t.Fatalf("a real package was emulated:\n%s", r.out)
	}
	if _, err := os.Lstat(filepath.Join(e.roots["w"], "/usr/bin/containerd")); err == nil {
		t.Fatalf("the simulator linked /usr/bin/containerd over the real package")
	}
	r = e.run("w", "apt-get", "install", "-y", "containerd=1.7.22-1")
	if r.code != 100 || !strings.Contains(r.err, "machine's real Debian package, version 1.6.20~ds1-1+deb12u3") {
		t.Fatalf("another version of a real package: exit %d\n%s%s", r.code, r.out, r.err)
	}
	// A record the simulator wrote is not the real package.
	if _, ok := (&sim{root: e.roots["w"]}).dpkgInstalledReal("containerd"); !ok {
		t.Fatal("dpkgInstalledReal: Debian's containerd not seen")
	}
	e.write("w", dpkgStatusPath, "")
	e.must("w", "apt-get", "install", "-y", "wireguard-tools")
	if _, ok := (&sim{root: e.roots["w"]}).dpkgInstalledReal("wireguard-tools"); ok {
		t.Fatal("dpkgInstalledReal: the simulator's own record taken for the real package")
	}
}

// Outside a host the real containerd never runs, and wg show stays the
// simulator's.
func TestRealToolsOnlyInsideAHost(t *testing.T) {
	s := &sim{root: t.TempDir()}
	if s.realContainerd() {
		t.Fatal("realContainerd outside a host")
	}
	if _, done := s.wgReal([]string{"genkey"}); done {
		t.Fatal("wgReal ran the real wg outside a host")
	}
	inHost := &sim{root: "/"}
	if _, done := inHost.wgReal([]string{"show", "wg0", "peers"}); done {
		t.Fatal("wg show went to the real wg")
	}
}

// A template unit file on disk makes its instances known (Debian's
// wireguard-tools ships wg-quick@.service).
func TestSystemctlTemplateUnitFile(t *testing.T) {
	e := newEnv(t)
	e.fails("w", "Unit file wg-quick@wg0.service does not exist", "systemctl", "enable", "wg-quick@wg0")
	e.write("w", "/lib/systemd/system/wg-quick@.service", "[Unit]\nDescription=WireGuard via wg-quick(8) for %I\n")
	e.write("w", "/etc/wireguard/wg0.conf", "[Interface]\nListenPort = 51820\n")
	e.must("w", "systemctl", "enable", "--now", "wg-quick@wg0")
	if r := e.must("w", "systemctl", "is-active", "wg-quick@wg0"); r.out != "active\n" {
		t.Fatalf("is-active wg-quick@wg0: %q", r.out)
	}
}
