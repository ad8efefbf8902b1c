package engine

import (
	"bytes"
	"strings"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// tail keeps the last n lines written to it (stdout and stderr together).
type tail struct {
	mu      sync.Mutex
	n       int
	lines   []string
	partial []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.push(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 64*1024 {
		t.push(string(t.partial))
		t.partial = nil
	}
	return len(p), nil
}

func (t *tail) push(line string) {
	t.lines = append(t.lines, strings.TrimRight(line, "\r"))
	if len(t.lines) > t.n {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-t.n:]...)
	}
}

// Lines returns the kept lines, redacted.
func (t *tail) Lines(r *transport.Redactor) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := append([]string(nil), t.lines...)
	if len(t.partial) > 0 {
		lines = append(lines, string(t.partial))
		if len(lines) > t.n {
			lines = lines[len(lines)-t.n:]
		}
	}
	for i := range lines {
		lines[i] = r.String(lines[i])
	}
	return lines
}
