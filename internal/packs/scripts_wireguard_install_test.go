package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wgMissingHost is a host without wg: PATH is the stubs and a directory of
// the few real tools the script needs, so the machine's own wg is not
// found. apt-get installs the wg stub only after an apt-get update, as on a
// fresh host whose package lists are empty (E: Unable to locate package).
func wgMissingHost(t *testing.T) (*scriptHost, string) {
	t.Helper()
	h := wgHost(t)
	wg, err := os.ReadFile(filepath.Join(h.bin, "wg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(h.bin, "wg")); err != nil {
		t.Fatal(err)
	}
	h.write("/.wg-stub", string(wg))
	h.stub("apt-get", `case "$*" in
  update) : >"$HOME/.lists" ;;
  "install -y wireguard-tools") [ -e "$HOME/.lists" ] || { echo 'E: Unable to locate package wireguard-tools' >&2; exit 100; }
    cp "$HOME/.wg-stub" "`+h.bin+`/wg" && chmod 0755 "`+h.bin+`/wg" ;;
  *) exit 100 ;;
esac`)
	tools := t.TempDir()
	for _, name := range []string{"mkdir", "chmod", "rm", "mv", "cat", "cp", "sha256sum", "cut", "sed", "grep", "cmp", "printf"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	return h, h.bin + ":" + tools
}

// TestGenerateWireGuardKeyInstallsAfterUpdate: on a host without
// wireguard-tools, generate-wireguard-key runs apt-get update before
// apt-get install wireguard-tools (an install alone fails on a fresh host),
// then generates the key; a failing update fails the job saying so.
func TestGenerateWireGuardKeyInstallsAfterUpdate(t *testing.T) {
	const script = "kubernetes/scripts/generate-wireguard-key.sh"
	h, path := wgMissingHost(t)
	env := map[string]string{"PATH": path, "CP_TEST_WG_GENKEY": keyA}
	succeeded(t, h.run(script, env, "/etc/wireguard", "/var/lib/cp/kubernetes"))
	calls := h.log(h.calls)
	if u, i := callIndex(calls, "apt-get update"), callIndex(calls, "apt-get install -y wireguard-tools"); u < 0 || i < u {
		t.Errorf("apt-get update does not come before the install:\n%s", calls)
	}
	if got := strings.TrimSpace(h.read("/etc/wireguard/wg0.key")); got != keyA {
		t.Errorf("wg0.key = %q after the install, want the generated key", got)
	}

	h, path = wgMissingHost(t)
	h.stub("apt-get", `echo 'E: Could not connect to proxy.example:3128' >&2; exit 100`)
	res := h.run(script, map[string]string{"PATH": path, "CP_TEST_WG_GENKEY": keyA}, "/etc/wireguard", "/var/lib/cp/kubernetes")
	refused(t, h, res, "apt-get update failed; check the host's apt sources and the proxy")
	if strings.Contains(h.log(h.calls), "apt-get install") {
		t.Errorf("installed after a failed update:\n%s", h.log(h.calls))
	}

	// wg present: apt is not touched.
	h = wgHost(t)
	succeeded(t, h.run(script, map[string]string{"CP_TEST_WG_GENKEY": keyA}, "/etc/wireguard", "/var/lib/cp/kubernetes"))
	if strings.Contains(h.log(h.calls), "apt-get") {
		t.Errorf("apt-get ran with wg present:\n%s", h.log(h.calls))
	}
}
