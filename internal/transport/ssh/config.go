package ssh

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Host is how to reach one host.
type Host struct {
	// Name is the name the engine dials (node id); unique in a Pool.
	Name string
	// Address is a host name or IP address; Port defaults to 22.
	Address string
	Port    int
	User    string
	Auth    Auth
	HostKey HostKeyCheck
	// BecomePassword is sent to `sudo -S` for commands with Become; when
	// empty, commands run with `sudo -n` and fail if sudo asks for one.
	BecomePassword string
	// Jump is a bastion the connection goes through; it has its own
	// credentials and host key check and may itself have a Jump.
	Jump *Host
	// LoginShellSh declares that the user's login shell is /bin/sh. sshd
	// runs every command as `<login shell> -c COMMAND`, so commands
	// without Become are then sent as they are, not wrapped in
	// `exec sh -c`: the same shell, one process start fewer per command.
	// Leave it false when the login shell is anything else (bash, zsh,
	// fish...), or unknown.
	LoginShellSh bool
}

// Auth lists the credentials to offer, in this order: private key, agent,
// password (also answering keyboard-interactive prompts).
type Auth struct {
	// PrivateKeyPath is a private key file; PrivateKey is PEM content given
	// directly. Passphrase decrypts either when it is encrypted.
	PrivateKeyPath string
	PrivateKey     []byte
	Passphrase     string
	// Agent offers the keys of an ssh-agent at AgentSocket, or at
	// $SSH_AUTH_SOCK when AgentSocket is empty.
	Agent       bool
	AgentSocket string
	Password    string
}

// HostKeyCheck says how to verify the host's key. At least one of
// KnownHostsFile and Pinned is required.
type HostKeyCheck struct {
	// KnownHostsFile is an OpenSSH known_hosts file.
	KnownHostsFile string
	// Pinned holds accepted keys in authorized_keys format
	// ("ssh-ed25519 AAAA... comment") or as SHA256 fingerprints
	// ("SHA256:..."). When set, KnownHostsFile is not consulted.
	Pinned []string
	// AcceptNew adds the key of a host missing from KnownHostsFile to that
	// file (like OpenSSH's StrictHostKeyChecking=accept-new). A changed key
	// is still refused.
	AcceptNew bool
}

// Options tune a Pool. Zero values mean the defaults below.
type Options struct {
	// DialTimeout bounds TCP connect plus SSH handshake, per hop (10s).
	DialTimeout time.Duration
	// KeepaliveInterval is the time between keepalive@openssh.com requests
	// (10s); negative disables keepalives. The connection is declared lost
	// after KeepaliveMaxMissed (3) requests in a row got no answer.
	KeepaliveInterval  time.Duration
	KeepaliveMaxMissed int
	// MaxSessions bounds concurrent sessions per host (8).
	MaxSessions int
	// MaxOutput is the default cap of captured stdout and stderr each, when
	// Command.MaxOutput is 0 (1 MiB).
	MaxOutput int
	// MaxDownload bounds a downloaded file's size (64 MiB).
	MaxDownload int
	// SessionPerCommand runs every command in a session of its own. By
	// default a command without stdin of its own runs in a long-lived
	// shell session of the host, one per concurrent command (see the
	// package documentation).
	SessionPerCommand bool
	// Redactor masks secrets in output and errors. Passwords and
	// passphrases of the hosts are added to it. When nil, the Pool uses its
	// own.
	Redactor *transport.Redactor
}

const (
	defaultDialTimeout       = 10 * time.Second
	defaultKeepaliveInterval = 10 * time.Second
	defaultKeepaliveMissed   = 3
	defaultMaxSessions       = 8
	defaultMaxOutput         = 1 << 20
	defaultMaxDownload       = 64 << 20
)

func (o Options) withDefaults() Options {
	if o.DialTimeout <= 0 {
		o.DialTimeout = defaultDialTimeout
	}
	if o.KeepaliveInterval == 0 {
		o.KeepaliveInterval = defaultKeepaliveInterval
	}
	if o.KeepaliveMaxMissed <= 0 {
		o.KeepaliveMaxMissed = defaultKeepaliveMissed
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = defaultMaxSessions
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = defaultMaxOutput
	}
	if o.MaxDownload <= 0 {
		o.MaxDownload = defaultMaxDownload
	}
	if o.Redactor == nil {
		o.Redactor = &transport.Redactor{}
	}
	return o
}

// addr is host:port for dialing.
func (h *Host) addr() string {
	port := h.Port
	if port == 0 {
		port = 22
	}
	return net.JoinHostPort(h.Address, strconv.Itoa(port))
}

// validate checks a host's configuration; a Jump is checked too.
func (h *Host) validate() error {
	var errs []error
	if h.Name == "" {
		errs = append(errs, errors.New("name is empty"))
	}
	if h.Address == "" {
		errs = append(errs, errors.New("address is empty"))
	}
	if h.Port < 0 || h.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d is out of range", h.Port))
	}
	if h.User == "" {
		errs = append(errs, errors.New("user is empty"))
	}
	a := h.Auth
	if a.PrivateKeyPath == "" && len(a.PrivateKey) == 0 && !a.Agent && a.Password == "" {
		errs = append(errs, errors.New("no credentials: set a private key, the agent or a password"))
	}
	if h.HostKey.KnownHostsFile == "" && len(h.HostKey.Pinned) == 0 {
		errs = append(errs, errors.New("no host key check: set a known_hosts file or pinned keys"))
	}
	if h.HostKey.AcceptNew && h.HostKey.KnownHostsFile == "" {
		errs = append(errs, errors.New("accept-new needs a known_hosts file to add keys to"))
	}
	for _, p := range h.HostKey.Pinned {
		if _, err := parsePin(p); err != nil {
			errs = append(errs, err)
		}
	}
	if h.Jump != nil {
		if err := h.Jump.validate(); err != nil {
			errs = append(errs, fmt.Errorf("jump host: %w", err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("host %q: %w", h.Name, errors.Join(errs...))
	}
	return nil
}

// secrets lists the host's secret values, jump hosts included.
func (h *Host) secrets() []string {
	var s []string
	for cur := h; cur != nil; cur = cur.Jump {
		s = append(s, cur.Auth.Password, cur.Auth.Passphrase, cur.BecomePassword)
		if len(cur.Auth.PrivateKey) > 0 {
			s = append(s, string(cur.Auth.PrivateKey))
		}
	}
	return s
}
