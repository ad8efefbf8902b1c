package testhosts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// StopHost stops one host gracefully (SIGTERM to sshd and its sessions,
// SIGKILL after 2s). StartHost brings it back with the same files.
func (c *Cluster) StopHost(name string) error {
	h, err := c.host(name)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopLocked(2 * time.Second)
	return nil
}

// StartHost starts a stopped or killed host again; a running host is left
// as it is.
func (c *Cluster) StartHost(ctx context.Context, name string) error {
	h, err := c.host(name)
	if err != nil {
		return err
	}
	return c.launch(ctx, h)
}

// Restart stops a host gracefully and starts it again.
func (c *Cluster) Restart(ctx context.Context, name string) error {
	if err := c.StopHost(name); err != nil {
		return err
	}
	return c.StartHost(ctx, name)
}

// Kill SIGKILLs a host's sshd and every process of its sessions, as if the
// machine lost power.
func (c *Cluster) Kill(name string) error {
	h, err := c.host(name)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.killLocked()
	return nil
}

// Running reports whether the host's sshd is running.
func (c *Cluster) Running(name string) (bool, error) {
	h, err := c.host(name)
	if err != nil {
		return false, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running(), nil
}

// Freeze SIGSTOPs the host's sshd and session processes: connections
// hang, new logins time out, running commands stop making progress.
func (c *Cluster) Freeze(name string) error {
	return c.signalHost(name, syscall.SIGSTOP, true)
}

// Thaw SIGCONTs what Freeze stopped.
func (c *Cluster) Thaw(name string) error {
	return c.signalHost(name, syscall.SIGCONT, false)
}

func (c *Cluster) signalHost(name string, sig syscall.Signal, frozen bool) error {
	h, err := c.host(name)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running() {
		return fmt.Errorf("signal host %s: it is not running; start it with StartHost", name)
	}
	signalAll(procsInNS(h.ns), sig)
	h.frozen = frozen
	return nil
}

// CutOff kills the host's established sessions (per-connection sshd
// processes and what they run) while its sshd keeps listening, as a
// dropped network link would. It returns how many processes it killed.
func (c *Cluster) CutOff(name string) (int, error) {
	h, err := c.host(name)
	if err != nil {
		return 0, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running() {
		return 0, fmt.Errorf("cut off host %s: it is not running", name)
	}
	listener := h.pid()
	n := 0
	for i := 0; i < 20; i++ {
		pids := procsInNS(h.ns)
		k := signalAll(pids, syscall.SIGKILL, listener)
		if k == 0 {
			break
		}
		n += k
		waitGone(pids, 50)
	}
	return n, nil
}

// Sessions lists the pids of the host's processes other than the
// listening sshd (per-connection sshd processes and session commands).
func (c *Cluster) Sessions(name string) ([]int, error) {
	h, err := c.host(name)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	listener := h.pid()
	var out []int
	for _, p := range procsInNS(h.ns) {
		if p != listener {
			out = append(out, p)
		}
	}
	return out, nil
}

// SetDelay makes every new SSH session on the host wait d before running
// its command (0 removes the delay). Sessions already running are not
// affected.
func (c *Cluster) SetDelay(name string, d time.Duration) error {
	h, err := c.host(name)
	if err != nil {
		return err
	}
	p := filepath.Join(h.dirs.control, "delay")
	if d <= 0 {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("clear delay of host %s: %w", name, err)
		}
		return nil
	}
	if err := os.MkdirAll(h.dirs.control, 0o755); err != nil {
		return fmt.Errorf("set delay of host %s: %w", name, err)
	}
	secs := strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
	if err := os.WriteFile(p, []byte(secs+"\n"), 0o644); err != nil {
		return fmt.Errorf("set delay of host %s: %w", name, err)
	}
	return nil
}

// RootPath returns the machine path through which the running host's
// root directory is reached (/proc/<sshd pid>/root): reading and writing
// there goes through the host's overlay, as a command on the host would.
func (c *Cluster) RootPath(name string) (string, error) {
	h, err := c.host(name)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running() {
		return "", fmt.Errorf("root path of host %s: it is not running", name)
	}
	return fmt.Sprintf("/proc/%d/root", h.pid()), nil
}
