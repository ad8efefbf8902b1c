package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Journal is a sink that appends each event as one JSON line.
type Journal struct {
	mu  sync.Mutex
	w   io.Writer
	c   io.Closer
	err error
}

// NewJournal writes JSON lines to w.
func NewJournal(w io.Writer) *Journal { return &Journal{w: w} }

// OpenJournal appends JSON lines to the file at path, creating it (0600).
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	return &Journal{w: f, c: f}, nil
}

// Emit writes the event. The first write error is kept (see Err) and
// later events are dropped.
func (j *Journal) Emit(e Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		j.err = fmt.Errorf("journal: encode event %d: %w", e.Seq, err)
		return
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		j.err = fmt.Errorf("journal: write event %d: %w", e.Seq, err)
	}
}

// Err returns the first error the journal met.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Close closes the file of a journal opened with OpenJournal.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.c == nil {
		return j.err
	}
	if err := j.c.Close(); err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	return j.err
}
