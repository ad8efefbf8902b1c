package ssh

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// nastyValues are values whose quoting goes wrong in naive code.
func nastyValues() map[string]string {
	return map[string]string{
		"SINGLE":    `it's 'quoted'`,
		"DOUBLE":    `say "hi" \"there\"`,
		"NEWLINES":  "line1\nline2\n\nline4\n",
		"SUBST":     "$(touch /tmp/cp-pwned) ${HOME} $HOME",
		"BACKTICK":  "`touch /tmp/cp-pwned`",
		"BACKSLASH": `a\b\\c\n\t`,
		"SEMI":      "x; exit 3 && echo no | cat",
		"GLOB":      "* ? [a-z] ~",
		"EMPTY":     "",
		"SPACES":    "  lead and trail  ",
		"UNICODE":   "Привіт, світ ✓",
		"MARKERISH": "cp-env-end-0000",
		"CR":        "a\r\nb",
		"DASH":      "-n -e",
	}
}

func TestQuoteRoundTripsThroughSh(t *testing.T) {
	for name, v := range nastyValues() {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command("sh", "-c", "printf '%s' "+quote(v)).Output()
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != v {
				t.Fatalf("got: %q want: %q", out, v)
			}
		})
	}
}

func TestPrepareKeepsValuesOutOfTheCommandLine(t *testing.T) {
	env := nastyValues()
	env["SECRET"] = "hunter2-very-secret"
	p, err := prepare(transport.Command{Cmd: "true", Env: env, Become: true, Dir: "/tmp"}, "sudo-pass-123", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hunter2-very-secret", "sudo-pass-123", "touch /tmp/cp-pwned"} {
		if strings.Contains(p.line, s) {
			t.Errorf("command line contains %q:\n%s", s, p.line)
		}
	}
	if !strings.HasPrefix(p.line, "exec sudo -S -p '' -- sh -c ") {
		t.Errorf("got: %s want: sudo -S -p '' prefix", p.line)
	}
	p, err = prepare(transport.Command{Cmd: "true", Become: true}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.line, "exec sudo -n -- sh -c ") || p.stdin != nil {
		t.Errorf("got: %s (stdin %v) want: sudo -n and no stdin", p.line, p.stdin != nil)
	}
}

// With the login shell declared /bin/sh, a command without Become is the
// script itself; with Become it still goes through sudo and sh -c.
func TestPrepareLoginShellSh(t *testing.T) {
	p, err := prepare(transport.Command{Cmd: "echo hi", Env: map[string]string{"A": "b"}}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.line, "exec sh -c") || !strings.HasSuffix(p.line, "echo hi") {
		t.Errorf("got: %s want: the script itself", p.line)
	}
	p, err = prepare(transport.Command{Cmd: "echo hi", Become: true}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.line, "exec sudo -n -- sh -c ") {
		t.Errorf("got: %s want: sudo -n -- sh -c", p.line)
	}
}

func TestPrepareRejectsBadNames(t *testing.T) {
	for _, k := range []string{"", "1A", "A-B", "A B", "A=B", "$(x)"} {
		if _, err := prepare(transport.Command{Cmd: "true", Env: map[string]string{k: "v"}}, "", false); err == nil {
			t.Errorf("name %q: got no error", k)
		}
	}
	if _, err := prepare(transport.Command{Cmd: "true", Env: map[string]string{"A": "x\x00y"}}, "", false); err == nil {
		t.Error("NUL in value: got no error")
	}
}
