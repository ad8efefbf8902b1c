package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// layout computes the engine's paths on a host under StateDir.
type layout struct{ root string }

func (l layout) scriptsDir() string { return path.Join(l.root, "scripts") }

func (l layout) script(sum string) string { return path.Join(l.root, "scripts", sum+".sh") }

func (l layout) markersDir() string { return path.Join(l.root, "markers") }

func (l layout) marker(key string) string {
	return path.Join(l.root, "markers", hashHex(key)+".json")
}

func (l layout) keepDir(key string) string { return path.Join(l.root, "artifacts", hashHex(key)) }

func (l layout) runsDir() string { return path.Join(l.root, "run") }

func (l layout) runDir(op, instance string) string {
	return path.Join(l.root, "run", pathSafe(op), pathSafe(instance))
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func fingerprint(value []byte) string {
	sum := sha256.Sum256(value)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// pathSafe turns an id such as join-workers[worker-3] into a path element
// join-workers@worker-3: letters, digits, '.', '_', '-' and '@' stay, '['
// becomes '@', ']' goes, anything else becomes '_'.
func pathSafe(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '@':
			b.WriteRune(r)
		case r == '[':
			b.WriteByte('@')
		case r == ']':
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		s = "_" + hashHex(id)[:12]
	}
	return s
}

// artifactFile is the file name an artifact has in the output directory.
func artifactFile(id, file string) (string, error) {
	name := file
	if name == "" {
		name = id
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00\n") {
		return "", fmt.Errorf("artifact %q: file name %q must be a plain file name", id, name)
	}
	return name, nil
}
