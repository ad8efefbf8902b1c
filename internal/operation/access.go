package operation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
	cpssh "github.com/intentops/terraform-provider-cp/internal/transport/ssh"
)

// Access says how to log in to hosts. Per-host overrides are merged over
// the defaults with Merge.
type Access struct {
	User           string
	Port           int
	PrivateKeyFile string
	// PrivateKey is the key itself, PEM or OpenSSH format (e.g. from a
	// write-only argument); it wins over PrivateKeyFile. It stays in
	// memory: it is handed to the SSH client as bytes, never written to a
	// file, and registered with the redactor.
	PrivateKey     []byte
	KnownHostsFile string
	AcceptNew      bool
	// BecomePassword is the sudo password, when sudo asks for one.
	BecomePassword string
	DialTimeout    time.Duration
	Bastion        *Bastion
}

// Bastion is a jump host. Without a key of its own (PrivateKeyFile or
// PrivateKey) the jump uses the host's.
type Bastion struct {
	Address        string
	Port           int
	User           string
	PrivateKeyFile string
	// PrivateKey is the bastion's key itself; it wins over PrivateKeyFile.
	PrivateKey []byte
}

// HostAccess is one host of an intent with how to reach it.
type HostAccess struct {
	Host   protocol.Host
	Access Access
}

// Merge returns a with the non-zero fields of o applied.
func (a Access) Merge(o Access) Access {
	if o.User != "" {
		a.User = o.User
	}
	if o.Port != 0 {
		a.Port = o.Port
	}
	if o.PrivateKeyFile != "" {
		a.PrivateKeyFile, a.PrivateKey = o.PrivateKeyFile, nil
	}
	if len(o.PrivateKey) > 0 {
		a.PrivateKey = o.PrivateKey
	}
	if o.KnownHostsFile != "" {
		a.KnownHostsFile = o.KnownHostsFile
	}
	if o.BecomePassword != "" {
		a.BecomePassword = o.BecomePassword
	}
	if o.Bastion != nil {
		a.Bastion = o.Bastion
	}
	return a
}

// ExpandHome replaces a leading ~/ with the user's home directory.
func ExpandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

func (a Access) sshHost(name, address string, port int) (cpssh.Host, error) {
	if port == 0 {
		port = a.Port
	}
	auth := cpssh.Auth{PrivateKeyPath: ExpandHome(a.PrivateKeyFile)}
	if len(a.PrivateKey) > 0 {
		auth = cpssh.Auth{PrivateKey: a.PrivateKey}
	}
	h := cpssh.Host{
		Name: name, Address: address, Port: port, User: a.User,
		Auth:           auth,
		HostKey:        cpssh.HostKeyCheck{KnownHostsFile: ExpandHome(a.KnownHostsFile), AcceptNew: a.AcceptNew},
		BecomePassword: a.BecomePassword,
	}
	if len(a.PrivateKey) == 0 && a.PrivateKeyFile == "" {
		h.Auth.Agent = true
	}
	if h.HostKey.KnownHostsFile == "" {
		return h, fmt.Errorf("host %s: no known_hosts file to verify its key against; set ssh.known_hosts_file", name)
	}
	if b := a.Bastion; b != nil {
		jump := a
		jump.Bastion = nil
		if b.User != "" {
			jump.User = b.User
		}
		switch {
		case len(b.PrivateKey) > 0:
			jump.PrivateKeyFile, jump.PrivateKey = "", b.PrivateKey
		case b.PrivateKeyFile != "":
			jump.PrivateKeyFile, jump.PrivateKey = b.PrivateKeyFile, nil
		}
		jh, err := jump.sshHost(name+"-bastion", b.Address, b.Port)
		if err != nil {
			return h, err
		}
		h.Jump = &jh
	}
	return h, nil
}

// Pool opens an SSH pool for the hosts.
func Pool(hosts []HostAccess, redactor *transport.Redactor) (*cpssh.Pool, error) {
	var list []cpssh.Host
	timeout := time.Duration(0)
	for _, ha := range hosts {
		h, err := ha.Access.sshHost(ha.Host.Name, ha.Host.Address, ha.Host.Port)
		if err != nil {
			return nil, err
		}
		if ha.Access.DialTimeout > 0 {
			timeout = ha.Access.DialTimeout
		}
		list = append(list, h)
	}
	pool, err := cpssh.NewPool(cpssh.Options{DialTimeout: timeout, Redactor: redactor}, list...)
	if err != nil {
		return nil, fmt.Errorf("ssh pool: %w", err)
	}
	return pool, nil
}
