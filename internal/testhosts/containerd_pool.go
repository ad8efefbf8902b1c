package testhosts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// ErrNoContainerd says the containerd binaries built from containerd's Go
// module (make bin/containerd) are missing.
var ErrNoContainerd = errors.New("the containerd binaries are missing")

// ContainerdBinDir is $CP_CONTAINERD_BIN (a directory) when set, else bin/
// of the repository this test runs in (found by walking up from the
// working directory to go.mod); it holds containerd, ctr and
// containerd-shim-runc-v2.
func ContainerdBinDir() (string, error) {
	dir := os.Getenv("CP_CONTAINERD_BIN")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find bin/containerd: %w", err)
		}
		for {
			if _, err := os.Stat(filepath.Join(wd, "go.mod")); err == nil {
				dir = filepath.Join(wd, "bin")
				break
			}
			parent := filepath.Dir(wd)
			if parent == wd {
				return "", fmt.Errorf("%w: no go.mod above the working directory to find bin/containerd in; set CP_CONTAINERD_BIN", ErrNoContainerd)
			}
			wd = parent
		}
	}
	for _, f := range hostsim.ContainerdPoolFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", fmt.Errorf("%w: %s; run `make bin/containerd` (builds them from tools/containerd) or set CP_CONTAINERD_BIN", ErrNoContainerd, err)
		}
	}
	return dir, nil
}

// ContainerdRelease is the release the built containerd reports
// (containerd --version: "containerd PACKAGE v2.2.9 REVISION"), without v.
func ContainerdRelease(dir string) (string, error) {
	out, err := exec.Command(filepath.Join(dir, "containerd"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s/containerd --version: %w", dir, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", fmt.Errorf("%s/containerd --version printed %q, not containerd PACKAGE VERSION", dir, out)
	}
	return strings.TrimPrefix(f[2], "v"), nil
}

// installContainerdPool puts the built containerd binaries and their
// release into the host's pool (hostsim.ContainerdPoolInHost), from which
// the simulator's apt-get install containerd.io unpacks them. Without
// them the host has no pool, and that install fails saying so.
func installContainerdPool(up string) error {
	dir, err := ContainerdBinDir()
	if err != nil {
		return nil //nolint:nilerr // no pool; the simulator reports it when asked
	}
	rel, err := ContainerdRelease(dir)
	if err != nil {
		return err
	}
	pool := filepath.Join(up, hostsim.ContainerdPoolInHost)
	if err := os.MkdirAll(pool, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", pool, err)
	}
	for _, f := range hostsim.ContainerdPoolFiles {
		src, dst := filepath.Join(dir, f), filepath.Join(pool, f)
		_ = os.Remove(dst)
		if err := os.Link(src, dst); err != nil {
			b, rerr := os.ReadFile(src)
			if rerr != nil {
				return fmt.Errorf("read %s: %w", src, rerr)
			}
			if err := os.WriteFile(dst, b, 0o755); err != nil {
				return fmt.Errorf("write %s: %w", dst, err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(pool, "VERSION"), []byte(rel+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s/VERSION: %w", pool, err)
	}
	return nil
}
