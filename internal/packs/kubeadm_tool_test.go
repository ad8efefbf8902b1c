package packs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kubeadmBinary is bin/kubeadm, built by `make bin/kubeadm` from the
// k8s.io/kubernetes module pinned in tools/kubeadm. Without it the test is
// skipped on a workstation and fails in CI (CI=true), whose `make test`
// builds it first.
func kubeadmBinary(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin", "kubeadm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bin/kubeadm is missing (%v); CI must build it: make bin/kubeadm", err)
		}
		t.Skipf("bin/kubeadm is missing; build it with make bin/kubeadm (%v)", err)
	}
	return bin
}

// kubeadmOut runs the real kubeadm with args and returns its combined
// output and error.
func kubeadmOut(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// No kubeconfig of the machine running the tests, and a proxy on a
	// closed loopback port for any request kubeadm would send.
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LC_ALL=C"}, kubeadmNoNetwork...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// kubeadmNoNetwork is the environment that keeps kubeadm's API requests
// (a dry run still sends some) on a closed loopback port: the proxy gets
// every request, so no address is dialled and no name is looked up. The
// same settings are in kubeadmStub.
var kubeadmNoNetwork = []string{"HTTPS_PROXY=http://127.0.0.1:1", "HTTP_PROXY=http://127.0.0.1:1", "NO_PROXY="}

// kubeadmRequired is the k8s.io/kubernetes version tools/kubeadm/go.mod
// requires.
func kubeadmRequired(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^require k8s\.io/kubernetes (v\S+)$`).FindStringSubmatch(readFile(t, filepath.Join("..", "..", "tools", "kubeadm", "go.mod")))
	if m == nil {
		t.Fatal("tools/kubeadm/go.mod has no line `require k8s.io/kubernetes vX.Y.Z`")
	}
	return m[1]
}

// TestKubeadmVersion: the binary reports the version the tools module
// requires, and GNUmakefile stamps that same version.
func TestKubeadmVersion(t *testing.T) {
	want := kubeadmRequired(t)
	m := regexp.MustCompile(`(?m)^KUBEADM_VERSION := (\S+)$`).FindStringSubmatch(readFile(t, filepath.Join("..", "..", "GNUmakefile")))
	if m == nil || m[1] != want {
		t.Errorf("GNUmakefile KUBEADM_VERSION = %v, want %s (the version tools/kubeadm/go.mod requires)", m, want)
	}
	bin := kubeadmBinary(t)
	out, err := kubeadmOut(t, bin, "version", "-o", "short")
	if err != nil {
		t.Fatalf("kubeadm version: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(out); got != want {
		t.Errorf("bin/kubeadm version -o short = %q, want %s; rebuild it: rm bin/kubeadm && make bin/kubeadm", got, want)
	}
}
