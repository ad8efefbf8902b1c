package hostsim

import (
	"strings"
	"testing"
)

// dockerHost is a Debian 12 host with Docker's repository configured and a
// containerd.io pool of release 2.2.9 (stand-in programs).
func dockerHost(t *testing.T, e *env, host string) {
	t.Helper()
	e.write(host, "/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n")
	e.write(host, "/etc/apt/sources.list.d/docker.sources",
		"Types: deb\nURIs: https://download.docker.com/linux/debian\nSuites: bookworm\nComponents: stable\nSigned-By: /etc/apt/keyrings/docker.asc\n")
	for _, f := range ContainerdPoolFiles {
		e.write(host, ContainerdPoolInHost+"/"+f, "#!/bin/sh\necho "+f+" 2.2.9\n")
	}
	e.write(host, ContainerdPoolInHost+"/VERSION", "2.2.9\n")
}

// apt-cache madison lists containerd.io at the pool's release, as Docker's
// repository names it for the host's distribution, only with Docker's
// repository configured; apt-get install of that version unpacks the
// pool's programs into /usr/bin, writes Docker's config.toml (CRI
// disabled) and records the package; another version is not found, and a
// host without a pool fails saying how to build it.
func TestContainerdIOPackage(t *testing.T) {
	e := newEnv(t)
	e.write("worker-1", "/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n")
	if r := e.must("worker-1", "apt-cache", "madison", "containerd.io"); r.out != "" {
		t.Fatalf("containerd.io listed without Docker's repository: %q", r.out)
	}
	e.fails("worker-1", "Unable to locate package containerd.io", "apt-get", "install", "-y", "containerd.io=2.2.9-1~debian.12~bookworm")

	dockerHost(t, e, "worker-1")
	r := e.must("worker-1", "apt-cache", "madison", "containerd.io")
	if want := "containerd.io | 2.2.9-1~debian.12~bookworm | https://download.docker.com/linux/debian bookworm/stable amd64 Packages\n"; r.out != want {
		t.Fatalf("madison = %q, want %q", r.out, want)
	}
	contains(t, e.must("worker-1", "apt-cache", "madison", "containerd"), "containerd | 1.7.22-1 |")
	e.fails("worker-1", "Version '2.2.6-1~debian.12~bookworm' for 'containerd.io' was not found", "apt-get", "install", "-y", "containerd.io=2.2.6-1~debian.12~bookworm")
	e.must("worker-1", "apt-get", "install", "-y", "--allow-change-held-packages", "containerd.io=2.2.9-1~debian.12~bookworm")
	for _, f := range ContainerdPoolFiles {
		if got := e.file("worker-1", "/usr/bin/"+f); got != "#!/bin/sh\necho "+f+" 2.2.9\n" {
			t.Errorf("/usr/bin/%s = %q, want the pool's", f, got)
		}
	}
	if conf := e.file("worker-1", "/etc/containerd/config.toml"); !strings.Contains(conf, "\ndisabled_plugins = [\"cri\"]\n") {
		t.Errorf("config.toml is not Docker's package file:\n%s", conf)
	}
	if st := e.file("worker-1", dpkgStatusPath); !strings.Contains(st, "Package: containerd.io\nStatus: install ok installed") || !strings.Contains(st, "\nVersion: 2.2.9-1~debian.12~bookworm\n") {
		t.Errorf("dpkg status lacks containerd.io 2.2.9-1~debian.12~bookworm:\n%s", st)
	}
	contains(t, e.must("worker-1", "apt-get", "install", "-y", "containerd.io=2.2.9-1~debian.12~bookworm"), "containerd.io is already the newest version (2.2.9-1~debian.12~bookworm).")
	e.must("worker-1", "systemctl", "enable", "--now", "containerd")

	// No pool: the install fails, not emulated.
	e.write("worker-2", "/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n")
	e.write("worker-2", "/etc/apt/sources.list.d/docker.sources", "Types: deb\nURIs: https://mirror.internal/docker/linux/ubuntu\nSuites: noble\nComponents: stable\n")
	r = e.run("worker-2", "apt-cache", "madison", "containerd.io")
	contains(t, r, "no containerd binaries for containerd.io", "make bin/containerd")
	e.fails("worker-2", "make bin/containerd", "apt-get", "install", "-y", "containerd.io")
}

// Docker's key URL answers with Docker's real public key, which a host's
// real gpg reads with Docker's published fingerprint.
func TestDockerAptKey(t *testing.T) {
	e := newEnv(t)
	r := e.must("worker-1", "curl", "-fsSL", "https://download.docker.com/linux/debian/gpg")
	if r.out != dockerAptKey || !strings.HasPrefix(r.out, "-----BEGIN PGP PUBLIC KEY BLOCK-----") {
		t.Fatalf("curl of Docker's key = %q", r.out)
	}
}

// apt-cache show finds the packages the simulator knows (outside a host;
// on a host it is the real apt-cache).
func TestAptCacheShow(t *testing.T) {
	e := newEnv(t)
	contains(t, e.must("worker-1", "apt-cache", "show", "postgresql-15"), "Package: postgresql-15")
	e.fails("worker-1", "Unable to locate package postgresql-99", "apt-cache", "show", "postgresql-99")
}
