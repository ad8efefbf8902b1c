package ssh

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func TestJumpHost(t *testing.T) {
	requireSSHD(t)
	ensureUsers(t)
	// The bastion has its own key, user and host key; the target listens on
	// another loopback address and is dialed only through the bastion,
	// which logs the forwarding.
	bastion := newEnv(t, sshdOptions{logLevel: "DEBUG"})
	target := newEnv(t, sshdOptions{listen: "127.0.0.7"})

	jump := bastion.host("bastion")
	jump.User = pwUser
	jump.Auth = Auth{Password: pwPassword}
	h := target.host("target")
	h.Jump = &jump
	p := newPool(t, Options{}, h)
	c := dial(t, p, "target")
	res := mustRun(t, c, transport.Command{Cmd: `echo "$SSH_CONNECTION"; id -un`})
	if !strings.Contains(string(res.Stdout), "127.0.0.7 "+itoa(target.server.port)) || !strings.HasSuffix(string(res.Stdout), nopwUser+"\n") {
		t.Fatalf("got: %q want: a session on the target as %s", res.Stdout, nopwUser)
	}
	if log := bastion.server.stderr.String(); !strings.Contains(log, "127.0.0.7 port "+itoa(target.server.port)) {
		t.Fatalf("the bastion did not forward to the target; its log:\n%s", log)
	}

	// The bastion's own host key is checked: a changed bastion key fails
	// the dial with a host key error naming the bastion.
	p.Close()
	bastion.server.restartWithNewHostKey()
	p2 := newPool(t, Options{}, h)
	_, err := p2.Dial(ctxT(t, 20*time.Second), "target")
	if !errors.Is(err, transport.ErrHostKey) || !strings.Contains(err.Error(), "jump host bastion") {
		t.Fatalf("got: %v want: a host key error through the jump host", err)
	}

	// The bastion down: the target is unreachable.
	bastion.server.stop()
	_, err = p2.Dial(ctxT(t, 20*time.Second), "target")
	if !errors.Is(err, transport.ErrUnreachable) || !transport.Retryable(err) {
		t.Fatalf("got: %v want: retryable ErrUnreachable", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
