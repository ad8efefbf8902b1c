package ssh

import (
	"encoding/pem"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// serveAgent serves an in-process agent keyring holding key on a unix
// socket and returns the socket path.
func serveAgent(t *testing.T, key keypair) string {
	t.Helper()
	kr := agent.NewKeyring()
	priv, err := gossh.ParseRawPrivateKey(key.pem)
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _ = agent.ServeAgent(kr, c) }()
		}
	}()
	return sock
}

func TestAuthMethods(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	t.Setenv("SSH_AUTH_SOCK", "") // the tests choose their agent explicitly

	encBlock, err := gossh.MarshalPrivateKeyWithPassphrase(mustRawKey(t, e.key.pem), "enc", []byte("pass-phrase-1"))
	if err != nil {
		t.Fatal(err)
	}
	encPEM := pem.EncodeToMemory(encBlock)
	other := newKey(t, t.TempDir(), "other")
	sock := serveAgent(t, e.key)
	otherSock := serveAgent(t, other)

	cases := []struct {
		name    string
		user    string
		auth    Auth
		wantErr error
	}{
		{"key file", nopwUser, Auth{PrivateKeyPath: e.key.path}, nil},
		{"key bytes", nopwUser, Auth{PrivateKey: e.key.pem}, nil},
		{"encrypted key bytes", nopwUser, Auth{PrivateKey: encPEM, Passphrase: "pass-phrase-1"}, nil},
		{"agent socket", nopwUser, Auth{Agent: true, AgentSocket: sock}, nil},
		{"password", pwUser, Auth{Password: pwPassword}, nil},
		{"wrong key", nopwUser, Auth{PrivateKey: other.pem}, transport.ErrAuth},
		{"agent with wrong key", nopwUser, Auth{Agent: true, AgentSocket: otherSock}, transport.ErrAuth},
		{"wrong password", pwUser, Auth{Password: "nope-nope"}, transport.ErrAuth},
		{"encrypted key without passphrase", nopwUser, Auth{PrivateKey: encPEM}, transport.ErrAuth},
		{"encrypted key wrong passphrase", nopwUser, Auth{PrivateKey: encPEM, Passphrase: "wrong"}, transport.ErrAuth},
		{"missing key file", nopwUser, Auth{PrivateKeyPath: "/nonexistent/key"}, transport.ErrAuth},
		{"agent without socket", nopwUser, Auth{Agent: true}, transport.ErrAuth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := e.host("h")
			h.User, h.Auth = tc.user, tc.auth
			p := newPool(t, Options{}, h)
			c, err := p.Dial(ctxT(t, 20*time.Second), "h")
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("got: %v want: success", err)
				}
				res := mustRun(t, c, transport.Command{Cmd: "id -un"})
				if strings.TrimSpace(string(res.Stdout)) != tc.user {
					t.Fatalf("got: %q want: %s", res.Stdout, tc.user)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got: %v want: %v", err, tc.wantErr)
			}
			if transport.Retryable(err) {
				t.Errorf("auth failure must not be retryable: %v", err)
			}
			var he *transport.HostError
			if !errors.As(err, &he) || he.Host != "h" || he.Op != "dial" {
				t.Errorf("got: %#v want: HostError{h, dial}", err)
			}
			for _, s := range []string{"pass-phrase-1", pwPassword, "nope-nope"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret: %v", err)
				}
			}
		})
	}
}

func mustRawKey(t *testing.T, pemBytes []byte) any {
	t.Helper()
	k, err := gossh.ParseRawPrivateKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestConfigValidation(t *testing.T) {
	good := Host{Name: "a", Address: "127.0.0.1", User: "u", Auth: Auth{Password: "p"}, HostKey: HostKeyCheck{KnownHostsFile: "/x"}}
	cases := map[string]func(h *Host){
		"no name":             func(h *Host) { h.Name = "" },
		"no address":          func(h *Host) { h.Address = "" },
		"no user":             func(h *Host) { h.User = "" },
		"no credentials":      func(h *Host) { h.Auth = Auth{} },
		"no host key check":   func(h *Host) { h.HostKey = HostKeyCheck{} },
		"accept-new, no file": func(h *Host) { h.HostKey = HostKeyCheck{AcceptNew: true, Pinned: []string{"SHA256:abc"}} },
		"bad pin":             func(h *Host) { h.HostKey = HostKeyCheck{Pinned: []string{"garbage"}} },
		"bad port":            func(h *Host) { h.Port = 70000 },
		"bad jump":            func(h *Host) { h.Jump = &Host{Name: "j"} },
	}
	if _, err := NewPool(Options{}, good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for name, mutate := range cases {
		h := good
		mutate(&h)
		if _, err := NewPool(Options{}, h); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}
