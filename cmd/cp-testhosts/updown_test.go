package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain turns this test binary into a stand-in background server when
// asked: run as ".../cp-testhosts serve", it sleeps until signalled, so
// isServer takes it for the real thing.
func TestMain(m *testing.M) {
	if os.Getenv("CP_TESTHOSTS_FAKE_SERVER") == "1" {
		time.Sleep(2 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer starts a process that looks like `cp-testhosts serve` and
// records its pid in dir, as serve does.
func fakeServer(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "cp-testhosts")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "serve", "-dir", dir)
	cmd.Env = append(os.Environ(), "CP_TESTHOSTS_FAKE_SERVER=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !isServer(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("stand-in server not seen as a cp-testhosts serve process")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd
}

func TestUpRefusesToReplaceRunningHosts(t *testing.T) {
	dir := t.TempDir()
	srv := fakeServer(t, dir)
	keep := filepath.Join(dir, "upper-file")
	if err := os.WriteFile(keep, []byte("a host's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := up([]string{"-dir", dir, "-n", "1"})
	if err == nil || !strings.Contains(err.Error(), "already running in "+dir) || !strings.Contains(err.Error(), "FORCE=1") ||
		!strings.Contains(err.Error(), "pid "+strconv.Itoa(srv.Process.Pid)) {
		t.Fatalf("got: %v want: a refusal naming the directory, the pid and FORCE=1", err)
	}
	if !isServer(srv.Process.Pid) {
		t.Error("the running server was stopped")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the hosts' files were touched: %v", err)
	}
}

func TestForceStopsRunningHosts(t *testing.T) {
	dir := t.TempDir()
	srv := fakeServer(t, dir)
	done := make(chan struct{})
	go func() { _ = srv.Wait(); close(done) }()
	if err := replaceRunning(dir, true); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the running server was not stopped")
	}
}

func TestNothingRunningNothingRefused(t *testing.T) {
	dir := t.TempDir()
	if err := replaceRunning(dir, false); err != nil {
		t.Fatalf("empty dir: %v", err)
	}
	// A pid file left by a server that is gone (this process is no server).
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replaceRunning(dir, false); err != nil {
		t.Fatalf("stale pid file: %v", err)
	}
}

func TestWithoutForce(t *testing.T) {
	got := withoutForce([]string{"-n", "2", "-force", "-dir", "d", "--force=true"})
	if strings.Join(got, " ") != "-n 2 -dir d" {
		t.Errorf("got: %q", got)
	}
	if f, err := parseUp([]string{"-force"}); err != nil || !f.force {
		t.Errorf("got: %+v %v want: force", f, err)
	}
}

// The make targets on real test hosts: stdout of `make hosts-up` is JSON
// only, a second one refuses, FORCE=1 replaces, hosts-down stops them.
func TestMakeHostsUp(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts real test hosts: set TF_ACC=1 (as root)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "hosts")
	env := []string{"HOSTS_DIR=" + dir, "N=1"}
	makeCmd := func(extra ...string) (int, string, string) {
		cmd := exec.Command("make", extra...)
		cmd.Dir = root
		for _, e := range os.Environ() {
			if k, _, _ := strings.Cut(e, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errOut.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errOut.String()
	}
	t.Cleanup(func() {
		if code, _, errOut := makeCmd("hosts-down"); code != 0 {
			t.Errorf("make hosts-down: exit %d\n%s", code, errOut)
		}
	})
	code, out, errOut := makeCmd("hosts-up")
	if code != 0 {
		if strings.Contains(errOut, "unavailable on this machine") && os.Getenv("CI") != "true" {
			t.Skipf("test hosts unavailable: %s", errOut)
		}
		t.Fatalf("make hosts-up: exit %d\n%s", code, errOut)
	}
	first := hostsJSON(t, out)
	if !strings.Contains(errOut, "cp-testhosts: starting 1 hosts") {
		t.Errorf("progress not on stderr: %q", errOut)
	}
	pid1, _, _ := runningServer(dir)

	code, out, errOut = makeCmd("hosts-up")
	if code == 0 || out != "" || !strings.Contains(errOut, "already running in "+dir) {
		t.Fatalf("second make hosts-up: got exit %d stdout %q stderr %q want: a refusal on stderr, nothing on stdout", code, out, errOut)
	}
	if pid, running, _ := runningServer(dir); !running || pid != pid1 {
		t.Fatalf("the refusal replaced the hosts: pid %d running %v, was %d", pid, running, pid1)
	}

	env = append(env, "FORCE=1")
	code, out, errOut = makeCmd("hosts-up")
	if code != 0 {
		t.Fatalf("FORCE=1 make hosts-up: exit %d\n%s", code, errOut)
	}
	second := hostsJSON(t, out)
	if pid, running, _ := runningServer(dir); !running || pid == pid1 {
		t.Errorf("FORCE=1 did not replace the server: pid %d running %v, was %d", pid, running, pid1)
	}
	if len(first) != 1 || len(second) != 1 {
		t.Errorf("got: %d then %d hosts want: 1", len(first), len(second))
	}
}

// hostsJSON checks that out is exactly one JSON document describing hosts.
func hostsJSON(t *testing.T, out string) []map[string]any {
	t.Helper()
	var v struct {
		Hosts []map[string]any `json:"hosts"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	var rest bytes.Buffer
	if _, err := rest.ReadFrom(dec.Buffered()); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(rest.String()) != "" {
		t.Fatalf("stdout has more after the JSON: %q", rest.String())
	}
	return v.Hosts
}
