package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// client is one SSH connection, possibly through a jump host.
type client struct {
	c    *gossh.Client
	jump *client // closed with c

	done    chan struct{} // closed once the connection is gone
	once    sync.Once
	mu      sync.Mutex
	lostErr error
}

// alive reports whether the connection is still up as far as we know.
func (c *client) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// lost returns why the connection ended, or nil while it is up.
func (c *client) lost() error {
	if c.alive() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostErr
}

// markLost records why the connection ended (the first reason wins) and
// closes it, which ends every session on it.
func (c *client) markLost(reason error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.lostErr = reason
		c.mu.Unlock()
		close(c.done)
		_ = c.c.Close()
		if c.jump != nil {
			c.jump.markLost(fmt.Errorf("%w: the connection it carried ended", transport.ErrConnectionLost))
		}
	})
}

func (c *client) close() {
	c.markLost(fmt.Errorf("%w: connection closed by the client", transport.ErrConnectionLost))
}

// watch declares the connection lost when the transport ends.
func (c *client) watch() {
	err := c.c.Wait()
	reason := "the server closed the connection"
	if err != nil && !errors.Is(err, net.ErrClosed) {
		reason = "the connection ended: " + err.Error()
	}
	c.markLost(fmt.Errorf("%w: %s", transport.ErrConnectionLost, reason))
}

// keepalive sends keepalive@openssh.com every interval and declares the
// connection lost after maxMissed requests in a row got no answer.
func (c *client) keepalive(interval time.Duration, maxMissed int) {
	t := time.NewTicker(interval)
	defer t.Stop()
	replies := make(chan error, 1)
	outstanding := false
	missed := 0
	for {
		select {
		case <-c.done:
			return
		case err := <-replies:
			outstanding = false
			missed = 0
			if err != nil {
				c.markLost(fmt.Errorf("%w: keepalive failed: %w", transport.ErrConnectionLost, err))
				return
			}
		case <-t.C:
			if outstanding {
				missed++
				if missed >= maxMissed {
					c.markLost(fmt.Errorf("%w: no answer to keepalives for %s (%d intervals of %s)",
						transport.ErrConnectionLost, time.Duration(missed)*interval, missed, interval))
					return
				}
				continue
			}
			outstanding = true
			go func() {
				// OpenSSH answers with a failure reply, which is an answer.
				_, _, err := c.c.SendRequest("keepalive@openssh.com", true, nil)
				select {
				case replies <- err:
				case <-c.done:
				}
			}()
		}
	}
}

// connect dials h (through its jump hosts) and starts the connection's
// watcher and keepalives.
func (p *Pool) connect(ctx context.Context, h *Host) (*client, error) {
	dctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	addr := h.addr()

	var jump *client
	var nc net.Conn
	if h.Jump != nil {
		var err error
		jump, err = p.connect(ctx, h.Jump)
		if err != nil {
			return nil, fmt.Errorf("via jump host %s (%s): %w", h.Jump.Name, h.Jump.addr(), err)
		}
		nc, err = jump.c.DialContext(dctx, "tcp", addr)
		if err != nil {
			jump.close()
			return nil, classifyConnect(ctx, dctx, fmt.Sprintf("connecting to %s through jump host %s", addr, h.Jump.Name), p.opts.DialTimeout, err)
		}
	} else {
		var d net.Dialer
		var err error
		nc, err = d.DialContext(dctx, "tcp", addr)
		if err != nil {
			return nil, classifyConnect(ctx, dctx, "connecting to "+addr, p.opts.DialTimeout, err)
		}
	}
	fail := func(err error) (*client, error) {
		_ = nc.Close()
		if jump != nil {
			jump.close()
		}
		return nil, err
	}

	methods, agentConn, err := authMethods(h.Auth)
	if err != nil {
		return fail(err)
	}
	defer agentConn.Close()
	cb, algos, refused, err := p.hk.callback(h, addr)
	if err != nil {
		return fail(err)
	}
	cfg := &gossh.ClientConfig{
		User:              h.User,
		Auth:              methods,
		HostKeyCallback:   cb,
		HostKeyAlgorithms: algos,
	}

	type hs struct {
		conn  gossh.Conn
		chans <-chan gossh.NewChannel
		reqs  <-chan *gossh.Request
		err   error
	}
	ch := make(chan hs, 1)
	go func() {
		c, chans, reqs, err := gossh.NewClientConn(nc, addr, cfg)
		ch <- hs{c, chans, reqs, err}
	}()
	var r hs
	select {
	case r = <-ch:
	case <-dctx.Done():
		_ = nc.Close() // ends the handshake
		<-ch
		if jump != nil {
			jump.close()
		}
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("SSH handshake with %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("%w: no SSH handshake with %s within %s (server hung?): %w",
			transport.ErrTimeout, addr, p.opts.DialTimeout, context.DeadlineExceeded)
	}
	if r.err != nil {
		if jump != nil {
			jump.close()
		}
		if *refused != nil {
			return nil, *refused
		}
		return nil, classifyHandshake(addr, h.User, r.err)
	}
	cl := &client{
		c:    gossh.NewClient(r.conn, r.chans, r.reqs),
		jump: jump,
		done: make(chan struct{}),
	}
	go cl.watch()
	if p.opts.KeepaliveInterval > 0 {
		go cl.keepalive(p.opts.KeepaliveInterval, p.opts.KeepaliveMaxMissed)
	}
	return cl, nil
}

// classifyConnect classifies a failed TCP connect (direct or through a
// jump host).
func classifyConnect(ctx, dctx context.Context, what string, timeout time.Duration, err error) error {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	var ne net.Error
	if dctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: %w: %s: no answer within %s: %w", transport.ErrUnreachable, transport.ErrTimeout, what, timeout, err)
	}
	hint := ""
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), strings.Contains(err.Error(), "Connection refused"):
		hint = " (is sshd running and listening on that port?)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		hint = " (no route to the host)"
	}
	return fmt.Errorf("%w: %s: %w%s", transport.ErrUnreachable, what, err, hint)
}

// classifyHandshake classifies a failed SSH handshake.
func classifyHandshake(addr, user string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unable to authenticate"), strings.Contains(msg, "no supported methods remain"):
		return fmt.Errorf("%w: server %s refused user %q with the configured credentials; check the key, agent or password "+
			"and that the public key is in the user's authorized_keys: %w", transport.ErrAuth, addr, user, err)
	default:
		return fmt.Errorf("%w: SSH handshake with %s failed: %w", transport.ErrUnreachable, addr, err)
	}
}
