package testhosts

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockRoot holds one lock file per loopback address and port; a harness
// holds an exclusive flock on the files of the addresses it uses, so
// concurrent harnesses (other test binaries) never share an address.
const lockRoot = "/var/tmp/cp-testhosts/locks"

// addrLease is a held address lock.
type addrLease struct {
	addr netip.Addr
	f    *os.File
}

func (l *addrLease) release() {
	if l.f != nil {
		_ = l.f.Close() // closing drops the flock
		l.f = nil
	}
}

// tryLease locks addr:port; it returns nil (and no error) when the address
// is held by another harness or something already listens there.
func tryLease(addr netip.Addr, port int) (*addrLease, error) {
	if err := os.MkdirAll(lockRoot, 0o755); err != nil {
		return nil, fmt.Errorf("create address lock directory %s: %w", lockRoot, err)
	}
	p := filepath.Join(lockRoot, addr.String()+"_"+strconv.Itoa(port)+".lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open address lock %s: %w", p, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr.String(), strconv.Itoa(port)))
	if err != nil {
		_ = f.Close()
		return nil, nil
	}
	_ = ln.Close()
	return &addrLease{addr: addr, f: f}, nil
}

// leaseAddrs takes n addresses: BaseAddr and the following ones when base
// is set (failing when one is taken), else the lowest free ones from
// 127.0.0.2 upward.
func leaseAddrs(base string, n, port int) ([]*addrLease, error) {
	var out []*addrLease
	fail := func(err error) ([]*addrLease, error) {
		for _, l := range out {
			l.release()
		}
		return nil, err
	}
	if base != "" {
		a := netip.MustParseAddr(base)
		for i := 0; i < n; i++ {
			if !a.IsLoopback() {
				return fail(fmt.Errorf("lease addresses from %s: ran out of loopback addresses after %d hosts", base, i))
			}
			l, err := tryLease(a, port)
			if err != nil {
				return fail(err)
			}
			if l == nil {
				return fail(fmt.Errorf("lease address %s:%d: it is in use by another test harness or a listening process; stop it (cp-testhosts down) or leave Options.BaseAddr empty to pick free addresses", a, port))
			}
			out = append(out, l)
			a = a.Next()
		}
		return out, nil
	}
	a := netip.MustParseAddr("127.0.0.2")
	for len(out) < n {
		if !a.IsLoopback() {
			return fail(fmt.Errorf("lease %d loopback addresses on port %d: only %d are free", n, port, len(out)))
		}
		if b := a.As4(); b[3] != 0 && b[3] != 255 {
			l, err := tryLease(a, port)
			if err != nil {
				return fail(err)
			}
			if l != nil {
				out = append(out, l)
			}
		}
		a = a.Next()
	}
	return out, nil
}
