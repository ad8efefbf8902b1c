// Package parentwatch tells a process that its parent is gone. The
// provider uses it to stop its jobs when Terraform or OpenTofu, which
// started it, was killed: a process whose parent exits is re-parented (to
// init or a subreaper), so its parent process id changes.
package parentwatch

import (
	"context"
	"os"
	"time"
)

// Watcher polls the parent process id.
type Watcher struct {
	// Getppid returns the parent's process id (default os.Getppid).
	Getppid func() int
	// Interval is the time between polls (default 200ms).
	Interval time.Duration
}

// Watch calls gone once, and returns, when the parent process id is no
// longer the one it was when Watch was called. It returns without calling
// gone when ctx ends, or at once when the parent is already init (pid 1):
// then there is no parent whose end could be seen.
func (w Watcher) Watch(ctx context.Context, gone func()) {
	getppid := w.Getppid
	if getppid == nil {
		getppid = os.Getppid
	}
	interval := w.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	parent := getppid()
	if parent <= 1 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if getppid() != parent {
			gone()
			return
		}
	}
}
