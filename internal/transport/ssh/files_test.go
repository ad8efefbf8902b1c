package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func TestUploadDownload(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{}, e.host("h1"))
	c := dial(t, p, "h1")
	ctx := ctxT(t, 60*time.Second)

	// The login user writes where it may; sudo writes anywhere, with owner.
	userDir := t.TempDir()
	if err := os.Chmod(userDir, 0o777); err != nil {
		t.Fatal(err)
	}
	rootDir := t.TempDir() // 0700 root: only sudo can write here
	big := bytes.Repeat([]byte("0123456789abcdef\n\x00\xff"), 100000)
	cases := []struct {
		name      string
		f         transport.File
		wantMode  os.FileMode
		wantOwner string
	}{
		{"plain", transport.File{Path: filepath.Join(userDir, "a.txt"), Content: []byte("hello\n"), Mode: 0o640}, 0o640, nopwUser},
		{"default mode", transport.File{Path: filepath.Join(userDir, "b.txt"), Content: []byte("x")}, 0o644, nopwUser},
		{"nested dirs, binary, big", transport.File{Path: filepath.Join(userDir, "d1", "d2", "big.bin"), Content: big, Mode: 0o600}, 0o600, nopwUser},
		{"become with owner", transport.File{Path: filepath.Join(rootDir, "s.conf"), Content: []byte("secret: 1\n"), Mode: 0o600, Owner: pwUser + ":" + pwUser, Become: true}, 0o600, pwUser},
		{"become root owned", transport.File{Path: filepath.Join(rootDir, "r.sh"), Content: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755, Become: true}, 0o755, "root"},
		{"empty file", transport.File{Path: filepath.Join(userDir, "empty"), Mode: 0o600}, 0o600, nopwUser},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.Upload(ctx, tc.f); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(tc.f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tc.wantMode {
				t.Errorf("mode: got: %o want: %o", st.Mode().Perm(), tc.wantMode)
			}
			res := mustRun(t, c, transport.Command{Cmd: "stat -c %U " + quote(tc.f.Path), Become: true})
			if got := strings.TrimSpace(string(res.Stdout)); got != tc.wantOwner {
				t.Errorf("owner: got: %s want: %s", got, tc.wantOwner)
			}
			got, err := c.Download(ctx, tc.f.Path, tc.f.Become)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.f.Content) {
				t.Errorf("download: got %d bytes want %d", len(got), len(tc.f.Content))
			}
		})
	}

	// Overwrite is atomic and leaves no temporary files behind.
	path := filepath.Join(userDir, "a.txt")
	if err := c.Upload(ctx, transport.File{Path: path, Content: []byte("v2"), Mode: 0o600}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "v2" {
		t.Fatalf("overwrite: got %q", b)
	}
	entries, _ := os.ReadDir(userDir)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".cp-upload") {
			t.Errorf("temporary file left: %s", en.Name())
		}
	}

	// Failures are ErrCommandFailed with the reason, not retryable.
	_, err := c.Download(ctx, filepath.Join(userDir, "missing"), false)
	wantCmdFailed(t, err, "No such file")
	_, err = c.Download(ctx, filepath.Join(rootDir, "s.conf"), false) // no sudo: denied
	wantCmdFailed(t, err, "Permission denied")
	err = c.Upload(ctx, transport.File{Path: filepath.Join(rootDir, "nope"), Content: []byte("x")})
	wantCmdFailed(t, err, "Permission denied")
	err = c.Upload(ctx, transport.File{Path: filepath.Join(userDir, "o"), Content: []byte("x"), Owner: "no-such-user-x"})
	wantCmdFailed(t, err, "no-such-user-x")
	if _, err := os.Stat(filepath.Join(userDir, "o")); err == nil {
		t.Error("a failed upload left the target file")
	}
}

func TestDownloadLimit(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{MaxDownload: 1000}, e.host("h1"))
	c := dial(t, p, "h1")
	dir := t.TempDir()
	for size, ok := range map[int]bool{1000: true, 1001: false} {
		path := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(path, bytes.Repeat([]byte("a"), size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := c.Download(ctxT(t, 10*time.Second), path, true)
		if ok && (err != nil || len(got) != size) {
			t.Errorf("%d bytes: got %d, %v", size, len(got), err)
		}
		if !ok {
			wantCmdFailed(t, err, "download limit")
		}
	}
}

func wantCmdFailed(t *testing.T, err error, mention string) {
	t.Helper()
	if !errors.Is(err, transport.ErrCommandFailed) || transport.Retryable(err) || !strings.Contains(err.Error(), mention) {
		t.Errorf("got: %v want: ErrCommandFailed mentioning %q", err, mention)
	}
}
