package transport

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

const testKey = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIBq0sJ3Yk1bZ3o7m2sQ4xXf6m3h2aJ9H8o0mJ3YdQk4goAoGCCqGSM49
AwEHoUQDQgAE1rQv3m1gP0Jk2+6cY3mU7iYb2c3k9bq8Yq3oJ2a1dH8xk3a7Wq1c
-----END EC PRIVATE KEY-----`

// TestRedactorMasksDerivedForms: a secret printed literally, line by
// line, reversed, base64- or hex-encoded (wrapped or not), or decoded
// from the base64 a kubeconfig holds, never shows.
func TestRedactorMasksDerivedForms(t *testing.T) {
	kubeconfig := "users:\n- name: admin\n  user:\n    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(testKey)) + "\n"
	var r Redactor
	r.Add(kubeconfig, "s3cr3t-token.abcdef0123456789")
	rev := func(s string) string {
		b := []rune(s)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return string(b)
	}
	wrap := func(s string, w int) string {
		var out []string
		for len(s) > w {
			out, s = append(out, s[:w]), s[w:]
		}
		return strings.Join(append(out, s), "\n")
	}
	leaks := map[string]string{
		"literal":                  kubeconfig,
		"decoded key":              testKey,
		"decoded key line":         "key line: AwEHoUQDQgAE1rQv3m1gP0Jk2+6cY3mU7iYb2c3k9bq8Yq3oJ2a1dH8xk3a7Wq1c",
		"reversed token":           rev("s3cr3t-token.abcdef0123456789"),
		"reversed decoded key":     rev(testKey),
		"base64 token":             base64.StdEncoding.EncodeToString([]byte("s3cr3t-token.abcdef0123456789")),
		"base64url token unpadded": base64.RawURLEncoding.EncodeToString([]byte("s3cr3t-token.abcdef0123456789")),
		"hex token":                hex.EncodeToString([]byte("s3cr3t-token.abcdef0123456789")),
		"base64 wrapped 76":        wrap(base64.StdEncoding.EncodeToString([]byte(testKey)), 76),
	}
	secretBits := []string{"MHcCAQEEIBq0sJ3Yk1bZ3o7m2sQ4", "AwEHoUQDQgAE1rQv3m1gP0Jk2", "s3cr3t-token", "4pMHcCAQ"}
	for name, text := range leaks {
		got := r.String(text)
		if !strings.Contains(got, Mask) {
			t.Errorf("%s: nothing masked in %q", name, got)
		}
		for _, bit := range append(secretBits, rev(secretBits[0]), hex.EncodeToString([]byte("s3cr3t-token"))) {
			if strings.Contains(got, bit) {
				t.Errorf("%s: %q still shows in %q", name, bit, got)
			}
		}
	}
	if got := r.String("nothing secret here, 1234"); got != "nothing secret here, 1234" {
		t.Errorf("plain text changed: %q", got)
	}
	var nilR *Redactor
	if nilR.String("x") != "x" {
		t.Error("nil redactor changed text")
	}
}
