package transport

import (
	"sort"
	"strings"
	"sync"
)

// Redactor replaces registered secret values with a mask. The zero value is
// ready to use and safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
}

// Mask replaces a secret value in redacted text.
const Mask = "[REDACTED]"

// Add registers secret values; values shorter than 4 bytes are ignored to
// avoid masking common text.
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < 4 {
			continue
		}
		r.secrets = append(r.secrets, v)
		// Also mask each line of a multi-line secret (a kubeconfig).
		for _, line := range strings.Split(v, "\n") {
			if line = strings.TrimSpace(line); len(line) >= 16 {
				r.secrets = append(r.secrets, line)
			}
		}
	}
	// Longest first so a secret containing another is masked whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

// Bytes redacts b.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return []byte(r.String(string(b)))
}
