package testhosts

import (
	"fmt"
	"net/netip"
	"regexp"
	"time"
)

// Sudo says how a user may run commands as root on a host.
type Sudo int

const (
	// SudoNone gives the user no sudo rights.
	SudoNone Sudo = iota
	// SudoNoPassword lets the user run any command as root without a password.
	SudoNoPassword
	// SudoPassword lets the user run any command as root after typing the
	// user's own password.
	SudoPassword
)

// User is a login account created on every host.
type User struct {
	Name string
	// Password sets the account's password. Empty leaves the account
	// without a usable password (but not locked, so key logins work).
	Password string
	// KeyAuth authorizes the harness key (Cluster.KeyPath) for this user.
	KeyAuth bool
	Sudo    Sudo
}

// Options configure Start.
type Options struct {
	// Names of the hosts, one per host; required, unique, [a-z0-9-].
	Names []string
	// Dir holds the harness files (keys, known_hosts, per-host upper
	// directories). Empty: a new directory under /var/tmp/cp-testhosts.
	// A directory left by a crashed run is cleaned before use.
	Dir string
	// BaseAddr is the first loopback address; host i gets BaseAddr+i.
	// Empty: the lowest free addresses from 127.0.0.2 upward are taken
	// (free means not locked by another harness and not listening).
	BaseAddr string
	// Port sshd listens on; 0 means 22.
	Port int
	// Users created on every host. Empty: one user "cp" with KeyAuth and
	// SudoNoPassword. The first user is Host.User.
	Users []User
	// Simulator installs the host simulator (cp-hostsim) into every host.
	Simulator bool
	// SimulatorBinary is a prebuilt cp-hostsim; empty: built from the
	// module with `go build` into Dir.
	SimulatorBinary string
	// SimulatorCluster names the simulated cluster the hosts share;
	// empty means "cluster".
	SimulatorCluster string
	// StartTimeout bounds the start of one host; 0 means 30s.
	StartTimeout time.Duration
}

var hostNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func (o Options) withDefaults() (Options, error) {
	if len(o.Names) == 0 {
		return o, fmt.Errorf("testhosts options: no host names given; set Options.Names, e.g. []string{\"master-1\", \"worker-1\"}")
	}
	seen := map[string]bool{}
	for _, n := range o.Names {
		if !hostNameRE.MatchString(n) {
			return o, fmt.Errorf("testhosts options: host name %q is not a valid hostname; use lowercase letters, digits and '-'", n)
		}
		if seen[n] {
			return o, fmt.Errorf("testhosts options: host name %q is given twice; names must be unique", n)
		}
		seen[n] = true
	}
	if o.Port == 0 {
		o.Port = 22
	}
	if o.Port < 1 || o.Port > 65535 {
		return o, fmt.Errorf("testhosts options: port %d is out of range 1-65535", o.Port)
	}
	if o.BaseAddr != "" {
		a, err := netip.ParseAddr(o.BaseAddr)
		if err != nil || !a.Is4() || !a.IsLoopback() {
			return o, fmt.Errorf("testhosts options: base address %q is not an IPv4 loopback address (127.x.y.z)", o.BaseAddr)
		}
	}
	if len(o.Users) == 0 {
		o.Users = []User{{Name: "cp", KeyAuth: true, Sudo: SudoNoPassword}}
	}
	users := map[string]bool{}
	for _, u := range o.Users {
		if !hostNameRE.MatchString(u.Name) || len(u.Name) > 32 {
			return o, fmt.Errorf("testhosts options: user name %q is not valid; use lowercase letters, digits and '-'", u.Name)
		}
		if users[u.Name] {
			return o, fmt.Errorf("testhosts options: user %q is given twice", u.Name)
		}
		users[u.Name] = true
		if u.Sudo == SudoPassword && u.Password == "" {
			return o, fmt.Errorf("testhosts options: user %q has SudoPassword but no Password; set User.Password", u.Name)
		}
	}
	if o.SimulatorCluster == "" {
		o.SimulatorCluster = "cluster"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 30 * time.Second
	}
	return o, nil
}
