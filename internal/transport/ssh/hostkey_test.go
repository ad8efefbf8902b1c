package ssh

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func dialErr(t *testing.T, h Host) error {
	t.Helper()
	p := newPool(t, Options{DialTimeout: 5 * time.Second}, h)
	c, err := p.Dial(ctxT(t, 20*time.Second), h.Name)
	if err == nil {
		mustRun(t, c, transport.Command{Cmd: "true"})
	}
	return err
}

func wantHostKeyErr(t *testing.T, err error, offered gossh.PublicKey, hints ...string) {
	t.Helper()
	if !errors.Is(err, transport.ErrHostKey) || transport.Retryable(err) {
		t.Fatalf("got: %v want: non-retryable ErrHostKey", err)
	}
	var hk *HostKeyError
	if !errors.As(err, &hk) {
		t.Fatalf("got: %T want: a *HostKeyError in the chain", err)
	}
	fp := gossh.FingerprintSHA256(offered)
	if !strings.Contains(err.Error(), fp) || !strings.Contains(hk.Offered, fp) {
		t.Fatalf("got: %v want: the offered fingerprint %s", err, fp)
	}
	for _, h := range hints {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("got: %v want: mention of %q", err, h)
		}
	}
}

func TestHostKeyKnownHosts(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	h := e.host("h")
	if err := dialErr(t, h); err != nil {
		t.Fatalf("known key: %v", err)
	}

	// Unknown host: refused unless accept-new is asked for.
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.HostKey = HostKeyCheck{KnownHostsFile: empty}
	wantHostKeyErr(t, dialErr(t, h), e.server.hostKey.pub, "not in known_hosts", "accept-new")

	// accept-new records the key, then connects with it.
	fresh := filepath.Join(t.TempDir(), "sub", "known_hosts")
	h.HostKey = HostKeyCheck{KnownHostsFile: fresh, AcceptNew: true}
	if err := dialErr(t, h); err != nil {
		t.Fatalf("accept-new: %v", err)
	}
	data, err := os.ReadFile(fresh)
	if err != nil || !strings.Contains(string(data), strings.TrimSpace(string(gossh.MarshalAuthorizedKey(e.server.hostKey.pub)))) {
		t.Fatalf("accept-new did not record the key: %q %v", data, err)
	}
	if err := dialErr(t, h); err != nil {
		t.Fatalf("accept-new, second dial: %v", err)
	}

	// The host key changes: refused with the new fingerprint, even in
	// accept-new mode, and the file is not touched.
	nk := e.server.restartWithNewHostKey()
	h.HostKey = HostKeyCheck{KnownHostsFile: e.server.knownHosts}
	wantHostKeyErr(t, dialErr(t, h), nk.pub, "CHANGED", "ssh-keygen -R")
	h.HostKey = HostKeyCheck{KnownHostsFile: fresh, AcceptNew: true}
	wantHostKeyErr(t, dialErr(t, h), nk.pub, "CHANGED")
	after, _ := os.ReadFile(fresh)
	if string(after) != string(data) {
		t.Fatalf("accept-new changed known_hosts on a key change:\n%s", after)
	}
}

func TestHostKeyPinned(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	h := e.host("h")
	pub := e.server.hostKey.pub
	other := newKey(t, t.TempDir(), "other").pub
	cases := []struct {
		name string
		pins []string
		ok   bool
	}{
		{"authorized_keys line", []string{string(gossh.MarshalAuthorizedKey(pub))}, true},
		{"fingerprint", []string{gossh.FingerprintSHA256(pub)}, true},
		{"one of several", []string{gossh.FingerprintSHA256(other), gossh.FingerprintSHA256(pub)}, true},
		{"wrong key", []string{string(gossh.MarshalAuthorizedKey(other))}, false},
		{"wrong fingerprint", []string{gossh.FingerprintSHA256(other)}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.HostKey = HostKeyCheck{Pinned: tc.pins}
			err := dialErr(t, h)
			if tc.ok {
				if err != nil {
					t.Fatalf("got: %v want: success", err)
				}
				return
			}
			wantHostKeyErr(t, err, pub, "pinned", gossh.FingerprintSHA256(other))
		})
	}
}
