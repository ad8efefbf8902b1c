// Package memory is an in-memory transport for engine tests and
// benchmarks: commands run through a Go callback and uploaded files are
// kept in memory, per host.
package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Handler runs one command on a host. A non-zero exit code goes in
// Result.ExitCode; an error should wrap a transport sentinel.
type Handler func(ctx context.Context, host string, cmd transport.Command) (transport.Result, error)

// Call is one command a Conn ran, as the handler saw it.
type Call struct {
	Host string
	Cmd  transport.Command
}

// Dialer implements transport.Dialer in memory. It is safe for concurrent
// use.
type Dialer struct {
	handler  Handler
	redactor *transport.Redactor

	mu       sync.Mutex
	files    map[string]map[string]transport.File
	dialErrs map[string]error
	calls    []Call
}

var _ transport.Dialer = (*Dialer)(nil)

// New returns a Dialer running commands through h. A nil h answers every
// command with exit code 0 and no output. r, when not nil, masks secrets
// in output and errors as the SSH transport does.
func New(h Handler, r *transport.Redactor) *Dialer {
	if h == nil {
		h = func(context.Context, string, transport.Command) (transport.Result, error) {
			return transport.Result{}, nil
		}
	}
	return &Dialer{handler: h, redactor: r, files: map[string]map[string]transport.File{}, dialErrs: map[string]error{}}
}

// FailDial makes Dial to host fail with err (wrapped in a HostError);
// a nil err makes the host reachable again.
func (d *Dialer) FailDial(host string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil {
		delete(d.dialErrs, host)
		return
	}
	d.dialErrs[host] = err
}

// Dial returns a Conn to host.
func (d *Dialer) Dial(ctx context.Context, host string) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, &transport.HostError{Host: host, Op: "dial", Err: ctxErr(err)}
	}
	d.mu.Lock()
	err := d.dialErrs[host]
	d.mu.Unlock()
	if err != nil {
		return nil, &transport.HostError{Host: host, Op: "dial", Err: err}
	}
	return &Conn{d: d, host: host}, nil
}

// SetFile puts a file on a host, as if uploaded.
func (d *Dialer) SetFile(host string, f transport.File) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.files[host] == nil {
		d.files[host] = map[string]transport.File{}
	}
	f.Content = append([]byte(nil), f.Content...)
	d.files[host][f.Path] = f
}

// File returns a file of a host.
func (d *Dialer) File(host, path string) (transport.File, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.files[host][path]
	if ok {
		f.Content = append([]byte(nil), f.Content...)
	}
	return f, ok
}

// RemoveFile deletes a file of a host.
func (d *Dialer) RemoveFile(host, path string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.files[host], path)
}

// Files returns the paths of a host's files, sorted.
func (d *Dialer) Files(host string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var paths []string
	for p := range d.files[host] {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Calls returns the commands run so far, in order.
func (d *Dialer) Calls() []Call {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Call(nil), d.calls...)
}

// Conn is a connection to one host of a Dialer.
type Conn struct {
	d    *Dialer
	host string
}

var _ transport.Conn = (*Conn)(nil)

// Host returns the host's name.
func (c *Conn) Host() string { return c.host }

// Close does nothing; the host's files stay in the Dialer.
func (c *Conn) Close() error { return nil }

// Run runs cmd through the handler, then applies what the SSH transport
// does to output: the MaxOutput cap (keeping the head), redaction, and the
// copies to cmd.Stdout and cmd.Stderr.
func (c *Conn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	if err := ctx.Err(); err != nil {
		return transport.Result{}, c.err("run", ctxErr(err))
	}
	c.d.mu.Lock()
	c.d.calls = append(c.d.calls, Call{Host: c.host, Cmd: cmd})
	c.d.mu.Unlock()
	start := time.Now()
	res, err := c.d.handler(ctx, c.host, cmd)
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	max := cmd.MaxOutput
	if max <= 0 {
		max = 1 << 20
	}
	for _, b := range []*[]byte{&res.Stdout, &res.Stderr} {
		if len(*b) > max {
			*b = (*b)[:max]
			res.Truncated = true
		}
	}
	raw := res.Stdout
	res.Stdout = c.d.redactor.Bytes(res.Stdout)
	res.Stderr = c.d.redactor.Bytes(res.Stderr)
	if cmd.Stdout != nil && len(res.Stdout) > 0 {
		_, _ = cmd.Stdout.Write(res.Stdout)
	}
	if cmd.RawStdout {
		res.Stdout = raw
	}
	if cmd.Stderr != nil && len(res.Stderr) > 0 {
		_, _ = cmd.Stderr.Write(res.Stderr)
	}
	if err != nil {
		return res, c.err("run", err)
	}
	return res, nil
}

// Upload stores f on the host.
func (c *Conn) Upload(ctx context.Context, f transport.File) error {
	if err := ctx.Err(); err != nil {
		return c.err("upload", ctxErr(err))
	}
	if f.Path == "" {
		return c.err("upload", fmt.Errorf("%w: empty path", transport.ErrCommandFailed))
	}
	if f.Mode == 0 {
		f.Mode = 0o644
	}
	c.d.SetFile(c.host, f)
	return nil
}

// Download returns a file stored on the host.
func (c *Conn) Download(ctx context.Context, path string, _ bool) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, c.err("download", ctxErr(err))
	}
	f, ok := c.d.File(c.host, path)
	if !ok {
		return nil, c.err("download", fmt.Errorf("%w: %s: No such file or directory", transport.ErrCommandFailed, path))
	}
	return f.Content, nil
}

func (c *Conn) err(op string, err error) error {
	if msg := err.Error(); c.d.redactor.String(msg) != msg {
		err = &redacted{msg: c.d.redactor.String(msg), err: err}
	}
	return &transport.HostError{Host: c.host, Op: op, Err: err}
}

type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

func ctxErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", transport.ErrTimeout, err)
	}
	return err
}
