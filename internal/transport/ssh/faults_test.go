package ssh

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func wantClass(t *testing.T, err error, class error, retryable bool) {
	t.Helper()
	if !errors.Is(err, class) {
		t.Fatalf("got: %v want: %v", err, class)
	}
	if transport.Retryable(err) != retryable {
		t.Fatalf("Retryable(%v): got: %v want: %v", err, !retryable, retryable)
	}
	var he *transport.HostError
	if !errors.As(err, &he) || he.Host == "" {
		t.Fatalf("got: %#v want: a *transport.HostError", err)
	}
}

func TestUnreachableWhenSSHDStopped(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	e.server.stop()
	p := newPool(t, Options{}, e.host("h1"))
	_, err := p.Dial(ctxT(t, 10*time.Second), "h1")
	wantClass(t, err, transport.ErrUnreachable, true)
	if !strings.Contains(err.Error(), e.server.addr()) {
		t.Errorf("got: %v want: the address in the error", err)
	}
}

func TestCommandTimeoutAndCancel(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{}, e.host("h1"))
	c := dial(t, p, "h1")

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := c.Run(ctx, transport.Command{Cmd: "echo started; sleep 30"})
	wantClass(t, err, transport.ErrTimeout, true)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got: %v want: also context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	if !strings.Contains(string(res.Stdout), "started") {
		t.Errorf("partial output lost: %q", res.Stdout)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel2)
	_, err = c.Run(ctx2, transport.Command{Cmd: "sleep 30"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, transport.ErrTimeout) {
		t.Fatalf("got: %v want: context.Canceled, not a timeout", err)
	}

	// The connection is still good afterwards.
	if r := mustRun(t, c, transport.Command{Cmd: "echo ok"}); string(r.Stdout) != "ok\n" {
		t.Fatalf("after timeout: got %q", r.Stdout)
	}
}

// signalWriter reports when a marker shows up in the stream.
type signalWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	marker string
	once   sync.Once
	seen   chan struct{}
}

func newSignalWriter(marker string) *signalWriter {
	return &signalWriter{marker: marker, seen: make(chan struct{})}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// runUntilStarted runs cmd (which prints "started") in the background and
// returns once it printed it.
func runUntilStarted(t *testing.T, c transport.Conn, ctx context.Context, cmd string) <-chan error {
	t.Helper()
	w := newSignalWriter("started")
	errc := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, transport.Command{Cmd: cmd, Stdout: w})
		errc <- err
	}()
	select {
	case <-w.seen:
	case err := <-errc:
		t.Fatalf("command ended before it started: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("command did not start")
	}
	return errc
}

func TestConnectionKilledMidCommandThenReconnect(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{}, e.host("h1"))
	c := dial(t, p, "h1")
	errc := runUntilStarted(t, c, ctxT(t, 30*time.Second), "echo started; sleep 30")
	if n := e.server.killConnections(); n == 0 {
		t.Fatal("no connection process to kill")
	}
	select {
	case err := <-errc:
		wantClass(t, err, transport.ErrConnectionLost, true)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not notice the lost connection")
	}
	// The next Run reconnects.
	if r := mustRun(t, c, transport.Command{Cmd: "echo again"}); string(r.Stdout) != "again\n" {
		t.Fatalf("after reconnect: got %q", r.Stdout)
	}
}

func TestFrozenServer(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	opts := Options{KeepaliveInterval: 200 * time.Millisecond, KeepaliveMaxMissed: 3, DialTimeout: 1 * time.Second}
	p := newPool(t, opts, e.host("h1"))
	c := dial(t, p, "h1")

	// Keepalives find a frozen server: the running command fails with
	// ErrConnectionLost long before its own context would end.
	errc := runUntilStarted(t, c, ctxT(t, 60*time.Second), "echo started; sleep 30")
	e.server.freeze()
	start := time.Now()
	select {
	case err := <-errc:
		wantClass(t, err, transport.ErrConnectionLost, true)
		if !strings.Contains(err.Error(), "keepalive") {
			t.Errorf("got: %v want: the keepalive reason", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("keepalives did not declare the connection lost")
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("declared lost after %v, before the keepalives could miss", d)
	}

	// A dial to the frozen server times out in the handshake.
	_, err := c.Run(ctxT(t, 30*time.Second), transport.Command{Cmd: "true"})
	wantClass(t, err, transport.ErrTimeout, true)

	// Thawed, the next Run reconnects.
	e.server.thaw()
	if r := mustRun(t, c, transport.Command{Cmd: "echo back"}); string(r.Stdout) != "back\n" {
		t.Fatalf("after thaw: got %q", r.Stdout)
	}

	// Without keepalives, the command's context ends a frozen command.
	p2 := newPool(t, Options{KeepaliveInterval: -1}, e.host("h2"))
	c2 := dial(t, p2, "h2")
	errc = runUntilStarted(t, c2, ctxT(t, 1500*time.Millisecond), "echo started; sleep 30")
	e.server.freeze()
	defer e.server.thaw()
	select {
	case err := <-errc:
		wantClass(t, err, transport.ErrTimeout, true)
	case <-time.After(10 * time.Second):
		t.Fatal("the context did not end the frozen command")
	}
}

func TestPoolReusesOneConnectionAndBoundsSessions(t *testing.T) {
	e := newEnv(t, sshdOptions{})
	p := newPool(t, Options{MaxSessions: 3}, e.host("h1"))
	// Each command counts the commands running at that moment on the host
	// with a directory per running command.
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	maxSeen := 0
	start := time.Now()
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := p.Dial(ctxT(t, 20*time.Second), "h1")
			var res transport.Result
			if err == nil {
				res, err = c.Run(ctxT(t, 30*time.Second), transport.Command{
					Cmd: `mkdir "$D/run.$$"; sleep 0.2; ls -d "$D"/run.* | wc -l; sleep 0.1; rmdir "$D/run.$$"`,
					Env: map[string]string{"D": dir},
				})
			}
			mu.Lock()
			defer mu.Unlock()
			if err == nil && res.ExitCode != 0 {
				err = errors.New(string(res.Stderr))
			}
			if err != nil {
				errs = append(errs, err)
				return
			}
			n, _ := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
			maxSeen = max(maxSeen, n)
		}()
	}
	// While they run there is exactly one connection process.
	time.Sleep(150 * time.Millisecond)
	if n := len(e.server.children()); n != 1 {
		t.Errorf("connections: got: %d want: 1", n)
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if maxSeen < 2 || maxSeen > 3 {
		t.Errorf("commands running at once: got: %d want: 2..3 (MaxSessions 3)", maxSeen)
	}
	if d := time.Since(start); d < 4*300*time.Millisecond {
		t.Errorf("12 commands of 0.3s at 3 at a time took %v, want >= 1.2s", d)
	}
}
