package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func TestRunThroughHandler(t *testing.T) {
	var r transport.Redactor
	r.Add("secret-value")
	d := New(func(_ context.Context, host string, cmd transport.Command) (transport.Result, error) {
		switch cmd.Cmd {
		case "echo":
			return transport.Result{Stdout: []byte(host + " " + cmd.Env["X"] + " secret-value"), ExitCode: 3}, nil
		case "big":
			return transport.Result{Stdout: bytes.Repeat([]byte("a"), 100)}, nil
		default:
			return transport.Result{}, fmt.Errorf("%w: reset by peer with secret-value", transport.ErrConnectionLost)
		}
	}, &r)
	c, err := d.Dial(context.Background(), "h1")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := c.Run(context.Background(), transport.Command{Cmd: "echo", Env: map[string]string{"X": "y"}, Stdout: &out})
	if err != nil || string(res.Stdout) != "h1 y "+transport.Mask || res.ExitCode != 3 || out.String() != string(res.Stdout) {
		t.Fatalf("got: %+v %v (streamed %q)", res, err, out.String())
	}
	res, _ = c.Run(context.Background(), transport.Command{Cmd: "big", MaxOutput: 10})
	if len(res.Stdout) != 10 || !res.Truncated {
		t.Fatalf("cap: got %d bytes truncated=%v", len(res.Stdout), res.Truncated)
	}
	_, err = c.Run(context.Background(), transport.Command{Cmd: "fail"})
	var he *transport.HostError
	if !errors.Is(err, transport.ErrConnectionLost) || !errors.As(err, &he) || he.Host != "h1" || strings.Contains(err.Error(), "secret-value") {
		t.Fatalf("got: %v want: redacted HostError wrapping ErrConnectionLost", err)
	}
	if calls := d.Calls(); len(calls) != 3 || calls[0].Host != "h1" || calls[2].Cmd.Cmd != "fail" {
		t.Fatalf("calls: got %+v", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Run(ctx, transport.Command{Cmd: "echo"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}

func TestFilesAndDialFailures(t *testing.T) {
	d := New(nil, nil)
	c, _ := d.Dial(context.Background(), "h1")
	ctx := context.Background()
	if err := c.Upload(ctx, transport.File{Path: "/etc/a", Content: []byte("A"), Mode: 0o600, Owner: "root"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Upload(ctx, transport.File{Path: "/etc/b", Content: []byte("B")}); err != nil {
		t.Fatal(err)
	}
	f, ok := d.File("h1", "/etc/a")
	if !ok || string(f.Content) != "A" || f.Mode != 0o600 || f.Owner != "root" {
		t.Fatalf("got: %+v", f)
	}
	if got := strings.Join(d.Files("h1"), ","); got != "/etc/a,/etc/b" {
		t.Fatalf("files: got %s", got)
	}
	if len(d.Files("h2")) != 0 {
		t.Fatal("files leaked across hosts")
	}
	b, err := c.Download(ctx, "/etc/b", false)
	if err != nil || string(b) != "B" {
		t.Fatalf("download: %q %v", b, err)
	}
	if _, err := c.Download(ctx, "/missing", false); !errors.Is(err, transport.ErrCommandFailed) {
		t.Fatalf("missing: got %v", err)
	}
	d.FailDial("h2", fmt.Errorf("%w: refused", transport.ErrUnreachable))
	if _, err := d.Dial(ctx, "h2"); !errors.Is(err, transport.ErrUnreachable) || !transport.Retryable(err) {
		t.Fatalf("dial: got %v", err)
	}
	d.FailDial("h2", nil)
	if _, err := d.Dial(ctx, "h2"); err != nil {
		t.Fatalf("dial after recovery: %v", err)
	}
}
