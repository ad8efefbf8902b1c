package ssh

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Pool dials hosts by name and keeps one connection per host, shared by
// every Conn it returned for that host. It implements transport.Dialer.
type Pool struct {
	opts Options
	hk   hostKeys

	mu     sync.Mutex
	hosts  map[string]*hostEntry
	closed bool
}

var _ transport.Dialer = (*Pool)(nil)

// hostEntry is one host's configuration, connection and session slots.
type hostEntry struct {
	host     Host
	sessions chan struct{}  // semaphore of MaxSessions: sessions and shells
	idle     [2]chan *shell // idle shells, without and with sudo
	dialing  chan struct{}  // one dial at a time
	mu       sync.Mutex
	cl       *client
}

// NewPool returns a pool for the given hosts; more can be added with Add.
func NewPool(opts Options, hosts ...Host) (*Pool, error) {
	p := &Pool{opts: opts.withDefaults(), hosts: map[string]*hostEntry{}}
	for _, h := range hosts {
		if err := p.Add(h); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Add adds a host, or replaces the configuration of one with the same name
// (closing its connection).
func (p *Pool) Add(h Host) error {
	if err := h.validate(); err != nil {
		return err
	}
	p.opts.Redactor.Add(h.secrets()...)
	e := &hostEntry{
		host:     h,
		sessions: make(chan struct{}, p.opts.MaxSessions),
		dialing:  make(chan struct{}, 1),
		idle:     [2]chan *shell{make(chan *shell, p.opts.MaxSessions), make(chan *shell, p.opts.MaxSessions)},
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("ssh pool is closed")
	}
	if old := p.hosts[h.Name]; old != nil {
		old.closeClient()
	}
	p.hosts[h.Name] = e
	return nil
}

// Hosts returns the names of the configured hosts, sorted.
func (p *Pool) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, 0, len(p.hosts))
	for n := range p.hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Dial returns a Conn to the named host, connecting when the pool has no
// live connection to it.
func (p *Pool) Dial(ctx context.Context, name string) (transport.Conn, error) {
	p.mu.Lock()
	e := p.hosts[name]
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, p.hostErr(name, "dial", errors.New("ssh pool is closed"))
	}
	if e == nil {
		return nil, p.hostErr(name, "dial", fmt.Errorf("host %q is not configured in the ssh pool", name))
	}
	if _, err := p.client(ctx, e); err != nil {
		return nil, p.hostErr(name, "dial", err)
	}
	return &conn{p: p, e: e}, nil
}

// Close closes every connection. Conns of the pool fail afterwards.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, e := range p.hosts {
		e.closeClient()
	}
	return nil
}

func (e *hostEntry) closeClient() {
	e.closeIdle()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl != nil {
		e.cl.close()
		e.cl = nil
	}
}

func (e *hostEntry) current() *client {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl != nil && e.cl.alive() {
		return e.cl
	}
	return nil
}

// client returns the live connection of e, dialing a new one when there is
// none or the last one was lost.
func (p *Pool) client(ctx context.Context, e *hostEntry) (*client, error) {
	if cl := e.current(); cl != nil {
		return cl, nil
	}
	select {
	case e.dialing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxErr(ctx, "waiting for another dial to the host")
	}
	defer func() { <-e.dialing }()
	if cl := e.current(); cl != nil {
		return cl, nil
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errors.New("ssh pool is closed")
	}
	cl, err := p.connect(ctx, &e.host)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.cl = cl
	e.mu.Unlock()
	return cl, nil
}

// ctxErr wraps the context's error: a deadline is ErrTimeout, a
// cancellation stays context.Canceled.
func ctxErr(ctx context.Context, what string) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s: %w", transport.ErrTimeout, what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// hostErr wraps err in a *transport.HostError with secrets redacted from
// its message.
func (p *Pool) hostErr(host, op string, err error) error {
	return &transport.HostError{Host: host, Op: op, Err: redactErr(p.opts.Redactor, err)}
}

// redactedError carries a redacted message. It unwraps to the
// classification of the original error (sentinels, context errors, a
// *HostKeyError) but not to the original chain, whose messages hold the
// secret.
type redactedError struct {
	msg   string
	kinds []error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return e.kinds }

// classes are the errors a redacted error still matches with errors.Is.
func classes() []error {
	return []error{
		transport.ErrAuth, transport.ErrHostKey, transport.ErrUnreachable, transport.ErrTimeout,
		transport.ErrCommandFailed, transport.ErrConnectionLost, context.Canceled, context.DeadlineExceeded,
	}
}

func redactErr(r *transport.Redactor, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	e := &redactedError{msg: red}
	for _, c := range classes() {
		if errors.Is(err, c) {
			e.kinds = append(e.kinds, c)
		}
	}
	var hk *HostKeyError
	if errors.As(err, &hk) {
		e.kinds = append(e.kinds, hk)
	}
	return e
}

// conn is a handle on a pooled connection to one host.
type conn struct {
	p      *Pool
	e      *hostEntry
	closed atomic.Bool
}

var _ transport.Conn = (*conn)(nil)

func (c *conn) Host() string { return c.e.host.Name }

// Close releases the handle; the connection stays in the pool for other
// handles until Pool.Close.
func (c *conn) Close() error {
	c.closed.Store(true)
	return nil
}
