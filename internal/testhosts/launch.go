package testhosts

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// launchScript runs inside a new mount and UTS namespace (unshare -m -u):
// it builds the host's filesystem view and execs sshd chrooted into it,
// so the sshd process is the one the harness started.
const launchScript = `set -eu
m=$1 upper=$2 work=$3 control=$4 sim=$5 hide=$6 name=$7
mount -t overlay overlay -o "lowerdir=/,upperdir=$upper,workdir=$work" "$m"
mount --rbind /dev "$m/dev"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$m/dev/pts"
mount --bind "$m/dev/pts/ptmx" "$m/dev/ptmx"
mount -t proc proc "$m/proc"
mount --bind -o ro "$m/proc/sys" "$m/proc/sys"
mount --bind -o ro /sys "$m/sys"
mount -t tmpfs -o mode=0755 tmpfs "$m/run"
mkdir -p "$m/run/sshd" "$m/run/lock" "$m/run/cp-testhosts"
mount --bind -o ro "$control" "$m/run/cp-testhosts"
if [ -n "$sim" ]; then
	mkdir -p "$m/var/lib/cp-hostsim"
	mount --bind "$sim" "$m/var/lib/cp-hostsim"
fi
mkdir -p "$m$hide"
mount -t tmpfs -o mode=0755,size=1m tmpfs "$m$hide"
hostname "$name"
if [ ! -e "$m/etc/cp-testhosts/provisioned" ]; then
	chroot "$m" /bin/sh /etc/cp-testhosts/provision.sh
fi
exec chroot "$m" /usr/sbin/sshd -D -e -f /etc/cp-testhosts/sshd_config
`

// launch starts the host's sshd and waits until it accepts connections.
func (c *Cluster) launch(ctx context.Context, h *hostProc) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running() {
		return nil
	}
	for _, d := range []string{h.dirs.upper, h.dirs.work, h.dirs.merged, h.dirs.control} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("start host %s: create %s: %w", h.name, d, err)
		}
	}
	logf, err := os.OpenFile(h.dirs.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start host %s: open sshd log %s: %w", h.name, h.dirs.log, err)
	}
	defer logf.Close()
	sim := ""
	if c.opts.Simulator {
		sim = c.simStateDir()
	}
	cmd := exec.Command("unshare", "--mount", "--uts", "--propagation", "private",
		"/bin/sh", "-c", launchScript, "cp-testhosts-launch",
		h.dirs.merged, h.dirs.upper, h.dirs.work, h.dirs.control, sim, c.dir, h.name)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"}
	// If the harness dies, its hosts die with it (and their mounts with
	// their namespace).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start host %s: run unshare: %w", h.name, err)
	}
	done := make(chan struct{})
	h.cmd, h.done = cmd, done
	go func() {
		h.waitErr = cmd.Wait()
		close(done)
	}()
	if err := waitListening(ctx, h, c.opts.StartTimeout); err != nil {
		h.killLocked()
		return fmt.Errorf("start host %s (%s:%d): %w\nsshd log %s:\n%s", h.name, h.addr, c.opts.Port, err, h.dirs.log, tail(h.dirs.log, 30))
	}
	ns, err := mountNS(cmd.Process.Pid)
	if err != nil {
		h.killLocked()
		return fmt.Errorf("start host %s: %w", h.name, err)
	}
	h.ns = ns
	h.started = time.Since(start)
	return writeHostState(h)
}

// waitListening polls the host's address until sshd accepts a connection,
// the process exits, or the timeout passes.
func waitListening(ctx context.Context, h *hostProc, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	target := net.JoinHostPort(h.addr.String(), strconv.Itoa(h.port))
	for {
		conn, err := net.DialTimeout("tcp", target, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		select {
		case <-h.done:
			return fmt.Errorf("sshd exited before listening (%v); see its log", h.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("waiting for sshd on %s: %w", target, ctx.Err())
		case <-time.After(15 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd did not listen on %s within %s; raise Options.StartTimeout if the machine is loaded", target, timeout)
		}
	}
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := splitLines(string(b))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
