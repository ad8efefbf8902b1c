package testhosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cluster is a set of running test hosts started by Start.
type Cluster struct {
	opts    Options
	dir     string
	userKey keyPair
	leases  []*addrLease
	hosts   []*hostProc // in Options.Names order
	byName  map[string]*hostProc
	simBin  string

	stopOnce sync.Once
	stopErr  error
}

// Start starts one host per name concurrently and returns when all accept
// SSH connections. On error nothing is left running.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkPrerequisites(); err != nil {
		return nil, err
	}
	if opts.Simulator {
		if err := checkRealPackages(); err != nil {
			return nil, err
		}
	}
	dir := opts.Dir
	if dir == "" {
		if err := os.MkdirAll("/var/tmp/cp-testhosts", 0o755); err != nil {
			return nil, fmt.Errorf("create /var/tmp/cp-testhosts: %w", err)
		}
		if dir, err = os.MkdirTemp("/var/tmp/cp-testhosts", "cluster-"); err != nil {
			return nil, fmt.Errorf("create harness directory: %w", err)
		}
	} else {
		if dir, err = filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("resolve harness directory %q: %w", opts.Dir, err)
		}
		if err := CleanDir(dir, false); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create harness directory %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, fmt.Errorf("chmod harness directory %s: %w", dir, err)
	}
	c := &Cluster{opts: opts, dir: dir, byName: map[string]*hostProc{}}
	if err := c.start(ctx); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	leases, err := leaseAddrs(c.opts.BaseAddr, len(c.opts.Names), c.opts.Port)
	if err != nil {
		return err
	}
	c.leases = leases
	for i, n := range c.opts.Names {
		h := &hostProc{name: n, addr: leases[i].addr, port: c.opts.Port, dirs: newHostDirs(c.dir, n)}
		c.hosts = append(c.hosts, h)
		c.byName[n] = h
	}
	if c.userKey, err = newKeyPair("cp-testhosts@" + filepath.Base(c.dir)); err != nil {
		return err
	}
	if err := writeKeyPair(c.KeyPath(), c.userKey); err != nil {
		return err
	}
	if c.opts.Simulator {
		if err := c.prepareSimulator(ctx); err != nil {
			return err
		}
	}
	var known strings.Builder
	for _, h := range c.hosts {
		hk, err := newKeyPair("host@" + h.name)
		if err != nil {
			return err
		}
		if err := c.prepareUpper(h, hk); err != nil {
			return err
		}
		known.WriteString(knownHostsLine(h.addr.String(), h.port, hk.pub))
	}
	if err := os.WriteFile(c.KnownHostsPath(), []byte(known.String()), 0o644); err != nil {
		return fmt.Errorf("write known_hosts %s: %w", c.KnownHostsPath(), err)
	}
	errs := make([]error, len(c.hosts))
	var wg sync.WaitGroup
	for i, h := range c.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.launch(ctx, h)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	b, _ := c.JSON()
	if err := os.WriteFile(filepath.Join(c.dir, "hosts.json"), b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(c.dir, "hosts.json"), err)
	}
	return nil
}

// Dir is the harness directory.
func (c *Cluster) Dir() string { return c.dir }

// KeyPath is the private key authorized for the users with KeyAuth.
func (c *Cluster) KeyPath() string { return filepath.Join(c.dir, "id_ed25519") }

// KnownHostsPath is the known_hosts file listing every host's key.
func (c *Cluster) KnownHostsPath() string { return filepath.Join(c.dir, "known_hosts") }

// Hosts returns the hosts in Options.Names order.
func (c *Cluster) Hosts() []Host {
	out := make([]Host, 0, len(c.hosts))
	for _, h := range c.hosts {
		out = append(out, c.describe(h))
	}
	return out
}

// Host returns the named host.
func (c *Cluster) Host(name string) (Host, error) {
	h, err := c.host(name)
	if err != nil {
		return Host{}, err
	}
	return c.describe(h), nil
}

func (c *Cluster) host(name string) (*hostProc, error) {
	h, ok := c.byName[name]
	if !ok {
		names := append([]string(nil), c.opts.Names...)
		sort.Strings(names)
		return nil, fmt.Errorf("test host %q does not exist; hosts are %s", name, strings.Join(names, ", "))
	}
	return h, nil
}

func (c *Cluster) describe(h *hostProc) Host {
	return Host{
		Name: h.name, Addr: h.addr.String(), Port: h.port, User: c.opts.Users[0].Name,
		KeyPath: c.KeyPath(), KnownHostsPath: c.KnownHostsPath(), Upper: h.dirs.upper,
	}
}

func (c *Cluster) addrByName() map[string]string {
	m := map[string]string{}
	for _, h := range c.hosts {
		m[h.name] = h.addr.String()
	}
	return m
}

// StartDurations reports how long each host took from exec to listening.
func (c *Cluster) StartDurations() map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, h := range c.hosts {
		h.mu.Lock()
		m[h.name] = h.started
		h.mu.Unlock()
	}
	return m
}

// clusterJSON is what JSON renders.
type clusterJSON struct {
	Dir            string `json:"dir"`
	KeyPath        string `json:"key_path"`
	KnownHostsPath string `json:"known_hosts_path"`
	SimulatorState string `json:"simulator_state,omitempty"`
	Hosts          []Host `json:"hosts"`
}

// JSON describes the hosts (sorted by name) and the harness files.
func (c *Cluster) JSON() ([]byte, error) {
	hosts := c.Hosts()
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	v := clusterJSON{Dir: c.dir, KeyPath: c.KeyPath(), KnownHostsPath: c.KnownHostsPath(), Hosts: hosts}
	if c.opts.Simulator {
		v.SimulatorState = c.simStateDir()
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render hosts JSON: %w", err)
	}
	return append(b, '\n'), nil
}

// Stop ends every host (gracefully, then by force) and releases the
// addresses. The harness directory is kept (tests read upper dirs after
// Stop); use Remove to delete it. Stop is idempotent.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		var wg sync.WaitGroup
		for _, h := range c.hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.mu.Lock()
				h.stopLocked(2 * time.Second)
				h.mu.Unlock()
			}()
		}
		wg.Wait()
		var errs []error
		for _, h := range c.hosts {
			if left := procsRootedAt(h.dirs.merged); len(left) > 0 {
				errs = append(errs, fmt.Errorf("stop host %s: processes %v still run chrooted in %s", h.name, left, h.dirs.merged))
			}
		}
		for _, l := range c.leases {
			l.release()
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// Remove stops the hosts and deletes the harness directory.
func (c *Cluster) Remove() error {
	if err := c.Stop(); err != nil {
		return err
	}
	return CleanDir(c.dir, true)
}

// CleanDir ends what an earlier run left in a harness directory: processes
// chrooted into its hosts and mounts under it in this mount namespace.
// With remove it also deletes the directory. A missing directory is fine.
func CleanDir(dir string, remove bool) error {
	ents, err := os.ReadDir(filepath.Join(dir, "hosts"))
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("clean harness directory %s: %w", dir, err)
	}
	for _, e := range ents {
		merged := filepath.Join(dir, "hosts", e.Name(), "merged")
		for i := 0; i < 50; i++ {
			pids := procsRootedAt(merged)
			if len(pids) == 0 {
				break
			}
			signalAll(pids, syscall.SIGKILL)
			waitGone(pids, 100)
		}
		if left := procsRootedAt(merged); len(left) > 0 {
			return fmt.Errorf("clean harness directory %s: processes %v of host %s do not exit after SIGKILL", dir, left, e.Name())
		}
	}
	if err := unmountUnder(dir); err != nil {
		return err
	}
	if remove {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove harness directory %s: %w", dir, err)
		}
	}
	return nil
}

// unmountUnder lazily unmounts, deepest first, anything mounted under dir
// in this mount namespace (hosts mount only in their own namespaces, but
// a tool run by hand may not have).
func unmountUnder(dir string) error {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("read /proc/self/mountinfo: %w", err)
	}
	var targets []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			targets = append(targets, f[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(targets)))
	for _, t := range targets {
		if err := syscall.Unmount(t, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("unmount %s left by an earlier run: %w", t, err)
		}
	}
	return nil
}
