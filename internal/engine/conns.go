package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// connCache dials each host once per run; a connection that was lost is
// dropped so the next attempt dials again.
type connCache struct {
	dialer transport.Dialer
	mu     sync.Mutex
	hosts  map[string]*connSlot
	all    []transport.Conn
}

type connSlot struct {
	mu   sync.Mutex
	conn transport.Conn
}

func newConnCache(d transport.Dialer) *connCache {
	return &connCache{dialer: d, hosts: map[string]*connSlot{}}
}

func (c *connCache) get(ctx context.Context, host string, timeout time.Duration) (transport.Conn, error) {
	c.mu.Lock()
	slot := c.hosts[host]
	if slot == nil {
		slot = &connSlot{}
		c.hosts[host] = slot
	}
	c.mu.Unlock()
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.conn != nil {
		return slot.conn, nil
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := c.dialer.Dial(dctx, host)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, transport.ErrTimeout) {
			err = fmt.Errorf("%w: %w", transport.ErrTimeout, err)
		}
		return nil, fmt.Errorf("dial host %s: %w", host, err)
	}
	slot.conn = conn
	c.mu.Lock()
	c.all = append(c.all, conn)
	c.mu.Unlock()
	return conn, nil
}

// drop forgets a connection after it was lost.
func (c *connCache) drop(host string, conn transport.Conn) {
	c.mu.Lock()
	slot := c.hosts[host]
	c.mu.Unlock()
	if slot == nil {
		return
	}
	slot.mu.Lock()
	if slot.conn == conn {
		slot.conn = nil
	}
	slot.mu.Unlock()
}

func (c *connCache) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.all {
		_ = conn.Close()
	}
	c.all = nil
}

// shipCache remembers which scripts are on which host, so each is shipped
// once even when many instances start together.
type shipCache struct {
	mu    sync.Mutex
	slots map[string]*shipSlot
}

type shipSlot struct {
	mu      sync.Mutex
	present bool
}

func newShipCache() *shipCache { return &shipCache{slots: map[string]*shipSlot{}} }

// ensure ships content to path on the host unless it is known to be there.
// It reports whether it uploaded.
func (s *shipCache) ensure(ctx context.Context, conn transport.Conn, host, path string, content []byte, present, become bool) (bool, error) {
	s.mu.Lock()
	key := host + "\x00" + path
	slot := s.slots[key]
	if slot == nil {
		slot = &shipSlot{}
		s.slots[key] = slot
	}
	s.mu.Unlock()
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.present || present {
		slot.present = true
		return false, nil
	}
	if err := conn.Upload(ctx, transport.File{Path: path, Content: content, Mode: 0o755, Become: become}); err != nil {
		return false, fmt.Errorf("ship script %s to host %s: %w", path, host, err)
	}
	slot.present = true
	return true, nil
}
