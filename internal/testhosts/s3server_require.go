package testhosts

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// RequireS3 starts an S3 server for a test and stops it (removing its
// data) when the test ends. Without the weed binary the test is skipped,
// unless CI=true: then it fails with the reason. Any other start error
// fails the test.
func RequireS3(t testing.TB, opts S3Options) *S3Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := StartS3(ctx, opts)
	if err != nil {
		if errors.Is(err, ErrNoWeed) && os.Getenv("CI") != "true" {
			t.Skipf("skipping: %v (set CI=true to make this a failure)", err)
		}
		t.Fatalf("start S3 server: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("S3 server log (%s):\n%s", s.LogPath(), tail(s.LogPath(), 40))
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stop S3 server: %v", err)
		}
	})
	return s
}
