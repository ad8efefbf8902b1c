package operation

import (
	"testing"
)

// A key given in memory goes to the SSH client as bytes, in place of the
// file and the agent; a per-host key file replaces it; the sudo password
// is kept unless a host overrides it.
func TestAccessInMemoryKey(t *testing.T) {
	key := []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nbody\n-----END OPENSSH PRIVATE KEY-----\n")
	base := Access{User: "deploy", Port: 22, PrivateKey: key, KnownHostsFile: "/kh", BecomePassword: "pw"}

	h, err := base.sshHost("a", "10.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(h.Auth.PrivateKey) != string(key) || h.Auth.PrivateKeyPath != "" || h.Auth.Agent || h.BecomePassword != "pw" {
		t.Fatalf("got: auth %+v, sudo password %q want: the key in memory only, no file, no agent, the password", h.Auth, h.BecomePassword)
	}

	// The in-memory key wins over a file set beside it.
	both := base
	both.PrivateKeyFile = "/file"
	h, _ = both.sshHost("a", "10.0.0.1", 0)
	if h.Auth.PrivateKeyPath != "" || string(h.Auth.PrivateKey) != string(key) {
		t.Fatalf("got: auth %+v want: the in-memory key alone", h.Auth)
	}

	// A host's own key file replaces the provider's key material.
	m := base.Merge(Access{PrivateKeyFile: "/host-key"})
	h, _ = m.sshHost("a", "10.0.0.1", 0)
	if h.Auth.PrivateKeyPath != "/host-key" || len(h.Auth.PrivateKey) != 0 || h.BecomePassword != "pw" {
		t.Fatalf("got: auth %+v, sudo password %q want: the host's file, no key bytes, the password kept", h.Auth, h.BecomePassword)
	}

	// Neither key nor file: the agent.
	h, _ = Access{User: "deploy", KnownHostsFile: "/kh"}.sshHost("a", "10.0.0.1", 22)
	if !h.Auth.Agent {
		t.Fatalf("got: auth %+v want: the agent", h.Auth)
	}
}

// The bastion takes its own in-memory key, else its file, else the host's
// key material.
func TestAccessBastionKey(t *testing.T) {
	hostKey, jumpKey := []byte("host-key"), []byte("jump-key")
	base := Access{User: "deploy", PrivateKey: hostKey, KnownHostsFile: "/kh"}
	for _, tc := range []struct {
		name     string
		bastion  Bastion
		wantKey  string
		wantFile string
	}{
		{"own key", Bastion{Address: "10.0.0.9", PrivateKey: jumpKey, PrivateKeyFile: "/ignored"}, "jump-key", ""},
		{"own file", Bastion{Address: "10.0.0.9", PrivateKeyFile: "/jump"}, "", "/jump"},
		{"host's key", Bastion{Address: "10.0.0.9"}, "host-key", ""},
	} {
		a := base
		b := tc.bastion
		a.Bastion = &b
		h, err := a.sshHost("a", "10.0.0.1", 22)
		if err != nil {
			t.Fatal(err)
		}
		if h.Jump == nil || string(h.Jump.Auth.PrivateKey) != tc.wantKey || h.Jump.Auth.PrivateKeyPath != tc.wantFile {
			t.Fatalf("%s: got: jump %+v want: key %q, file %q", tc.name, h.Jump, tc.wantKey, tc.wantFile)
		}
		if string(h.Auth.PrivateKey) != "host-key" {
			t.Fatalf("%s: got: host auth %+v want: the host's key", tc.name, h.Auth)
		}
	}
}
