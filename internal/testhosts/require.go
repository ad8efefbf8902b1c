package testhosts

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// Require starts test hosts for a test and stops and removes them when
// the test ends. When this machine cannot run hosts (ErrUnavailable) the
// test is skipped, unless the environment has CI=true: then it fails with
// the reason. Any other start error fails the test.
func Require(t testing.TB, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		if errors.Is(err, ErrUnavailable) && os.Getenv("CI") != "true" {
			t.Skipf("skipping: %v (set CI=true to make this a failure)", err)
		}
		t.Fatalf("start test hosts: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, h := range c.hosts {
				t.Logf("sshd log of host %s (%s):\n%s", h.name, h.dirs.log, tail(h.dirs.log, 40))
			}
		}
		if err := c.Remove(); err != nil {
			t.Errorf("remove test hosts: %v", err)
		}
	})
	return c
}
