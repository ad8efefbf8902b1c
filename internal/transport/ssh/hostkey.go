package ssh

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// HostKeyError is a refused host key. It unwraps to transport.ErrHostKey.
type HostKeyError struct {
	// Addr is the address dialed (host:port).
	Addr string
	// Offered is the key the server offered: type and SHA256 fingerprint.
	Offered string
	// Known lists the keys on record for the address, with where they are
	// recorded; empty for an unknown host.
	Known []string
	// Reason says what went wrong and what to do.
	Reason string
}

func (e *HostKeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server at %s offered %s", e.Addr, e.Offered)
	if len(e.Known) > 0 {
		fmt.Fprintf(&b, ", but the keys on record are: %s", strings.Join(e.Known, "; "))
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

func (e *HostKeyError) Unwrap() error { return transport.ErrHostKey }

// pin is one pinned key: a fingerprint, and the key when given in full.
type pin struct {
	fingerprint string
	key         gossh.PublicKey
}

func parsePin(s string) (pin, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "SHA256:") {
		fp := strings.TrimRight(s, "=")
		if len(fp) <= len("SHA256:") {
			return pin{}, fmt.Errorf("pinned fingerprint %q is empty", s)
		}
		return pin{fingerprint: fp}, nil
	}
	key, _, _, _, err := gossh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return pin{}, fmt.Errorf("pinned key %q is neither authorized_keys format nor a SHA256:... fingerprint: %w", s, err)
	}
	return pin{fingerprint: gossh.FingerprintSHA256(key), key: key}, nil
}

func describeKey(k gossh.PublicKey) string {
	return k.Type() + " key " + gossh.FingerprintSHA256(k)
}

// algorithmsFor returns the host key algorithms that can produce keys of
// the given types, so the server is asked for the key type on record
// rather than one it also has but that is not on record.
func algorithmsFor(keys []gossh.PublicKey) []string {
	seen := map[string]bool{}
	var algos []string
	add := func(a ...string) {
		for _, x := range a {
			if !seen[x] {
				seen[x] = true
				algos = append(algos, x)
			}
		}
	}
	for _, k := range keys {
		switch t := k.Type(); t {
		case gossh.KeyAlgoRSA:
			add(gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, gossh.KeyAlgoRSA)
		default:
			add(t)
		}
	}
	return algos
}

// hostKeys builds host key callbacks; it serializes writes to known_hosts
// files in accept-new mode.
type hostKeys struct {
	mu sync.Mutex
}

// probeKey is a key no host has; checking it against known_hosts lists the
// keys on record for an address.
func probeKey() gossh.PublicKey {
	seed := make([]byte, ed25519.SeedSize)
	priv := ed25519.NewKeyFromSeed(seed)
	k, err := gossh.NewPublicKey(priv.Public())
	if err != nil {
		panic(err) // an ed25519 public key always converts
	}
	return k
}

// callback returns the host key callback for h dialed at addr, the host
// key algorithms to ask for (nil: the defaults), and the place where the
// callback records a refusal so it can be reported unwrapped.
func (hk *hostKeys) callback(h *Host, addr string) (gossh.HostKeyCallback, []string, *error, error) {
	refused := new(error)
	if len(h.HostKey.Pinned) > 0 {
		var pins []pin
		var keys []gossh.PublicKey
		allKeys := true
		for _, s := range h.HostKey.Pinned {
			p, err := parsePin(s)
			if err != nil {
				return nil, nil, nil, err
			}
			pins = append(pins, p)
			if p.key != nil {
				keys = append(keys, p.key)
			} else {
				allKeys = false
			}
		}
		var algos []string
		if allKeys {
			algos = algorithmsFor(keys)
		}
		cb := func(_ string, _ net.Addr, key gossh.PublicKey) error {
			fp := gossh.FingerprintSHA256(key)
			for _, p := range pins {
				if p.fingerprint == fp {
					return nil
				}
			}
			var known []string
			for _, p := range pins {
				if p.key != nil {
					known = append(known, "pinned "+describeKey(p.key))
				} else {
					known = append(known, "pinned fingerprint "+p.fingerprint)
				}
			}
			*refused = &HostKeyError{
				Addr: addr, Offered: describeKey(key), Known: known,
				Reason: "the key does not match any pinned key. If the host was reinstalled, check the offered " +
					"fingerprint out of band (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the host) and update the pinned key; " +
					"otherwise this may be a man-in-the-middle attack",
			}
			return *refused
		}
		return cb, algos, refused, nil
	}

	file := h.HostKey.KnownHostsFile
	db, err := knownhosts.New(file)
	if err != nil {
		if !(errors.Is(err, os.ErrNotExist) && h.HostKey.AcceptNew) {
			return nil, nil, nil, fmt.Errorf("%w: reading known_hosts file %s: %w", transport.ErrHostKey, file, err)
		}
		db = nil // accept-new with no file yet: every host is new
	}
	var algos []string
	if db != nil {
		var ke *knownhosts.KeyError
		probeAddr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
		if err := db(addr, probeAddr, probeKey()); errors.As(err, &ke) && len(ke.Want) > 0 {
			var keys []gossh.PublicKey
			for _, w := range ke.Want {
				keys = append(keys, w.Key)
			}
			algos = algorithmsFor(keys)
		}
	}
	cb := func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		if _, ok := remote.(*net.TCPAddr); !ok {
			remote = &net.TCPAddr{}
		}
		var err error
		if db != nil {
			err = db(addr, remote, key)
		} else {
			err = &knownhosts.KeyError{}
		}
		if err == nil {
			return nil
		}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &ke) && len(ke.Want) == 0:
			if h.HostKey.AcceptNew {
				return hk.appendKnownHost(file, addr, key)
			}
			*refused = &HostKeyError{
				Addr: addr, Offered: describeKey(key),
				Reason: fmt.Sprintf("the host is not in known_hosts file %s. Check the fingerprint out of band, then add it "+
					"(ssh-keyscan -p PORT HOST >> %s), pin the key, or enable accept-new explicitly", file, file),
			}
		case errors.As(err, &ke):
			var known []string
			for _, w := range ke.Want {
				known = append(known, fmt.Sprintf("%s (%s:%d)", describeKey(w.Key), w.Filename, w.Line))
			}
			*refused = &HostKeyError{
				Addr: addr, Offered: describeKey(key), Known: known,
				Reason: fmt.Sprintf("the host key has CHANGED; this may be a man-in-the-middle attack. If the host "+
					"was reinstalled, check the offered fingerprint out of band, then remove the old entry with "+
					"ssh-keygen -R '%s' -f %s and connect again", knownhosts.Normalize(addr), file),
			}
		case errors.As(err, &re):
			*refused = &HostKeyError{
				Addr: addr, Offered: describeKey(key),
				Reason: fmt.Sprintf("the key is marked @revoked in %s:%d", re.Revoked.Filename, re.Revoked.Line),
			}
		default:
			*refused = &HostKeyError{Addr: addr, Offered: describeKey(key), Reason: err.Error()}
		}
		return *refused
	}
	return cb, algos, refused, nil
}

// appendKnownHost records a new host key (accept-new mode).
func (hk *hostKeys) appendKnownHost(file, addr string, key gossh.PublicKey) error {
	hk.mu.Lock()
	defer hk.mu.Unlock()
	// Another connection may have added it meanwhile: check again.
	if db, err := knownhosts.New(file); err == nil {
		err := db(addr, &net.TCPAddr{}, key)
		var ke *knownhosts.KeyError
		if err == nil {
			return nil
		}
		if errors.As(err, &ke) && len(ke.Want) > 0 {
			return &HostKeyError{Addr: addr, Offered: describeKey(key),
				Reason: "another key was recorded for the host while connecting; refusing"}
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("%w: accept-new: %w", transport.ErrHostKey, err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("%w: accept-new: %w", transport.ErrHostKey, err)
	}
	_, werr := fmt.Fprintln(f, knownhosts.Line([]string{addr}, key))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("%w: accept-new: writing %s: %w", transport.ErrHostKey, file, err)
	}
	return nil
}
