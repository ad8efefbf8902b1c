package transport

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redactor replaces registered secret values with a mask. The zero value is
// ready to use and safe for concurrent use.
//
// A secret is masked in the forms a job could print it in, not only
// literally: each line of a multi-line secret, the value reversed, its
// base64 (standard and URL alphabets, padded or not, unwrapped or wrapped
// at 64 and 76 columns as PEM and base64(1) write it), its hex and URL
// encodings, and the decoded text of base64 it holds (a kubeconfig's
// client-key-data), with that text's lines and their reverse too.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	seen    map[string]bool
	rep     *strings.Replacer // every secret, longest first, to Mask
}

// Mask replaces a secret value in redacted text.
const Mask = "[REDACTED]"

// minForm is the shortest derived form masked; shorter strings would mask
// common text. A registered value itself needs 4 bytes.
const minForm = 16

var base64Token = regexp.MustCompile(`[A-Za-z0-9+/_-]{24,}={0,2}`)

// envKey is the name part of an env-file line.
var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Add registers secret values; values shorter than 4 bytes are ignored to
// avoid masking common text.
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < 4 {
			continue
		}
		r.add(v, 4)
		r.addForms(v, true)
	}
	// Longest first so a secret containing another is masked whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.rep = strings.NewReplacer(pairs...)
}

func (r *Redactor) add(s string, min int) {
	if len(s) < min || r.seen[s] {
		return
	}
	r.seen[s] = true
	r.secrets = append(r.secrets, s)
}

// addForms registers the derived forms of v; decode says whether base64
// inside v is decoded and registered too (one level deep).
func (r *Redactor) addForms(v string, decode bool) {
	parts := []string{v}
	for _, line := range strings.Split(v, "\n") {
		if line = strings.TrimSpace(line); len(line) >= minForm && line != v {
			parts = append(parts, line)
		}
		// The value of a KEY=VALUE line (an env file such as S3
		// credentials), which a job could print alone.
		if k, val, ok := strings.Cut(strings.TrimSpace(line), "="); ok && envKey.MatchString(k) && len(val) >= minForm {
			parts = append(parts, val)
		}
	}
	for _, p := range parts {
		r.add(p, minForm)
		r.add(reverse(p), minForm)
		r.add(hex.EncodeToString([]byte(p)), minForm)
		if q := url.QueryEscape(p); q != p {
			r.add(q, minForm)
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			b := enc.EncodeToString([]byte(p))
			r.add(b, minForm)
			for _, w := range []int{64, 76} {
				for i := 0; i+w < len(b); i += w {
					r.add(b[i:i+w], minForm)
				}
			}
		}
	}
	if !decode {
		return
	}
	for _, tok := range base64Token.FindAllString(v, -1) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			d, err := enc.DecodeString(tok)
			if err != nil || len(d) < minForm || !utf8.Valid(d) {
				continue
			}
			r.addForms(strings.TrimSpace(string(d)), false)
			break
		}
	}
}

func reverse(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	rep := r.rep
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Bytes redacts b.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return []byte(r.String(string(b)))
}
