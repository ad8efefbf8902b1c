package operation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestLifetimeAbortRefusesNewRunsAndWaitsForRunning(t *testing.T) {
	l := NewLifetime()
	done, err := l.begin()
	if err != nil {
		t.Fatal(err)
	}
	l.Abort()
	l.Abort() // twice is fine
	select {
	case <-l.Aborted():
	default:
		t.Fatal("Aborted not closed by Abort")
	}
	if _, err := l.begin(); !errors.Is(err, ErrStopping) {
		t.Fatalf("begin after Abort got: %v want: ErrStopping", err)
	}
	if l.Wait(50 * time.Millisecond) {
		t.Fatal("Wait returned true while an operation runs")
	}
	go func() { time.Sleep(20 * time.Millisecond); done() }()
	if !l.Wait(2 * time.Second) {
		t.Fatal("Wait returned false after the operation ended")
	}
}

// A Runner whose lifetime was aborted starts nothing: it fails before
// opening the SSH pool (whose settings here would fail differently).
func TestRunnerRefusesAfterAbort(t *testing.T) {
	l := NewLifetime()
	l.Abort()
	r := &Runner{Lifetime: l}
	plan := &protocol.Plan{ID: "p"}
	_, err := r.Run(context.Background(), plan, []HostAccess{{Host: protocol.Host{Name: "h"}}}, engine.RunInput{})
	if !errors.Is(err, ErrStopping) {
		t.Fatalf("got: %v want: ErrStopping", err)
	}
}

func TestRunnerLockWait(t *testing.T) {
	bg := context.Background()
	for _, tc := range []struct{ in, want time.Duration }{{0, unboundedWait}, {-1, 0}, {5 * time.Second, 5 * time.Second}} {
		if got := (&Runner{LockWait: tc.in}).lockWait(bg); got != tc.want {
			t.Errorf("LockWait %s: got: %s want: %s", tc.in, got, tc.want)
		}
	}
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	if got := (&Runner{}).lockWait(ctx); got > time.Minute || got < 59*time.Second {
		t.Errorf("LockWait 0 under a 1m deadline: got: %s want: about 1m", got)
	}
}
