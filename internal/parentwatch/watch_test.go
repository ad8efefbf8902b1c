package parentwatch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestWatchCallsGoneWhenTheParentChanges(t *testing.T) {
	var ppid atomic.Int64
	ppid.Store(4321)
	called := make(chan struct{})
	go Watcher{Getppid: func() int { return int(ppid.Load()) }, Interval: time.Millisecond}.Watch(context.Background(), func() { close(called) })
	select {
	case <-called:
		t.Fatal("gone called while the parent is the same")
	case <-time.After(50 * time.Millisecond):
	}
	ppid.Store(1)
	select {
	case <-called:
	case <-time.After(2 * time.Second):
		t.Fatal("gone not called after the parent changed")
	}
}

func TestWatchIgnoresInitAsParentAndStopsWithContext(t *testing.T) {
	calls := 0
	Watcher{Getppid: func() int { calls++; return 1 }, Interval: time.Millisecond}.Watch(context.Background(), func() { t.Error("gone called") })
	if calls != 1 {
		t.Errorf("getppid calls got: %d want: 1 (no watching under init)", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Watcher{Getppid: func() int { return 99 }, Interval: time.Millisecond}.Watch(ctx, func() { t.Error("gone called") })
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not return when ctx ended")
	}
}

// A real process tree: this test binary starts a shell (the parent) that
// starts the test binary again as a watcher (the child). Killing the
// shell with -9 makes the child see it gone and write its file.
func TestWatchSeesARealParentKilled(t *testing.T) {
	if os.Getenv("PARENTWATCH_CHILD") != "" {
		Watcher{Interval: 20 * time.Millisecond}.Watch(context.Background(), func() {
			_ = os.WriteFile(os.Getenv("PARENTWATCH_CHILD"), []byte("gone"), 0o644)
		})
		return
	}
	out := filepath.Join(t.TempDir(), "gone")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command("/bin/sh", "-c", `"$0" -test.run '^TestWatchSeesARealParentKilled$' & echo $! >"$1"; wait`, self, pidFile)
	parent.Env = append(os.Environ(), "PARENTWATCH_CHILD="+out)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for end := time.Now().Add(10 * time.Second); child == 0; {
		if b, err := os.ReadFile(pidFile); err == nil {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(end) {
			t.Fatal("the child did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer func() { _ = syscall.Kill(child, syscall.SIGKILL) }()
	time.Sleep(300 * time.Millisecond) // the child records its parent
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the child saw its parent gone while it lived")
	}
	t0 := time.Now()
	_ = parent.Process.Signal(syscall.SIGKILL)
	_ = parent.Wait()
	for {
		if b, err := os.ReadFile(out); err == nil && string(b) == "gone" {
			t.Logf("child saw its parent gone %s after kill -9", time.Since(t0))
			return
		}
		if time.Since(t0) > 5*time.Second {
			t.Fatal("the child did not see its parent killed within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
