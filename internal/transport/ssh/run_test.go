package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustRun(t testing.TB, c transport.Conn, cmd transport.Command) transport.Result {
	t.Helper()
	res, err := c.Run(ctxT(t, 30*time.Second), cmd)
	if err != nil {
		t.Fatalf("run %q: %v", cmd.Cmd, err)
	}
	return res
}

func TestRunOutputExitStdinDir(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{}, e.host("h1"))
	c := dial(t, p, "h1")
	if c.Host() != "h1" {
		t.Fatalf("got: %s want: h1", c.Host())
	}

	res := mustRun(t, c, transport.Command{Cmd: "echo out; echo err >&2; exit 7"})
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 7 || res.Truncated {
		t.Fatalf("got: %+v want: out/err/7", res)
	}
	if res.Duration <= 0 {
		t.Fatalf("got duration %v", res.Duration)
	}

	res = mustRun(t, c, transport.Command{Cmd: "wc -c; pwd", Stdin: strings.NewReader(strings.Repeat("x", 300000)), Dir: "/etc"})
	if got := strings.Fields(string(res.Stdout)); len(got) != 2 || got[0] != "300000" || got[1] != "/etc" {
		t.Fatalf("got: %q want: 300000 /etc", res.Stdout)
	}

	res = mustRun(t, c, transport.Command{Cmd: "pwd", Dir: "/does/not/exist"})
	if res.ExitCode == 0 || !strings.Contains(string(res.Stderr), "/does/not/exist") {
		t.Fatalf("missing dir: got: %+v want: non-zero exit naming the dir", res)
	}

	// A command that exits without reading its input is fine.
	res = mustRun(t, c, transport.Command{Cmd: "echo ok", Stdin: bytes.NewReader(make([]byte, 4<<20))})
	if string(res.Stdout) != "ok\n" {
		t.Fatalf("unread stdin: got: %q", res.Stdout)
	}
}

// Every value arrives byte for byte: with the caller's stdin after the
// environment block (read line by line) and without (the block sourced
// from the stdin pipe), wrapped in `sh -c` or, with Host.LoginShellSh (the
// fixture's users log in to /bin/sh), run by the login shell itself.
func TestRunEnvNastyValuesArriveIntact(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	h := e.host("h1")
	direct := e.host("h2")
	direct.LoginShellSh = true
	p := newPool(t, Options{}, h, direct)
	env := nastyValues()
	env["BIG"] = strings.Repeat("0123456789'\"\n", 5000)
	os.Remove("/tmp/cp-pwned")
	for _, host := range []string{"h1", "h2"} {
		c := dial(t, p, host)
		for name, want := range env {
			res := mustRun(t, c, transport.Command{
				Cmd:   fmt.Sprintf(`printf '%%s' "$%s"; cat >&2`, name),
				Env:   env,
				Stdin: strings.NewReader("stdin after env\n"),
			})
			if string(res.Stdout) != want {
				t.Errorf("%s, %s: got: %q want: %q", host, name, res.Stdout, want)
			}
			if string(res.Stderr) != "stdin after env\n" {
				t.Errorf("%s, %s: stdin: got: %q", host, name, res.Stderr)
			}
			res = mustRun(t, c, transport.Command{Cmd: fmt.Sprintf(`printf '%%s' "$%s"; cat >&2`, name), Env: env})
			if string(res.Stdout) != want || len(res.Stderr) != 0 {
				t.Errorf("%s, %s, no stdin: got: %q (stderr %q) want: %q", host, name, res.Stdout, res.Stderr, want)
			}
		}
	}
	c := dial(t, p, "h1")
	if _, err := os.Stat("/tmp/cp-pwned"); err == nil {
		t.Fatal("a value was executed by the shell")
	}
	// The preamble's variables do not leak into the command.
	res := mustRun(t, c, transport.Command{Cmd: `echo "[${__cp_nl-unset}${__cp_l-unset}]"`, Env: map[string]string{"A": "b"}})
	if string(res.Stdout) != "[unsetunset]\n" {
		t.Errorf("preamble variables: got: %q", res.Stdout)
	}
}

func TestEnvValuesAreNotInTheProcessList(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	for _, perCommand := range []bool{false, true} {
		p := newPool(t, Options{SessionPerCommand: perCommand}, e.host("h1"))
		c := dial(t, p, "h1")
		const secret = "zq-env-value-never-in-argv"
		res := mustRun(t, c, transport.Command{
			Cmd: `for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f" 2>/dev/null; echo; done; test -n "$S" && echo has-env`,
			Env: map[string]string{"S": secret},
		})
		if strings.Contains(string(res.Stdout), secret) {
			t.Fatalf("per command %v: the value is visible in a process's command line", perCommand)
		}
		shell := "sh -s" // the pool's shell
		if perCommand {
			shell = "sh -c"
		}
		if !strings.Contains(string(res.Stdout), "has-env") || !strings.Contains(string(res.Stdout), shell) {
			t.Fatalf("per command %v: got: %q want: the process list with %q and has-env", perCommand, res.Stdout, shell)
		}
	}
}

func TestBecome(t *testing.T) {
	ensureUsers(t)
	e := newEnv(t, sshdOptions{})
	nopw := e.host("nopw")
	nopw.User = nopwUser
	pw := e.host("pw")
	pw.User = pwUser
	pw.BecomePassword = pwPassword
	pwNoPass := e.host("pw-nopass")
	pwNoPass.User = pwUser
	pwWrong := e.host("pw-wrong")
	pwWrong.User = pwUser
	pwWrong.BecomePassword = "not-the-password"
	p := newPool(t, Options{}, nopw, pw, pwNoPass, pwWrong)

	check := func(name string, become bool, wantUID string) {
		t.Helper()
		c := dial(t, p, name)
		res := mustRun(t, c, transport.Command{
			Cmd:    `id -u; printf '%s|' "$V"; cat`,
			Become: become,
			Env:    map[string]string{"V": "it's $(v)"},
			Stdin:  strings.NewReader("in"),
		})
		want := wantUID + "\nit's $(v)|in"
		if res.ExitCode != 0 || string(res.Stdout) != want {
			t.Errorf("%s become=%v: got: %q (exit %d, stderr %q) want: %q", name, become, res.Stdout, res.ExitCode, res.Stderr, want)
		}
		if strings.Contains(string(res.Stdout)+string(res.Stderr), pwPassword) {
			t.Errorf("%s: the sudo password leaked into the output", name)
		}
	}
	check("nopw", true, "0")
	check("nopw", false, uidOf(t, nopwUser))
	check("pw", true, "0")
	check("pw", false, uidOf(t, pwUser))

	// Without the password, sudo -n refuses instead of hanging on a prompt.
	c := dial(t, p, "pw-nopass")
	res := mustRun(t, c, transport.Command{Cmd: "id -u", Become: true})
	if res.ExitCode == 0 || !strings.Contains(string(res.Stderr), "password") {
		t.Errorf("sudo -n without password: got: %+v want: non-zero exit, sudo asks for a password", res)
	}
	// A wrong password fails the command and never runs it.
	c = dial(t, p, "pw-wrong")
	res = mustRun(t, c, transport.Command{Cmd: "echo ran", Become: true, Env: map[string]string{"A": "b"}})
	if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "ran") {
		t.Errorf("wrong sudo password: got: %+v want: failure", res)
	}
	if strings.Contains(string(res.Stderr), "not-the-password") {
		t.Errorf("wrong sudo password: the password is in stderr: %q", res.Stderr)
	}
}

func uidOf(t testing.TB, user string) string {
	t.Helper()
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 2 && f[0] == user {
			return f[2]
		}
	}
	t.Fatalf("no user %s", user)
	return ""
}

func TestOutputCapAndStreaming(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{}, e.host("h1"))
	c := dial(t, p, "h1")
	var streamed bytes.Buffer
	res := mustRun(t, c, transport.Command{
		Cmd:       "seq 1 200000; seq 1 5 >&2",
		MaxOutput: 1000,
		Stdout:    &streamed,
	})
	if !res.Truncated {
		t.Fatal("want Truncated")
	}
	if !bytes.HasPrefix(res.Stdout, []byte("1\n2\n3\n")) || !bytes.HasSuffix(res.Stdout, []byte("199999\n200000\n")) ||
		!bytes.Contains(res.Stdout, []byte("bytes truncated")) {
		t.Fatalf("got head/tail: %q ... %q", res.Stdout[:20], res.Stdout[len(res.Stdout)-20:])
	}
	if len(res.Stdout) > 1100 {
		t.Fatalf("captured %d bytes, want about 1000", len(res.Stdout))
	}
	if string(res.Stderr) != "1\n2\n3\n4\n5\n" {
		t.Fatalf("stderr: got: %q", res.Stderr)
	}
	// The stream got everything: seq 1 200000 is 1288895 bytes.
	if streamed.Len() != 1288895 {
		t.Fatalf("streamed %d bytes want 1288895", streamed.Len())
	}
}

func TestRedactionInOutputStreamsAndErrors(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	var r transport.Redactor
	const secret = "s3cr3t-token-abcdef"
	r.Add(secret)
	p := newPool(t, Options{Redactor: &r}, e.host("h1"))
	c := dial(t, p, "h1")

	var so, se safeBuffer
	res := mustRun(t, c, transport.Command{
		Cmd: `echo "token=$T"; echo "err $T" >&2`, Env: map[string]string{"T": secret},
		Stdout: &so, Stderr: &se,
	})
	for name, s := range map[string]string{"stdout": string(res.Stdout), "stderr": string(res.Stderr), "streamed stdout": so.String(), "streamed stderr": se.String()} {
		if strings.Contains(s, secret) || !strings.Contains(s, transport.Mask) {
			t.Errorf("%s: got: %q want: masked", name, s)
		}
	}

	// RawStdout: the captured stdout is the caller's to redact; the stream
	// and stderr are still masked.
	so, se = safeBuffer{}, safeBuffer{}
	res = mustRun(t, c, transport.Command{
		Cmd: `echo "token=$T"; echo "err $T" >&2`, Env: map[string]string{"T": secret},
		Stdout: &so, Stderr: &se, RawStdout: true,
	})
	if string(res.Stdout) != "token="+secret+"\n" {
		t.Errorf("raw stdout got: %q want: the unmasked line", res.Stdout)
	}
	for name, s := range map[string]string{"stderr": string(res.Stderr), "streamed stdout": so.String(), "streamed stderr": se.String()} {
		if strings.Contains(s, secret) || !strings.Contains(s, transport.Mask) {
			t.Errorf("RawStdout, %s: got: %q want: masked", name, s)
		}
	}

	// The secret reaches an error through a file path and a command.
	err := c.Upload(ctxT(t, 10*time.Second), transport.File{Path: "/nonexistent-dir-" + secret + "/\x00/x", Content: []byte("x")})
	if err == nil {
		t.Fatal("want an upload error")
	}
	_, err2 := c.Run(ctxT(t, 300*time.Millisecond), transport.Command{Cmd: "sleep 5 # " + secret})
	for _, err := range []error{err, err2} {
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), transport.Mask) {
			t.Errorf("got: %v want: an error with the secret masked", err)
		}
	}
	if !errors.Is(err2, transport.ErrTimeout) {
		t.Errorf("redacted error lost its class: %v", err2)
	}
	var he *transport.HostError
	if !errors.As(err2, &he) || he.Host != "h1" {
		t.Errorf("got: %#v want: a HostError for h1", err2)
	}
	// Unwrapping does not reveal the secret either.
	for u := errors.Unwrap(err2); u != nil; u = errors.Unwrap(u) {
		if strings.Contains(u.Error(), secret) {
			t.Errorf("unwrapped error shows the secret: %v", u)
		}
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
