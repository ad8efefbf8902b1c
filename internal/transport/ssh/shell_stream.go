package ssh

import (
	"bytes"
	"io"
	"sync"
)

// markStream is one output stream of a shell (stdout or stderr). While a
// command runs it passes the stream to the command's sink up to the
// command's end marker, a random token the shell prints after the
// command; it keeps what follows the token up to the end of its line (the
// exit status, on stdout) and signals done. Between commands the stream
// is discarded: a process the last command left running in the background
// may still write.
type markStream struct {
	mu    sync.Mutex
	token []byte    // nil between commands
	sink  io.Writer // the command's capture
	held  []byte    // bytes that may start the token
	after []byte    // bytes after the token, up to '\n'
	found bool      // the token was seen; reading its line
	done  chan struct{}
}

// begin starts passing the stream to sink until token.
func (m *markStream) begin(token string, sink io.Writer) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.token, m.sink, m.held, m.after, m.found = []byte(token), sink, nil, nil, false
	m.done = make(chan struct{})
	return m.done
}

// tail returns what followed the token on its line.
func (m *markStream) tail() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return string(m.after)
}

func (m *markStream) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.token == nil {
		return len(p), nil
	}
	if m.found {
		m.readTail(p)
		return len(p), nil
	}
	data := append(m.held, p...)
	if i := bytes.Index(data, m.token); i >= 0 {
		m.emit(data[:i])
		m.held = nil
		m.found = true
		m.readTail(data[i+len(m.token):])
		return len(p), nil
	}
	keep := min(len(m.token)-1, len(data))
	// Only a suffix that is a prefix of the token needs holding back.
	for keep > 0 && !bytes.HasPrefix(m.token, data[len(data)-keep:]) {
		keep--
	}
	m.emit(data[:len(data)-keep])
	m.held = append([]byte(nil), data[len(data)-keep:]...)
	return len(p), nil
}

func (m *markStream) emit(b []byte) {
	if len(b) > 0 && m.sink != nil {
		_, _ = m.sink.Write(b)
	}
}

// readTail collects the token's line; at its end the command is over.
func (m *markStream) readTail(p []byte) {
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		m.after = append(m.after, p[:i]...)
		m.token, m.sink = nil, nil
		close(m.done)
		return
	}
	m.after = append(m.after, p...)
}
