package operation

import (
	"errors"
	"sync"
	"time"
)

// ErrStopping refuses an operation that would start after the process's
// lifetime was aborted.
var ErrStopping = errors.New("the provider is stopping because Terraform or OpenTofu went away; nothing was started")

// Lifetime ties the operations of a process to the reason it runs (the
// Terraform or OpenTofu process that started it). Abort stops every
// running operation at once (the engine's Config.Abort: running jobs are
// sent TERM on their hosts and the host locks released) and refuses new
// ones; Wait returns once they have all ended.
type Lifetime struct {
	mu      sync.Mutex
	abort   chan struct{}
	aborted bool
	running sync.WaitGroup
}

// NewLifetime returns a lifetime that has not been aborted.
func NewLifetime() *Lifetime { return &Lifetime{abort: make(chan struct{})} }

var process = NewLifetime()

// Process is the lifetime of this process, used by a Runner without one of
// its own; main aborts it when the provider's parent process is gone.
func Process() *Lifetime { return process }

// Abort stops the running operations and refuses new ones. It may be
// called more than once.
func (l *Lifetime) Abort() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.aborted {
		l.aborted = true
		close(l.abort)
	}
}

// Aborted is closed by Abort.
func (l *Lifetime) Aborted() <-chan struct{} { return l.abort }

// begin registers an operation; done must be called when it has ended.
func (l *Lifetime) begin() (done func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aborted {
		return nil, ErrStopping
	}
	l.running.Add(1)
	var once sync.Once
	return func() { once.Do(l.running.Done) }, nil
}

// Wait waits until every registered operation has ended, at most d; it
// reports whether they did.
func (l *Lifetime) Wait(d time.Duration) bool {
	ch := make(chan struct{})
	go func() {
		l.running.Wait()
		close(ch)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
