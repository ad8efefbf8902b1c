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

// run runs cmd in a shell of the host or a session of its own;
// redactStdout is false for downloads, whose content is returned as is.
func (c *conn) run(ctx context.Context, cmd transport.Command, redactStdout bool) (transport.Result, error) {
	if c.closed.Load() {
		return transport.Result{}, errors.New("the connection handle is closed")
	}
	if err := ctx.Err(); err != nil {
		return transport.Result{}, ctxErr(ctx, "before start")
	}
	inShell := c.usesShell(cmd)
	var prep prepared
	var req, token string
	var err error
	if inShell {
		req, token, err = shellRequest(cmd)
	} else {
		prep, err = prepare(cmd, c.e.host.BecomePassword, c.e.host.LoginShellSh)
	}
	if err != nil {
		return transport.Result{}, err
	}
	sh, err := c.e.acquire(ctx, inShell, cmd.Become)
	if err != nil {
		return transport.Result{}, err
	}

	max := cmd.MaxOutput
	if max <= 0 {
		max = c.p.opts.MaxOutput
	}
	red := c.p.opts.Redactor
	stdout := newCapture(max, red, cmd.Stdout)
	stderr := newCapture(max, red, cmd.Stderr)
	var res transport.Result
	if inShell {
		started := sh != nil
		if !started {
			if sh, err = c.startShell(ctx, cmd.Become); err != nil {
				<-c.e.sessions
				return transport.Result{}, err
			}
		}
		res, err = c.runShell(ctx, sh, started, req, token, stdout, stderr)
		sh.release()
	} else {
		res, err = c.runSession(ctx, prep, stdout, stderr)
		<-c.e.sessions
	}
	var r *transport.Redactor
	if redactStdout {
		r = red
	}
	var t1, t2 bool
	res.Stdout, t1 = stdout.result(r)
	res.Stderr, t2 = stderr.result(red)
	res.Truncated = t1 || t2
	return res, err
}

// runSession runs a prepared command in a session of its own, on a held
// slot.
func (c *conn) runSession(ctx context.Context, prep prepared, stdout, stderr io.Writer) (transport.Result, error) {
	start := time.Now()
	cl, sess, err := c.session(ctx)
	if err != nil {
		return transport.Result{}, err
	}
	defer sess.Close()
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

	select {
	case waitErr := <-done:
		res := transport.Result{Duration: time.Since(start)}
		return res, sessionEnd(cl, waitErr, &res)
	case <-ctx.Done():
		_ = sess.Signal(gossh.SIGKILL)
		_ = sess.Close()
		select {
		case <-done:
		case <-time.After(killGrace):
		}
		res := transport.Result{Duration: time.Since(start), ExitCode: -1}
		return res, ctxErr(ctx, fmt.Sprintf("command stopped after %s", res.Duration.Round(time.Millisecond)))
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
