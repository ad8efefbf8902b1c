package testhosts

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func TestFaults(t *testing.T) {
	c := Require(t, Options{Names: []string{"f-1"}})
	h := c.Hosts()[0]
	ctx := context.Background()

	t.Run("delay", func(t *testing.T) {
		if err := c.SetDelay("f-1", 1500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if out, err := runSSH(t, h, "true"); err != nil {
			t.Fatalf("ssh with delay: %v %s", err, out)
		}
		if d := time.Since(start); d < 1500*time.Millisecond {
			t.Fatalf("command took %s; want at least the 1.5s delay", d)
		}
		_ = c.SetDelay("f-1", 0)
		start = time.Now()
		_, _ = runSSH(t, h, "true")
		if d := time.Since(start); d > 1400*time.Millisecond {
			t.Fatalf("command took %s after clearing the delay", d)
		}
	})

	t.Run("cutoff", func(t *testing.T) {
		cl := dial(t, h)
		s, _ := cl.NewSession()
		done := make(chan error, 1)
		go func() { done <- s.Run("sleep 30") }()
		waitSessions(t, c, "f-1")
		n, err := c.CutOff("f-1")
		if err != nil || n == 0 {
			t.Fatalf("CutOff: %d killed, %v; want the session's processes killed", n, err)
		}
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("command survived the cut off")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("command still runs 10s after the cut off")
		}
		if out, err := runSSH(t, h, "echo back"); err != nil || strings.TrimSpace(out) != "back" {
			t.Fatalf("new login after cut off: %q %v; sshd must keep listening", out, err)
		}
	})

	t.Run("freeze", func(t *testing.T) {
		if err := c.Freeze("f-1"); err != nil {
			t.Fatal(err)
		}
		cfg, _ := h.ClientConfig()
		conn, err := net.DialTimeout("tcp", h.Target(), time.Second)
		if err == nil {
			_ = conn.SetDeadline(time.Now().Add(1500 * time.Millisecond))
			if _, _, _, err := ssh.NewClientConn(conn, h.Target(), cfg); err == nil {
				t.Fatalf("login to a frozen host succeeded")
			}
			conn.Close()
		}
		if err := c.Thaw("f-1"); err != nil {
			t.Fatal(err)
		}
		if out, err := runSSH(t, h, "echo thawed"); err != nil || strings.TrimSpace(out) != "thawed" {
			t.Fatalf("login after thaw: %q %v", out, err)
		}
	})

	t.Run("kill and start", func(t *testing.T) {
		cl := dial(t, h)
		if err := c.Kill("f-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := run(cl, "true"); err == nil {
			t.Fatalf("session on a killed host still works")
		}
		if up, _ := c.Running("f-1"); up {
			t.Fatalf("host runs after Kill")
		}
		if _, err := runSSH(t, h, "true"); err == nil {
			t.Fatalf("login to a killed host succeeded")
		}
		if err := c.StartHost(ctx, "f-1"); err != nil {
			t.Fatal(err)
		}
		if out, err := runSSH(t, h, "echo up"); err != nil || strings.TrimSpace(out) != "up" {
			t.Fatalf("login after StartHost: %q %v", out, err)
		}
	})

	t.Run("restart keeps files", func(t *testing.T) {
		if out, err := runSSH(t, h, "echo kept > ~/kept"); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if err := c.Restart(ctx, "f-1"); err != nil {
			t.Fatal(err)
		}
		if out, err := runSSH(t, h, "cat ~/kept"); err != nil || strings.TrimSpace(out) != "kept" {
			t.Fatalf("after restart: %q %v; want the file written before", out, err)
		}
	})

	t.Run("stop", func(t *testing.T) {
		if err := c.StopHost("f-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := runSSH(t, h, "true"); err == nil {
			t.Fatalf("login to a stopped host succeeded")
		}
		if left := procsRootedAt(c.byName["f-1"].dirs.merged); len(left) > 0 {
			t.Fatalf("processes %v left after StopHost", left)
		}
	})
}

func waitSessions(t *testing.T, c *Cluster, name string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if s, _ := c.Sessions(name); len(s) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no session process appeared on %s", name)
}
