package testhosts

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// runSSH runs cmd on h with the real OpenSSH client.
func runSSH(t testing.TB, h Host, cmd string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"-i", h.KeyPath, "-o", "UserKnownHostsFile=" + h.KnownHostsPath, "-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "-p", fmt.Sprint(h.Port), h.User + "@" + h.Addr, cmd}
	out, err := exec.CommandContext(ctx, "ssh", args...).CombinedOutput()
	return string(out), err
}

// dial opens an x/crypto/ssh client to h.
func dial(t testing.TB, h Host) *ssh.Client {
	t.Helper()
	cfg, err := h.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", h.Target(), cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", h.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// run runs cmd over an x/crypto/ssh session.
func run(c *ssh.Client, cmd string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	err = s.Run(cmd)
	return out.String() + errb.String(), err
}
