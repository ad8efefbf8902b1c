package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// shellNet runs the engine's commands with the real /bin/sh on this
// machine, one directory per host, so the shell text of probe, run, batch
// and commit is exercised for real. HOST_ROOT tells scripts their host's
// directory. When state is set (the engine's StateDir), paths under it
// are those of the host: <host root>/state, as if each host had its own.
type shellNet struct{ root, state string }

func (n *shellNet) hostRoot(host string) string { return filepath.Join(n.root, host) }

func (n *shellNet) Dial(ctx context.Context, host string) (transport.Conn, error) {
	dir := n.hostRoot(host)
	if _, err := os.Stat(dir); err != nil {
		return nil, &transport.HostError{Host: host, Op: "dial", Err: transport.ErrUnreachable}
	}
	return &shellConn{host: host, root: dir, state: n.state}, nil
}

type shellConn struct{ host, root, state string }

// local maps a path under the engine's StateDir to the host's own.
func (c *shellConn) local(s string) string {
	if c.state == "" {
		return s
	}
	return strings.ReplaceAll(s, c.state, filepath.Join(c.root, "state"))
}

func (c *shellConn) Host() string { return c.host }
func (c *shellConn) Close() error { return nil }

func (c *shellConn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	x := exec.Command("/bin/sh", "-c", cmd.Cmd)
	x.Env = []string{"PATH=" + os.Getenv("PATH"), "HOST_ROOT=" + c.root, "TMPDIR=" + os.TempDir()}
	for k, v := range cmd.Env {
		x.Env = append(x.Env, k+"="+c.local(v))
	}
	x.Dir = cmd.Dir
	x.Stdin = cmd.Stdin
	var out, errb bytes.Buffer
	x.Stdout, x.Stderr = &out, &errb
	if cmd.Stdout != nil {
		x.Stdout = multi(&out, cmd.Stdout)
	}
	if cmd.Stderr != nil {
		x.Stderr = multi(&errb, cmd.Stderr)
	}
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := x.Start(); err != nil {
		return transport.Result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- x.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return transport.Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: ee.ExitCode()}, nil
		}
		return transport.Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}, err
	case <-ctx.Done():
		_ = syscall.Kill(-x.Process.Pid, syscall.SIGKILL)
		<-done
		return transport.Result{}, fmt.Errorf("run on %s: %w: %w", c.host, transport.ErrTimeout, ctx.Err())
	}
}

type multiWriter []interface{ Write([]byte) (int, error) }

func multi(ws ...interface{ Write([]byte) (int, error) }) multiWriter { return ws }

func (m multiWriter) Write(p []byte) (int, error) {
	for _, w := range m {
		if _, err := w.Write(p); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (c *shellConn) Upload(ctx context.Context, f transport.File) error {
	return os.WriteFile(c.local(f.Path), f.Content, f.Mode) // the parent must exist, as on a real host
}

func (c *shellConn) Download(ctx context.Context, path string, _ bool) ([]byte, error) {
	return os.ReadFile(c.local(path))
}
