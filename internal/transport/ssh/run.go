package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// killGrace is how long a cancelled command may take to report its end
// after the session was signalled and closed.
const killGrace = 2 * time.Second

// Run runs cmd; see transport.Conn.
func (c *conn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	res, err := c.run(ctx, cmd, !cmd.RawStdout)
	if err != nil {
		return res, c.p.hostErr(c.Host(), "run", fmt.Errorf("`%s`: %w", summary(cmd.Cmd), err))
	}
	return res, nil
}

// run runs cmd in a session slot of the host; redactStdout is false for
// downloads, whose content is returned as is.
func (c *conn) run(ctx context.Context, cmd transport.Command, redactStdout bool) (transport.Result, error) {
	if c.closed.Load() {
		return transport.Result{}, errors.New("the connection handle is closed")
	}
	if err := ctx.Err(); err != nil {
		return transport.Result{}, ctxErr(ctx, "before start")
	}
	prep, err := prepare(cmd, c.e.host.BecomePassword, c.e.host.LoginShellSh)
	if err != nil {
		return transport.Result{}, err
	}
	select {
	case c.e.sessions <- struct{}{}:
	case <-ctx.Done():
		return transport.Result{}, ctxErr(ctx, "waiting for a free session slot")
	}
	defer func() { <-c.e.sessions }()

	start := time.Now()
	cl, sess, err := c.session(ctx)
	if err != nil {
		return transport.Result{}, err
	}
	defer sess.Close()

	max := cmd.MaxOutput
	if max <= 0 {
		max = c.p.opts.MaxOutput
	}
	red := c.p.opts.Redactor
	stdout := newCapture(max, red, cmd.Stdout)
	stderr := newCapture(max, red, cmd.Stderr)
	sess.Stdout = stdout
	sess.Stderr = stderr
	stdin, err := sess.StdinPipe()
	if err != nil {
		return transport.Result{}, fmt.Errorf("%w: opening stdin: %w", transport.ErrConnectionLost, err)
	}

	done := make(chan error, 1)
	go func() {
		if err := sess.Start(prep.line); err != nil {
			done <- fmt.Errorf("%w: starting the command: %w", transport.ErrConnectionLost, err)
			return
		}
		go func() {
			// Errors here mean the command exited without reading all
			// of its input, which is its right.
			if prep.stdin != nil {
				_, _ = io.Copy(stdin, prep.stdin)
			}
			_ = stdin.Close()
		}()
		done <- sess.Wait()
	}()

	var waitErr error
	cancelled := false
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		cancelled = true
		_ = sess.Signal(gossh.SIGKILL)
		_ = sess.Close()
		select {
		case <-done:
		case <-time.After(killGrace):
		}
	}

	res := transport.Result{Duration: time.Since(start)}
	var r *transport.Redactor
	if redactStdout {
		r = red
	}
	var t1, t2 bool
	res.Stdout, t1 = stdout.result(r)
	res.Stderr, t2 = stderr.result(red)
	res.Truncated = t1 || t2

	if cancelled {
		res.ExitCode = -1
		return res, ctxErr(ctx, fmt.Sprintf("command stopped after %s", res.Duration.Round(time.Millisecond)))
	}
	var exitErr *gossh.ExitError
	var missing *gossh.ExitMissingError
	switch {
	case waitErr == nil:
		return res, nil
	case errors.As(waitErr, &exitErr) && exitErr.Signal() == "":
		res.ExitCode = exitErr.ExitStatus()
		return res, nil
	case errors.As(waitErr, &exitErr):
		res.ExitCode = -1
		if lost := cl.lost(); lost != nil {
			return res, lost
		}
		return res, fmt.Errorf("%w: the command was killed by signal %s", transport.ErrConnectionLost, exitErr.Signal())
	case errors.As(waitErr, &missing):
		res.ExitCode = -1
		if lost := waitLost(cl); lost != nil {
			return res, fmt.Errorf("during the command: %w", lost)
		}
		return res, fmt.Errorf("%w: the session ended without an exit status", transport.ErrConnectionLost)
	default:
		res.ExitCode = -1
		if lost := waitLost(cl); lost != nil {
			return res, fmt.Errorf("during the command: %w", lost)
		}
		if errors.Is(waitErr, transport.ErrConnectionLost) {
			return res, waitErr
		}
		return res, fmt.Errorf("%w: %w", transport.ErrConnectionLost, waitErr)
	}
}

// waitLost gives the connection watcher a moment to record why the
// connection ended, when a session ended abnormally.
func waitLost(cl *client) error {
	select {
	case <-cl.done:
	case <-time.After(100 * time.Millisecond):
	}
	return cl.lost()
}

// session opens a session on the host's connection. When the connection
// turns out to be dead, it reconnects once: nothing ran yet, so trying
// again is safe.
func (c *conn) session(ctx context.Context) (*client, *gossh.Session, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		cl, err := c.p.client(ctx, c.e)
		if err != nil {
			return nil, nil, err
		}
		sess, err := openSession(ctx, cl)
		if err == nil {
			return cl, sess, nil
		}
		var oce *gossh.OpenChannelError
		if errors.As(err, &oce) || ctx.Err() != nil {
			return nil, nil, err
		}
		// The connection is unusable; drop it so the next attempt dials.
		cl.markLost(fmt.Errorf("%w: opening a session failed: %w", transport.ErrConnectionLost, err))
		lastErr = err
	}
	return nil, nil, lastErr
}

// openSession opens a session, giving up when ctx ends.
func openSession(ctx context.Context, cl *client) (*gossh.Session, error) {
	type res struct {
		s   *gossh.Session
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := cl.c.NewSession()
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			var oce *gossh.OpenChannelError
			if errors.As(r.err, &oce) {
				return nil, fmt.Errorf("%w: the server refused a new session (its MaxSessions may be lower than the pool's): %w",
					transport.ErrConnectionLost, r.err)
			}
			return nil, fmt.Errorf("%w: opening a session: %w", transport.ErrConnectionLost, r.err)
		}
		return r.s, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.s != nil {
				_ = r.s.Close()
			}
		}()
		return nil, ctxErr(ctx, "opening a session")
	}
}
