package testhosts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// simulatorPackage is built when Options.SimulatorBinary is empty.
const simulatorPackage = "github.com/intentops/terraform-provider-cp/cmd/cp-hostsim"

// simStateDir is the simulator's shared state on the machine, bind-mounted
// at hostsim.StateDirInHost in every host.
func (c *Cluster) simStateDir() string { return filepath.Join(c.dir, "sim") }

// SimulatorStateDir is the shared simulator state directory on the
// machine (empty when Options.Simulator is off); `cp-hostsim -state DIR`
// and the hostsim package read and change it.
func (c *Cluster) SimulatorStateDir() string {
	if !c.opts.Simulator {
		return ""
	}
	return c.simStateDir()
}

func (c *Cluster) prepareSimulator(ctx context.Context) error {
	bin := c.opts.SimulatorBinary
	if bin == "" {
		bin = filepath.Join(c.dir, "cp-hostsim")
		if err := buildSimulator(ctx, bin); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return fmt.Errorf("resolve simulator binary %q: %w", bin, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("simulator binary %s: %w; build it with `go build -o %s ./cmd/cp-hostsim`", abs, err, abs)
	}
	c.simBin = abs
	if err := os.MkdirAll(c.simStateDir(), 0o777); err != nil {
		return fmt.Errorf("create simulator state %s: %w", c.simStateDir(), err)
	}
	// Commands on the hosts run as the login user too (kubectl, helm).
	if err := os.Chmod(c.simStateDir(), 0o777); err != nil {
		return fmt.Errorf("chmod simulator state %s: %w", c.simStateDir(), err)
	}
	return hostsim.InitState(c.simStateDir(), c.opts.SimulatorCluster)
}

// buildSimulator runs `go build` for cmd/cp-hostsim in the module that
// contains the current directory.
func buildSimulator(ctx context.Context, out string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(gomod))
	if err != nil || mod == "" || mod == os.DevNull {
		return fmt.Errorf("build simulator: the current directory is not inside the terraform-provider-cp module (go env GOMOD: %q, %v); run from the module or set Options.SimulatorBinary", mod, err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, simulatorPackage)
	cmd.Dir = filepath.Dir(mod)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build simulator (go build -o %s %s in %s): %w\n%s", out, simulatorPackage, cmd.Dir, err, b)
	}
	return nil
}

// installSimulator puts the simulator binary, its tool links and the host
// identity into the host's upper directory.
func (c *Cluster) installSimulator(h *hostProc) error {
	up := h.dirs.upper
	dst := filepath.Join(up, hostsim.BinaryPathInHost)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("install simulator on host %s: %w", h.name, err)
	}
	_ = os.Remove(dst)
	if err := os.Link(c.simBin, dst); err != nil {
		b, rerr := os.ReadFile(c.simBin)
		if rerr != nil {
			return fmt.Errorf("install simulator on host %s: read %s: %w", h.name, c.simBin, rerr)
		}
		if err := writeFile(up, hostsim.BinaryPathInHost, b, 0o755); err != nil {
			return fmt.Errorf("install simulator on host %s: %w", h.name, err)
		}
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return fmt.Errorf("install simulator on host %s: %w", h.name, err)
	}
	for _, link := range hostsim.Shadows() {
		p := filepath.Join(up, link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("install simulator on host %s: %w", h.name, err)
		}
		_ = os.Remove(p)
		if err := os.Symlink(hostsim.BinaryPathInHost, p); err != nil {
			return fmt.Errorf("install simulator on host %s: link %s: %w", h.name, link, err)
		}
	}
	if err := installContainerdPool(up); err != nil {
		return fmt.Errorf("install simulator on host %s: containerd.io pool: %w", h.name, err)
	}
	cfg, _ := json.Marshal(hostsim.HostConfig{Host: h.name, Cluster: c.opts.SimulatorCluster, Address: h.addr.String()})
	if err := writeFile(up, hostsim.HostConfigPath, append(cfg, '\n'), 0o644); err != nil {
		return fmt.Errorf("install simulator on host %s: %w", h.name, err)
	}
	if err := writeFile(up, hostsim.LogPath, nil, 0o666); err != nil {
		return fmt.Errorf("install simulator on host %s: %w", h.name, err)
	}
	return nil
}

// SetFault switches a simulator fault on (see hostsim.Fault). A DNS fault
// is written into the running hosts' /etc/resolv.conf at once.
func (c *Cluster) SetFault(f hostsim.Fault) error {
	if !c.opts.Simulator {
		return fmt.Errorf("set fault %s: the hosts run without the simulator; start them with Options.Simulator", f.Kind)
	}
	if f.Host != "" {
		if _, err := c.host(f.Host); err != nil {
			return fmt.Errorf("set fault %s: %w", f.Kind, err)
		}
	}
	if err := hostsim.SetFault(c.simStateDir(), f); err != nil {
		return err
	}
	if f.Kind != hostsim.FaultDNS {
		return nil
	}
	for _, h := range c.hosts {
		if f.Host != "" && f.Host != h.name {
			continue
		}
		root, err := c.RootPath(h.name)
		if err != nil {
			continue // applied by the simulator when the host runs again
		}
		if err := hostsim.ApplyDNSFault(c.simStateDir(), h.name, root); err != nil {
			return err
		}
	}
	return nil
}

// ClearFaults switches off the faults of a kind ("" for all) on a host
// ("" for cluster-wide faults and every host).
func (c *Cluster) ClearFaults(kind hostsim.FaultKind, host string) error {
	return hostsim.ClearFaults(c.simStateDir(), kind, host)
}

// SimLog returns the simulator's invocation log of a host, one line per
// simulated command run there.
func (c *Cluster) SimLog(name string) ([]string, error) {
	h, err := c.host(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(h.dirs.upper, hostsim.LogPath))
	if err != nil {
		return nil, fmt.Errorf("read simulator log of host %s: %w", name, err)
	}
	return splitLines(string(b)), nil
}
