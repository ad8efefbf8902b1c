package packs

import (
	"os"
	"strings"
	"testing"
)

// containerdReleaseSh sets r, in a stub, to the containerd release on the
// scratch host's PATH: $HOME/.containerd-release (another containerd),
// else the upstream part of the containerd.io or containerd version
// apt-get install recorded, else 2.2.9.
const containerdReleaseSh = `r=$(cat "$HOME/.containerd-release" 2>/dev/null || cat "$HOME/.dpkg/containerd.io" "$HOME/.dpkg/containerd" 2>/dev/null | awk '{ v = $4; sub(/^[0-9]+:/, "", v); sub(/[-~+].*/, "", v); print v; exit }'); r=${r:-2.2.9}`

// The paths install-container-runtime writes, moved under the scratch root.
var containerdPaths = []string{"/etc/containerd", "/etc/crictl.yaml", "/etc/apt", "/etc/os-release"}

const (
	bookworm = "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n"
	noble    = "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n"
)

// madison is apt-cache madison's listing of versions of pkg from repo.
func madison(pkg, repo string, versions ...string) string {
	var b strings.Builder
	for _, v := range versions {
		b.WriteString(" " + pkg + " | " + v + " | " + repo + " Packages\n")
	}
	return b.String()
}

// containerdHost is a scratch host with os-release and what apt-cache
// madison lists for containerd.io and containerd.
func containerdHost(t *testing.T, osRelease, dockerVersions, distroVersions string) *scriptHost {
	t.Helper()
	h := newScriptHost(t)
	containerdStub(t, h, "v3-config-default.toml")
	h.write("/etc/os-release", osRelease)
	h.write("/.madison-containerd.io", dockerVersions)
	h.write("/.madison-containerd", distroVersions)
	return h
}

func runContainerd(h *scriptHost, set map[string]string) scriptResult {
	h.t.Helper()
	return h.run("kubernetes/scripts/install-container-runtime.sh", packEnv(h.t, "kubernetes", set), containerdPaths...)
}

// installCalls returns the apt-get install lines the script ran.
func installCalls(h *scriptHost) []string {
	var out []string
	for _, l := range strings.Split(h.log(h.calls), "\n") {
		if strings.HasPrefix(l, "apt-get install") {
			out = append(out, l)
		}
	}
	return out
}

// The default source (docker) installs containerd.io at the newest patch
// of containerd_version's minor, or at an exact release, from Docker's
// repository for the host's distribution and codename (deb822), and holds
// it; the evidence reads the running release and the hold, and fails
// before.
func TestContainerdPinnedAndHeld(t *testing.T) {
	debian := madison("containerd.io", "https://download.docker.com/linux/debian bookworm/stable amd64",
		"2.2.6-1~debian.12~bookworm", "2.2.9-1~debian.12~bookworm", "2.1.5-1~debian.12~bookworm", "1.7.28-1~debian.12~bookworm")
	ubuntu := madison("containerd.io", "https://download.docker.com/linux/ubuntu noble/stable amd64",
		"2.2.9-1~ubuntu.24.04~noble", "2.2.6-1~ubuntu.24.04~noble")
	for _, c := range []struct {
		name, osRelease, versions, want, install, repo, suite string
	}{
		{"debian minor", bookworm, debian, "", "containerd.io=2.2.9-1~debian.12~bookworm", "https://download.docker.com/linux/debian", "bookworm"},
		{"debian exact", bookworm, debian, "2.2.6", "containerd.io=2.2.6-1~debian.12~bookworm", "https://download.docker.com/linux/debian", "bookworm"},
		{"ubuntu minor", noble, ubuntu, "", "containerd.io=2.2.9-1~ubuntu.24.04~noble", "https://download.docker.com/linux/ubuntu", "noble"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := containerdHost(t, c.osRelease, c.versions, "")
			set := map[string]string{}
			if c.want != "" {
				set["containerd_version"] = c.want
			}
			ev := jobEvidence(t, "install-container-runtime")
			// Before: another containerd runs, and nothing is held.
			h.write("/.containerd-release", "1.6.20")
			env := "CP_PARAM_CONTAINERD_VERSION=" + packEnv(t, "kubernetes", set)["CP_PARAM_CONTAINERD_VERSION"] + " CP_PARAM_CONTAINERD_SOURCE=docker "
			for _, id := range []string{"containerd_version_running", "containerd_package_held"} {
				if got := evidenceOn(t, h, env+"sh -c '"+strings.ReplaceAll(ev[id].command, "'", `'\''`)+"'"); got == ev[id].expected {
					t.Fatalf("%s holds before the install", id)
				}
			}
			if err := removeFile(h, "/.containerd-release"); err != nil {
				t.Fatal(err)
			}

			res := runContainerd(h, set)
			succeeded(t, res)
			if got := installCalls(h); len(got) != 1 || got[0] != "apt-get install -y --allow-change-held-packages "+c.install {
				t.Errorf("apt-get install calls = %q, want one of %s", got, c.install)
			}
			if got := h.log(h.path("/.holds")); got != "containerd.io\n" {
				t.Errorf("held = %q, want containerd.io", got)
			}
			wantSources := "Types: deb\nURIs: " + c.repo + "\nSuites: " + c.suite + "\nComponents: stable\nSigned-By: " + h.root + "/etc/apt/keyrings/docker.asc\n"
			if got := h.read("/etc/apt/sources.list.d/docker.sources"); got != wantSources {
				t.Errorf("docker.sources = %q, want %q", got, wantSources)
			}
			if !strings.Contains(h.log(h.calls), "curl -fsSL "+c.repo+"/gpg\n") {
				t.Errorf("Docker's key was not fetched from %s/gpg:\n%s", c.repo, h.log(h.calls))
			}
			if !strings.Contains(h.read("/etc/apt/keyrings/docker.asc"), "BEGIN PGP PUBLIC KEY BLOCK") {
				t.Errorf("the keyring holds no key")
			}
			for _, id := range []string{"containerd_version_running", "containerd_package_held"} {
				if got := evidenceOn(t, h, env+"sh -c '"+strings.ReplaceAll(ev[id].command, "'", `'\''`)+"'"); got != ev[id].expected {
					t.Errorf("evidence %s = %q, want %q", id, got, ev[id].expected)
				}
			}
			// Again: installed at that version, nothing is installed again.
			before := len(installCalls(h))
			succeeded(t, runContainerd(h, set))
			if n := len(installCalls(h)); n != before {
				t.Errorf("a second run installed again: %q", installCalls(h))
			}
		})
	}
}

// No candidate matching containerd_version: refused before any install,
// naming what the repository offers.
func TestContainerdNoMatchingCandidate(t *testing.T) {
	h := containerdHost(t, bookworm, madison("containerd.io", "https://download.docker.com/linux/debian bookworm/stable amd64",
		"2.2.9-1~debian.12~bookworm", "2.1.5-1~debian.12~bookworm"), "")
	res := runContainerd(h, map[string]string{"containerd_version": "2.3"})
	failedWith(t, res, "no containerd.io matching containerd_version 2.3", "offers: 2.2.9-1~debian.12~bookworm 2.1.5-1~debian.12~bookworm")
	if got := installCalls(h); len(got) != 0 {
		t.Errorf("installed %q", got)
	}
	if h.exists("/.holds") {
		t.Errorf("held something: %q", h.read("/.holds"))
	}
}

// A containerd below what RELEASES.md recommends for the Kubernetes minor
// is refused, asked for exactly or found as the candidate, from either
// source, or found running; one the table recommends is installed.
func TestContainerdBelowKubernetesMinimum(t *testing.T) {
	docker := "https://download.docker.com/linux/debian bookworm/stable amd64"
	for _, c := range []struct {
		name            string
		set             map[string]string
		osRelease       string
		dockerVersions  string
		distroVersions  string
		running         string // another containerd on PATH
		wantErr         []string
		install, holdPk string
	}{
		{name: "docker exact below 1.34", set: map[string]string{"containerd_version": "2.1.2"}, osRelease: bookworm,
			dockerVersions: madison("containerd.io", docker, "2.1.2-1~debian.12~bookworm"),
			wantErr:        []string{"containerd_version asks for containerd 2.1.2", "Kubernetes 1.34", "2.1.3+, 2.0.6+, 1.7.28+, 1.6.39+"}},
		{name: "docker candidate below 1.34", set: map[string]string{"containerd_version": "2.1"}, osRelease: bookworm,
			dockerVersions: madison("containerd.io", docker, "2.1.2-1~debian.12~bookworm"),
			wantErr:        []string{"containerd.io 2.1.2-1~debian.12~bookworm holds containerd 2.1.2", "Kubernetes 1.34"}},
		{name: "docker 2.0 unlisted for 1.35", set: map[string]string{"containerd_version": "2.0.6", "kubernetes_version": "1.35.0"}, osRelease: bookworm,
			dockerVersions: madison("containerd.io", docker, "2.0.6-1~debian.12~bookworm"),
			wantErr:        []string{"containerd 2.0.6", "Kubernetes 1.35", "2.2.0+, 2.1.5+, 1.7.28+"}},
		{name: "distribution debian 12", set: map[string]string{"containerd_source": "distribution", "containerd_version": "1.6"}, osRelease: bookworm,
			distroVersions: madison("containerd", "http://deb.debian.org/debian bookworm/main amd64", "1.6.20~ds1-1+b1"),
			wantErr:        []string{"containerd 1.6.20~ds1-1+b1 holds containerd 1.6.20", "Kubernetes 1.34", "1.6.39+"}},
		{name: "another containerd runs", osRelease: bookworm, running: "1.6.20",
			dockerVersions: madison("containerd.io", docker, "2.2.9-1~debian.12~bookworm"),
			wantErr:        []string{`containerd --version gives "1.6.20", not 2.2.9`}, install: "containerd.io=2.2.9-1~debian.12~bookworm", holdPk: "containerd.io"},
		{name: "distribution ubuntu 24.04", set: map[string]string{"containerd_source": "distribution", "containerd_version": "1.7"}, osRelease: noble,
			distroVersions: madison("containerd", "http://archive.ubuntu.com/ubuntu noble-updates/main amd64", "1.7.12-0ubuntu4", "1.7.28-0ubuntu1~24.04.1"),
			install:        "containerd=1.7.28-0ubuntu1~24.04.1", holdPk: "containerd"},
		{name: "kubernetes 1.30 containerd 1.6.28", set: map[string]string{"containerd_source": "distribution", "containerd_version": "1.6.28", "kubernetes_version": "1.30.4"},
			osRelease: bookworm, distroVersions: madison("containerd", "http://mirror.internal/debian bookworm/main amd64", "1.6.28~ds1-1"),
			install: "containerd=1.6.28~ds1-1", holdPk: "containerd"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := containerdHost(t, c.osRelease, c.dockerVersions, c.distroVersions)
			if c.running != "" {
				h.write("/.containerd-release", c.running)
			}
			res := runContainerd(h, c.set)
			if len(c.wantErr) > 0 {
				failedWith(t, res, c.wantErr...)
			} else {
				succeeded(t, res)
			}
			var wantInstall []string
			if c.install != "" {
				wantInstall = []string{"apt-get install -y --allow-change-held-packages " + c.install}
			}
			if got := installCalls(h); strings.Join(got, "\n") != strings.Join(wantInstall, "\n") {
				t.Errorf("apt-get install calls = %q, want %q", got, wantInstall)
			}
			if got, want := strings.TrimSpace(h.read("/.holds")), c.holdPk; got != want {
				t.Errorf("held = %q, want %q", got, want)
			}
			if c.set["containerd_source"] == "distribution" && h.exists("/etc/apt/sources.list.d/docker.sources") {
				t.Errorf("the distribution source configured Docker's repository")
			}
		})
	}
}

// Docker's key: its primary key's fingerprint must be Docker's published
// one, else nothing is written and nothing installed; a mirror's own key
// (containerd_apt_key) is taken as given, and a mirror repository's key
// is fetched under it and checked like Docker's.
func TestContainerdRepositoryKeyFingerprint(t *testing.T) {
	versions := madison("containerd.io", "https://mirror.internal/docker/linux/debian bookworm/stable amd64", "2.2.9-1~debian.12~bookworm")
	t.Run("another key refused", func(t *testing.T) {
		h := containerdHost(t, bookworm, versions, "")
		h.write("/.gpg-fpr", "0123456789ABCDEF0123456789ABCDEF01234567")
		failedWith(t, runContainerd(h, nil), `the key at https://download.docker.com/linux/debian/gpg has the fingerprint "0123456789ABCDEF0123456789ABCDEF01234567", not Docker's published 9DC858229FC7DD38854AE2D88D81803C0EBFCD88`)
		for _, p := range []string{"/etc/apt/keyrings/docker.asc", "/etc/apt/keyrings/docker.asc.part", "/etc/apt/sources.list.d/docker.sources"} {
			if h.exists(p) {
				t.Errorf("%s written", p)
			}
		}
		if got := installCalls(h); len(got) != 0 {
			t.Errorf("installed %q", got)
		}
	})
	t.Run("mirror repository, Docker's key under it", func(t *testing.T) {
		h := containerdHost(t, bookworm, versions, "")
		succeeded(t, runContainerd(h, map[string]string{"containerd_apt_repository": "https://mirror.internal/docker/linux/debian/"}))
		if !strings.Contains(h.log(h.calls), "curl -fsSL https://mirror.internal/docker/linux/debian/gpg\n") {
			t.Errorf("the key was not fetched under the mirror:\n%s", h.log(h.calls))
		}
		if got := h.read("/etc/apt/sources.list.d/docker.sources"); !strings.Contains(got, "\nURIs: https://mirror.internal/docker/linux/debian\n") {
			t.Errorf("docker.sources = %q", got)
		}
	})
	t.Run("mirror key taken as given", func(t *testing.T) {
		h := containerdHost(t, bookworm, versions, "")
		h.write("/.gpg-fpr", "0123456789ABCDEF0123456789ABCDEF01234567")
		h.write("/srv/keys/mirror.asc", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmirror\n")
		succeeded(t, runContainerd(h, map[string]string{"containerd_apt_repository": "https://mirror.internal/docker/linux/debian",
			"containerd_apt_key": h.path("/srv/keys/mirror.asc")}))
		if got := h.read("/etc/apt/keyrings/docker.asc"); got != "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmirror\n" {
			t.Errorf("keyring = %q, want the mirror's key", got)
		}
		if strings.Contains(h.log(h.calls), "gpg --batch --show-keys") {
			t.Errorf("the mirror's key was checked against Docker's fingerprint")
		}
	})
}

// failedWith requires a non-zero exit whose stderr says every one of want.
func failedWith(t *testing.T, res scriptResult, want ...string) {
	t.Helper()
	if res.code == 0 {
		t.Fatalf("exit 0, want a refusal\nstdout: %s\nstderr: %s", res.stdout, res.stderr)
	}
	for _, w := range want {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.stderr)
		}
	}
}

// removeFile deletes the file at host path p.
func removeFile(h *scriptHost, p string) error { return os.Remove(h.path(p)) }
