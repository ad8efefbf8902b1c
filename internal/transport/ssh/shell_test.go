package ssh

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// shellPID is the pid of the shell a command runs in ($$ in a subshell).
func shellPID(t *testing.T, c transport.Conn) string {
	t.Helper()
	return strings.TrimSpace(string(mustRun(t, c, transport.Command{Cmd: "echo $$"}).Stdout))
}

// newShellConn is a connection to a fresh test sshd through a default
// pool, and the pid of the shell its first command ran in.
func newShellConn(t *testing.T) (*env, transport.Conn, string) {
	t.Helper()
	e := newEnv(t, sshdOptions{})
	c := dial(t, newPool(t, Options{}, e.host("h1")), "h1")
	return e, c, shellPID(t, c)
}

// Commands in one shell run one after another, each in a subshell: what
// one sets (variables, directory, options, traps) is gone for the next;
// output, stderr and exit status are the command's exactly; a command
// that does not parse fails alone.
func TestShellRunsEachCommandAlone(t *testing.T) {
	e, c, pid := newShellConn(t)
	home := strings.TrimSpace(string(mustRun(t, c, transport.Command{Cmd: "pwd"}).Stdout))
	mustRun(t, c, transport.Command{Cmd: "X=1; export Y=2; cd /proc; set -e; umask 077; trap 'echo trapped' EXIT"})
	res := mustRun(t, c, transport.Command{Cmd: `echo "[${X-unset}${Y-unset}] $(pwd) $(umask)"; false; echo after`})
	if got := string(res.Stdout); home == "/proc" || !strings.HasPrefix(got, "[unsetunset] "+home+" ") || !strings.Contains(got, "\nafter\n") || strings.Contains(got, "0077") || strings.Contains(got, "trapped") {
		t.Errorf("state leaked between commands: %q", got)
	}
	cases := []struct {
		cmd            string
		stdout, stderr string
		exit           int
	}{
		{cmd: "printf abc", stdout: "abc"},
		{cmd: "printf 'no newline' >&2; exit 7", stderr: "no newline", exit: 7},
		{cmd: "echo 'unbalanced", exit: 2},
		{cmd: "exec sh -c 'echo replaced; exit 4'", stdout: "replaced\n", exit: 4},
		{cmd: "printf 'cp-end-%s' not-a-token", stdout: "cp-end-not-a-token"},
		{cmd: "cat", stdout: ""}, // stdin is empty
	}
	for _, tc := range cases {
		res := mustRun(t, c, transport.Command{Cmd: tc.cmd})
		if string(res.Stdout) != tc.stdout || res.ExitCode != tc.exit || (tc.stderr != "" && string(res.Stderr) != tc.stderr) {
			t.Errorf("%q: got: %q %q exit %d want: %q %q exit %d", tc.cmd, res.Stdout, res.Stderr, res.ExitCode, tc.stdout, tc.stderr, tc.exit)
		}
	}
	if got := shellPID(t, c); got != pid {
		t.Errorf("the commands ran in shells %s and %s want: one shell", pid, got)
	}
	// With SessionPerCommand every command has a shell of its own.
	pc := dial(t, newPool(t, Options{SessionPerCommand: true}, e.host("h1")), "h1")
	if a, b := shellPID(t, pc), shellPID(t, pc); a == b {
		t.Errorf("session per command: both commands ran in shell %s", a)
	}
}

// A shell killed under a command fails that command as a lost session;
// the next command gets a new shell. A TERM to the session's process
// group ends the command, not the shell.
func TestShellDeathAndTerm(t *testing.T) {
	_, c, pid := newShellConn(t)
	res := mustRun(t, c, transport.Command{Cmd: "kill -TERM 0; sleep 5; echo not-reached"})
	if res.ExitCode != 143 || strings.Contains(string(res.Stdout), "not-reached") {
		t.Errorf("TERM to the group: got exit %d %q want: 143", res.ExitCode, res.Stdout)
	}
	if got := shellPID(t, c); got != pid {
		t.Errorf("the shell did not survive TERM: %s then %s", pid, got)
	}
	_, err := c.Run(ctxT(t, 10*time.Second), transport.Command{Cmd: "kill -KILL $$"})
	if !errors.Is(err, transport.ErrConnectionLost) {
		t.Errorf("shell killed under the command: got %v want ErrConnectionLost", err)
	}
	if got := shellPID(t, c); got == pid || got == "" {
		t.Errorf("after the shell died: got shell %q want a new one", got)
	}
}

// A cancelled command ends its shell; the next command runs.
func TestShellCancel(t *testing.T) {
	_, c, pid := newShellConn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Run(ctx, transport.Command{Cmd: "sleep 30"})
	if !errors.Is(err, transport.ErrTimeout) || time.Since(start) > 5*time.Second {
		t.Errorf("got %v after %v want ErrTimeout at once", err, time.Since(start))
	}
	if got := shellPID(t, c); got == pid {
		t.Errorf("the cancelled command's shell %s was reused", pid)
	}
}

// Shells hold session slots; with every slot held by an idle shell of
// the other kind (become or not), or needed by a session of its own
// (stdin, uploads), idle shells are closed to make room: mixed commands
// on a host with two slots all finish.
func TestShellsShareSessionSlots(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{MaxSessions: 2}, e.host("h1"))
	c := dial(t, p, "h1")
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ctxT(t, 60*time.Second)
			var err error
			switch i % 3 {
			case 0:
				var res transport.Result
				res, err = c.Run(ctx, transport.Command{Cmd: "id -u", Become: true})
				if err == nil && strings.TrimSpace(string(res.Stdout)) != "0" {
					err = errors.New("become: not root: " + string(res.Stdout))
				}
			case 1:
				_, err = c.Run(ctx, transport.Command{Cmd: "cat >/dev/null", Stdin: strings.NewReader("x")})
			default:
				err = c.Upload(ctx, transport.File{Path: "/tmp/cp-shell-slots-" + nopwUser, Content: []byte("x"), Mode: 0o600})
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestMarkStream(t *testing.T) {
	const token = "cp-end-0123456789"
	for _, chunk := range []int{1, 2, 5, 7, 1000} {
		var m markStream
		var sink strings.Builder
		done := m.begin(token, &sink)
		in := "out cp-end-01234 cp-end-x\nlast" + token + " 42\nafter"
		for i := 0; i < len(in); i += chunk {
			_, _ = m.Write([]byte(in[i:min(i+chunk, len(in))]))
		}
		select {
		case <-done:
		default:
			t.Fatalf("chunk %d: the end was not seen", chunk)
		}
		if sink.String() != "out cp-end-01234 cp-end-x\nlast" || m.tail() != " 42" {
			t.Errorf("chunk %d: got %q tail %q", chunk, sink.String(), m.tail())
		}
		// Between commands the stream is dropped.
		_, _ = m.Write([]byte("late output"))
		if strings.Contains(sink.String(), "late") {
			t.Errorf("chunk %d: output after the end reached the sink", chunk)
		}
	}
}
