package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// A shell is a long-lived `sh -s` session on a host that runs commands one
// after another, each in a subshell: a command then costs no new session,
// no sshd child and no login shell on the host. See the package
// documentation for the protocol.
type shell struct {
	e       *hostEntry
	cl      *client
	become  bool
	sess    *gossh.Session
	stdin   io.WriteCloser
	out     markStream
	errs    markStream
	ended   chan struct{} // closed when the session ended; then waitErr is set
	once    sync.Once
	broken  bool // a command did not end cleanly: never reuse
	waitErr error
}

// shellKind indexes hostEntry.idle: shells without and with sudo.
func shellKind(become bool) int {
	if become {
		return 1
	}
	return 0
}

// usesShell reports whether cmd can run in a shell of the pool: it reads
// no stdin of its own, and through sudo only without a password (a
// password would be read by sudo from the stream the shell reads too).
func (c *conn) usesShell(cmd transport.Command) bool {
	if c.p.opts.SessionPerCommand || cmd.Stdin != nil {
		return false
	}
	return !cmd.Become || c.e.host.BecomePassword == ""
}

// acquire waits for room to run a command on the host: an idle shell of
// the wanted kind (wantShell), or a session slot. It closes idle shells
// that are not wanted when every slot is held, so they never starve other
// commands. It returns the idle shell, or nil and a held slot.
func (e *hostEntry) acquire(ctx context.Context, wantShell, become bool) (*shell, error) {
	k := shellKind(become)
	for {
		var want chan *shell // nil: never ready
		if wantShell {
			want = e.idle[k]
			select {
			case sh := <-want:
				if sh.usable() {
					return sh, nil
				}
				sh.close()
				continue
			default:
			}
		}
		select {
		case e.sessions <- struct{}{}:
			return nil, nil
		default:
		}
		others := [2]chan *shell{e.idle[0], e.idle[1]}
		if wantShell {
			others[k] = nil
		}
		select {
		case sh := <-want:
			if sh.usable() {
				return sh, nil
			}
			sh.close()
		case sh := <-others[0]:
			sh.close()
		case sh := <-others[1]:
			sh.close()
		case e.sessions <- struct{}{}:
			return nil, nil
		case <-ctx.Done():
			return nil, ctxErr(ctx, "waiting for a free session slot")
		}
	}
}

// closeIdle closes every idle shell of the host.
func (e *hostEntry) closeIdle() {
	for _, ch := range e.idle {
		for {
			select {
			case sh := <-ch:
				sh.close()
				continue
			default:
			}
			break
		}
	}
}

// usable reports whether an idle shell can take a command: its session is
// alive on the host's current connection.
func (sh *shell) usable() bool {
	select {
	case <-sh.ended:
		return false
	default:
	}
	return !sh.broken && sh.e.current() == sh.cl
}

// release returns a shell after a command: to the idle shells when it
// ended cleanly, closed otherwise.
func (sh *shell) release() {
	if !sh.usable() {
		sh.close()
		return
	}
	sh.e.idle[shellKind(sh.become)] <- sh
}

// close ends the shell's session and frees its slot once the session is
// over (bounded by killGrace), so the server counts it gone.
func (sh *shell) close() {
	sh.once.Do(func() {
		go func() {
			_ = sh.stdin.Close()
			select {
			case <-sh.ended:
			case <-time.After(killGrace):
				_ = sh.sess.Close()
			}
			<-sh.e.sessions
		}()
	})
}

// startShell opens a shell session on a held slot. The first command's
// sinks are set by the caller before, so what the shell says on start
// (sudo refusing, say) is that command's output.
func (c *conn) startShell(ctx context.Context, become bool) (*shell, error) {
	cl, sess, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	sh := &shell{e: c.e, cl: cl, become: become, sess: sess, ended: make(chan struct{})}
	sess.Stdout, sess.Stderr = &sh.out, &sh.errs
	if sh.stdin, err = sess.StdinPipe(); err != nil {
		_ = sess.Close()
		return nil, fmt.Errorf("%w: opening stdin: %w", transport.ErrConnectionLost, err)
	}
	return sh, nil
}

// launch starts the shell process: `sh -s`, through `sudo -n` for become.
// A TERM sent to the session's process group (the engine's job timeout)
// does not end the shell, only the commands that do not catch it.
func (sh *shell) launch() error {
	line := "exec sh -s"
	if sh.become {
		line = "exec sudo -n -- sh -s"
	}
	if err := sh.sess.Start(line); err != nil {
		_ = sh.sess.Close()
		return fmt.Errorf("%w: starting a shell: %w", transport.ErrConnectionLost, err)
	}
	go func() {
		sh.waitErr = sh.sess.Wait()
		close(sh.ended)
	}()
	_, err := io.WriteString(sh.stdin, "trap : TERM\n")
	if err != nil {
		return fmt.Errorf("%w: writing to the shell: %w", transport.ErrConnectionLost, err)
	}
	return nil
}

// shellRequest is the text that runs cmd in a subshell of a shell and then
// prints token, random per command, and the exit status on stdout, and
// token on stderr.
// Values are quoted as in the environment block of a session: the command
// line is single-quoted and evaluated, so no text of the command can
// unbalance the shell that reads the stream.
func shellRequest(cmd transport.Command) (req, token string, err error) {
	keys, err := envKeys(cmd.Env)
	if err != nil {
		return "", "", err
	}
	nonce, err := newNonce()
	if err != nil {
		return "", "", err
	}
	token = "cp-end-" + nonce
	var b strings.Builder
	b.WriteString("(\n")
	if len(keys) > 0 {
		b.WriteString("__cp_nl='\n'\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "export %s=%s\n", k, quoteOneLine(cmd.Env[k]))
		}
		b.WriteString("unset __cp_nl\n")
	}
	if cmd.Dir != "" {
		fmt.Fprintf(&b, "cd -- %s || exit 1\n", quote(cmd.Dir))
	}
	fmt.Fprintf(&b, "eval %s\n) </dev/null\nprintf '%%s %%d\\n' %s \"$?\"\nprintf '%%s\\n' %s >&2\n", quote(cmd.Cmd), token, token)
	return b.String(), token, nil
}

// runShell runs a request (shellRequest) in sh, launching it first when
// started is false, and returns the exit status, or how the shell ended.
func (c *conn) runShell(ctx context.Context, sh *shell, started bool, req, token string, stdout, stderr io.Writer) (transport.Result, error) {
	outDone := sh.out.begin(token, stdout)
	errDone := sh.errs.begin(token, stderr)
	start := time.Now()
	if !started {
		if err := sh.launch(); err != nil {
			sh.broken = true
			return transport.Result{}, err
		}
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(sh.stdin, req)
		wrote <- err
	}()

	res := transport.Result{ExitCode: -1}
	pending := 2
	for pending > 0 {
		select {
		case <-outDone:
			outDone = nil
			pending--
		case <-errDone:
			errDone = nil
			pending--
		case <-sh.ended:
			// The shell ended before the command's end: sudo refused to
			// start it, something killed it, or the connection went.
			sh.broken = true
			res.Duration = time.Since(start)
			if err := sessionEnd(sh.cl, sh.waitErr, &res); err != nil || res.ExitCode != 0 {
				return res, err
			}
			res.ExitCode = -1
			return res, fmt.Errorf("%w: the shell ended before the command did", transport.ErrConnectionLost)
		case <-ctx.Done():
			sh.broken = true
			_ = sh.sess.Signal(gossh.SIGKILL)
			_ = sh.sess.Close()
			select {
			case <-sh.ended:
			case <-time.After(killGrace):
			}
			res.Duration = time.Since(start)
			return res, ctxErr(ctx, fmt.Sprintf("command stopped after %s", res.Duration.Round(time.Millisecond)))
		}
	}
	res.Duration = time.Since(start)
	if err := <-wrote; err != nil {
		sh.broken = true
	}
	code, err := strconv.Atoi(strings.TrimSpace(sh.out.tail()))
	if err != nil {
		sh.broken = true
		return res, fmt.Errorf("%w: the shell reported no exit status", transport.ErrConnectionLost)
	}
	res.ExitCode = code
	return res, nil
}

// sessionEnd classifies how a session ended (waitErr of Session.Wait),
// setting res.ExitCode; nil means the command ended with an exit status.
func sessionEnd(cl *client, waitErr error, res *transport.Result) error {
	var exitErr *gossh.ExitError
	var missing *gossh.ExitMissingError
	switch {
	case waitErr == nil:
		res.ExitCode = 0
		return nil
	case errors.As(waitErr, &exitErr) && exitErr.Signal() == "":
		res.ExitCode = exitErr.ExitStatus()
		return nil
	case errors.As(waitErr, &exitErr):
		res.ExitCode = -1
		if lost := cl.lost(); lost != nil {
			return lost
		}
		return fmt.Errorf("%w: the command was killed by signal %s", transport.ErrConnectionLost, exitErr.Signal())
	case errors.As(waitErr, &missing):
		res.ExitCode = -1
		if lost := waitLost(cl); lost != nil {
			return fmt.Errorf("during the command: %w", lost)
		}
		return fmt.Errorf("%w: the session ended without an exit status", transport.ErrConnectionLost)
	default:
		res.ExitCode = -1
		if lost := waitLost(cl); lost != nil {
			return fmt.Errorf("during the command: %w", lost)
		}
		if errors.Is(waitErr, transport.ErrConnectionLost) {
			return waitErr
		}
		return fmt.Errorf("%w: %w", transport.ErrConnectionLost, waitErr)
	}
}
