package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// Files in the harness directory.
const (
	pidFile   = "cp-testhosts.pid"
	readyFile = "ready.json"
	errFile   = "error.txt"
	logFile   = "cp-testhosts.log"
)

type upFlags struct {
	n         int
	names     string
	dir       string
	baseAddr  string
	port      int
	simulator bool
	simBinary string
	cluster   string
	force     bool
}

func parseUp(args []string) (upFlags, error) {
	var f upFlags
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.IntVar(&f.n, "n", 0, "number of hosts (names host-1..host-N unless -names)")
	fs.StringVar(&f.names, "names", "", "comma-separated host names")
	fs.StringVar(&f.dir, "dir", ".demo/hosts", "harness directory")
	fs.StringVar(&f.baseAddr, "base-addr", "", "first loopback address (default: lowest free from 127.0.0.2)")
	fs.IntVar(&f.port, "port", 22, "sshd port")
	fs.BoolVar(&f.simulator, "simulator", false, "install the host simulator (cp-hostsim)")
	fs.StringVar(&f.simBinary, "simulator-binary", "", "prebuilt cp-hostsim (default: next to this program, else go build)")
	fs.StringVar(&f.cluster, "cluster", "cluster", "simulated cluster name")
	fs.BoolVar(&f.force, "force", false, "replace hosts already running in -dir (without it, up refuses)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	return f, nil
}

func (f upFlags) options() (testhosts.Options, error) {
	var names []string
	if f.names != "" {
		names = strings.Split(f.names, ",")
	}
	if f.n > 0 && len(names) > 0 && f.n != len(names) {
		return testhosts.Options{}, fmt.Errorf("-n %d does not match the %d names in -names", f.n, len(names))
	}
	if len(names) == 0 {
		n := max(f.n, 1)
		for i := 1; i <= n; i++ {
			names = append(names, fmt.Sprintf("host-%d", i))
		}
	}
	dir, err := filepath.Abs(f.dir)
	if err != nil {
		return testhosts.Options{}, fmt.Errorf("resolve -dir %q: %w", f.dir, err)
	}
	opts := testhosts.Options{Names: names, Dir: dir, BaseAddr: f.baseAddr, Port: f.port,
		Simulator: f.simulator, SimulatorBinary: f.simBinary, SimulatorCluster: f.cluster}
	if opts.Simulator && opts.SimulatorBinary == "" {
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), "cp-hostsim"); fileExists(p) {
				opts.SimulatorBinary = p
			}
		}
	}
	return opts, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// up starts `cp-testhosts serve` in the background and waits for it to
// report the hosts (ready.json) or an error.
func up(args []string) error {
	f, err := parseUp(args)
	if err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := replaceRunning(opts.Dir, f.force); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cp-testhosts: starting %d hosts (%s) in %s\n", len(opts.Names), strings.Join(opts.Names, ","), opts.Dir)
	if err := testhosts.CleanDir(opts.Dir, true); err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", opts.Dir, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	log, err := os.OpenFile(filepath.Join(opts.Dir, logFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer log.Close()
	serveArgs := append([]string{"serve"}, withoutForce(args)...)
	serveArgs = append(serveArgs, "-dir", opts.Dir)
	if opts.SimulatorBinary != "" {
		serveArgs = append(serveArgs, "-simulator-binary", opts.SimulatorBinary)
	}
	cmd := exec.Command(exe, serveArgs...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start background server: %w", err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	start := time.Now()
	deadline := start.Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(opts.Dir, readyFile)); err == nil {
			fmt.Fprintf(os.Stderr, "cp-testhosts: %d hosts ready in %s (pid %d); stop them with: cp-testhosts down -dir %s\n",
				len(opts.Names), time.Since(start).Round(time.Millisecond), pid, opts.Dir)
			if _, err := os.Stdout.Write(b); err != nil {
				return fmt.Errorf("write the hosts JSON: %w", err)
			}
			return nil
		}
		if b, err := os.ReadFile(filepath.Join(opts.Dir, errFile)); err == nil {
			return fmt.Errorf("hosts did not start: %s", b)
		}
		if syscall.Kill(pid, 0) != nil {
			b, _ := os.ReadFile(filepath.Join(opts.Dir, logFile))
			return fmt.Errorf("background server (pid %d) exited; its log:\n%s", pid, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("hosts did not start within 5 minutes; see %s", filepath.Join(opts.Dir, logFile))
}

// replaceRunning makes way for new hosts in dir: when a server is running
// there it refuses, unless force is set, in which case it stops it.
func replaceRunning(dir string, force bool) error {
	pid, running, err := runningServer(dir)
	if err != nil || !running {
		return err
	}
	if !force {
		return fmt.Errorf("test hosts are already running in %s (server pid %d); "+
			"stop them first (cp-testhosts down -dir %s, or make hosts-down), "+
			"or pass -force (FORCE=1 make hosts-up) to replace them and their files", dir, pid, dir)
	}
	fmt.Fprintf(os.Stderr, "cp-testhosts: -force: stopping the hosts running in %s (server pid %d)\n", dir, pid)
	return stopServer(dir, 10*time.Second)
}

// withoutForce drops -force from up's arguments before they are passed to
// serve, which replaces nothing.
func withoutForce(args []string) []string {
	var out []string
	for _, a := range args {
		switch a {
		case "-force", "--force", "-force=true", "--force=true", "-force=false", "--force=false":
			continue
		}
		out = append(out, a)
	}
	return out
}

// runningServer returns the pid of the live background server of dir.
func runningServer(dir string) (int, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, pidFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read pid file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false, nil // garbage pid file: nothing runs
	}
	return pid, isServer(pid), nil
}

// serve runs in the background: it starts the hosts, reports them and
// keeps them until SIGTERM/SIGINT.
func serve(args []string) error {
	f, err := parseUp(args)
	if err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(opts.Dir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	start := time.Now()
	c, err := testhosts.Start(ctx, opts)
	cancel()
	if err != nil {
		_ = os.WriteFile(filepath.Join(opts.Dir, errFile), []byte(err.Error()), 0o644)
		return err
	}
	fmt.Printf("started %d hosts in %s\n", len(opts.Names), time.Since(start).Round(time.Millisecond))
	b, err := c.JSON()
	if err != nil {
		return err
	}
	tmp := filepath.Join(opts.Dir, readyFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(opts.Dir, readyFile)); err != nil {
		return fmt.Errorf("write %s: %w", readyFile, err)
	}
	<-sigs
	return c.Stop()
}

// stopServer ends the background server of dir (if any) and waits for it.
func stopServer(dir string, wait time.Duration) error {
	pid, running, err := runningServer(dir)
	if err != nil || !running {
		return err
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if !isServer(pid) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return nil
}

// isServer reports whether pid is a live cp-testhosts serve process.
func isServer(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(b), "\x00")
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
		return false
	}
	return len(args) > 1 && args[1] == "serve" && strings.Contains(filepath.Base(args[0]), "cp-testhosts")
}

// down stops the background server, kills anything left of the hosts,
// unmounts, and removes the directory. It is idempotent.
func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	dir := fs.String("dir", ".demo/hosts", "harness directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fmt.Errorf("resolve -dir %q: %w", *dir, err)
	}
	if err := stopServer(abs, 15*time.Second); err != nil {
		return err
	}
	if err := testhosts.CleanDir(abs, true); err != nil {
		return err
	}
	return nil
}
