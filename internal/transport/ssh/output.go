package ssh

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// capture keeps the first and last bytes of a stream up to max in total
// and passes the stream on, redacted line by line, to an optional writer.
// It is safe for concurrent use: a session's copy goroutine may still
// write after a timed-out Run has returned.
type capture struct {
	mu      sync.Mutex
	max     int
	headCap int
	tailCap int
	head    []byte
	tail    []byte
	total   int64
	stream  *lineWriter
}

func newCapture(max int, r *transport.Redactor, w io.Writer) *capture {
	c := &capture{max: max, headCap: max / 2, tailCap: max - max/2}
	if w != nil {
		c.stream = &lineWriter{w: w, r: r}
	}
	return c
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	rest := p
	if n := c.headCap - len(c.head); n > 0 {
		n = min(n, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		c.tail = append(c.tail, rest...)
		if len(c.tail) > 2*c.tailCap {
			c.tail = append([]byte(nil), c.tail[len(c.tail)-c.tailCap:]...)
		}
	}
	if c.stream != nil {
		c.stream.write(p)
	}
	return len(p), nil
}

// result returns the captured bytes (redacted when r is set) and whether
// some were dropped; it flushes the stream.
func (c *capture) result(r *transport.Redactor) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream != nil {
		c.stream.flush()
	}
	if c.total <= int64(c.max) {
		out := make([]byte, 0, len(c.head)+len(c.tail))
		out = append(append(out, c.head...), c.tail...)
		if r != nil {
			out = r.Bytes(out)
		}
		return out, false
	}
	tail := c.tail
	if len(tail) > c.tailCap {
		tail = tail[len(tail)-c.tailCap:]
	}
	head := c.head
	if r != nil {
		head, tail = r.Bytes(head), r.Bytes(tail)
	}
	var b bytes.Buffer
	b.Write(head)
	fmt.Fprintf(&b, "\n[... %d bytes truncated ...]\n", c.total-int64(c.max))
	b.Write(tail)
	return b.Bytes(), true
}

// lineWriter passes whole lines, redacted, to w. A line longer than
// maxPending is passed on in pieces. Write errors of w are remembered and
// stop the stream; they do not fail the command.
type lineWriter struct {
	w       io.Writer
	r       *transport.Redactor
	pending []byte
	err     error
}

const maxPending = 64 << 10

func (l *lineWriter) write(p []byte) {
	l.pending = append(l.pending, p...)
	if i := bytes.LastIndexByte(l.pending, '\n'); i >= 0 {
		l.emit(l.pending[:i+1])
		l.pending = append(l.pending[:0], l.pending[i+1:]...)
	}
	if len(l.pending) > maxPending {
		l.flush()
	}
}

func (l *lineWriter) flush() {
	if len(l.pending) > 0 {
		l.emit(l.pending)
		l.pending = l.pending[:0]
	}
}

func (l *lineWriter) emit(b []byte) {
	if l.err != nil {
		return
	}
	_, l.err = l.w.Write(l.r.Bytes(b))
}
