package hostsim

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeHostFile writes a file on the host, creating parents 0755.
func (s *sim) writeHostFile(p, content string, mode os.FileMode) error {
	full := s.path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return os.Chmod(full, mode)
}

// readHostFile reads a file on the host.
func (s *sim) readHostFile(p string) ([]byte, error) {
	if !filepath.IsAbs(p) {
		// Relative paths are relative to the working directory, which
		// inside a host is already below the root.
		if s.root != "/" {
			return os.ReadFile(filepath.Join(s.root, p))
		}
		return os.ReadFile(p)
	}
	return os.ReadFile(s.path(p))
}
