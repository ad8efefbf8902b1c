package hostsim

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ctrSocket is containerd's socket, which the real daemon opens.
const ctrSocket = "/run/containerd/containerd.sock"

// crictl runs fn when the CRI answers (containerd active with CRI).
func (s *sim) crictl(fn func(st *State, hs *HostState) int) int {
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		if msg := s.criDown(hs); msg != "" {
			code = s.fail(1, "%s", msg)
			return nil
		}
		code = fn(st, hs)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim crictl: %v", err)
	}
	return code
}

// crictlPull pulls an image into the host's store, unless an
// image-pull or dns fault stops it.
func (s *sim) crictlPull(p flags) int {
	return s.crictl(func(st *State, hs *HostState) int {
		if p.arg(1) == "" {
			return s.fail(1, "image name cannot be empty")
		}
		img := normalizeImage(p.arg(1))
		if msg := s.pullError(st, hs, img); msg != "" {
			return s.fail(1, "E%s pulling image: rpc error: code = Unknown desc = %s", s.now().UTC().Format("0102 15:04:05.000000"), msg)
		}
		if !slices.Contains(hs.Images, img) {
			hs.Images = append(hs.Images, img)
			slices.Sort(hs.Images)
		}
		s.printf("Image is up to date for sha256:%s\n", randomHex(32))
		return 0
	})
}

// crictlInspecti succeeds for an image in the host's store.
func (s *sim) crictlInspecti(p flags) int {
	return s.crictl(func(st *State, hs *HostState) int {
		img := normalizeImage(p.arg(1))
		if !slices.Contains(hs.Images, img) {
			return s.fail(1, "E%s no such image %q present", s.now().UTC().Format("0102 15:04:05.000000"), p.arg(1))
		}
		s.printf("{\n  \"status\": {\n    \"repoTags\": [\n      \"%s\"\n    ]\n  }\n}\n", img)
		return 0
	})
}

// normalizeImage expands a short image reference like containerd does
// (nginx -> docker.io/library/nginx:latest).
func normalizeImage(img string) string {
	if first := strings.Split(img, "/")[0]; !strings.Contains(first, ".") && !strings.Contains(first, ":") && first != "localhost" {
		if !strings.Contains(img, "/") {
			img = "library/" + img
		}
		img = "docker.io/" + img
	}
	if !strings.Contains(img[strings.LastIndex(img, "/")+1:], ":") && !strings.Contains(img, "@") {
		img += ":latest"
	}
	return img
}

// The real containerd daemon. On a test host whose machine has Debian's
// containerd package, systemctl starts /usr/bin/containerd in the
// background (no systemd here: its own session, output appended to
// containerdLog) and is-active asks whether that process still runs.
const (
	realContainerdBin = "/usr/bin/containerd"
	containerdPidFile = "/run/containerd/cp-hostsim-containerd.pid"
	containerdLog     = "/var/log/containerd.log"
	containerdConfig  = "/etc/containerd/config.toml"
)

// realContainerd reports whether containerd runs for real here: inside a
// host (root "/") with the real binary, not a link to the simulator.
func (s *sim) realContainerd() bool {
	if s.root != "/" {
		return false
	}
	fi, err := os.Lstat(realContainerdBin)
	return err == nil && fi.Mode().IsRegular()
}

// containerdPid returns the pid of the running real daemon (0 when none).
func (s *sim) containerdPid() int {
	b, err := os.ReadFile(containerdPidFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !strings.HasPrefix(string(cmdline), realContainerdBin+"\x00") {
		return 0
	}
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// A zombie (state Z after the pid's "(comm)") no longer runs.
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i:]), ") Z") {
			return 0
		}
	}
	return pid
}

// stopContainerd ends the real daemon: SIGTERM, then SIGKILL after 10s.
func (s *sim) stopContainerd() {
	pid := s.containerdPid()
	if pid == 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && s.containerdPid() == pid; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if s.containerdPid() == pid {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		time.Sleep(200 * time.Millisecond)
	}
	_ = os.Remove(containerdPidFile)
}

// spawnContainerd starts the real daemon with the host's config in its
// own session, replacing a running one, and returns why it could not
// ("" when it started). awaitContainerd then waits, outside the state
// lock (containerd runs modprobe, the simulator's), until it answers on
// its socket as systemd waits for Type=notify.
func (s *sim) spawnContainerd() string {
	s.stopContainerd()
	if err := os.MkdirAll(filepath.Dir(containerdPidFile), 0o711); err != nil {
		return fmt.Sprintf("cp-hostsim: create %s: %v", filepath.Dir(containerdPidFile), err)
	}
	logf, err := os.OpenFile(containerdLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Sprintf("cp-hostsim: open %s: %v", containerdLog, err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Sprintf("cp-hostsim: open %s: %v", os.DevNull, err)
	}
	defer devnull.Close()
	args := []string{realContainerdBin}
	if _, err := os.Stat(containerdConfig); err == nil {
		args = append(args, "--config", containerdConfig)
	}
	proc, err := os.StartProcess(realContainerdBin, args, &os.ProcAttr{
		Dir:   "/",
		Env:   []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		Files: []*os.File{devnull, logf, logf},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return fmt.Sprintf("cp-hostsim: start %s: %v", realContainerdBin, err)
	}
	if err := os.WriteFile(containerdPidFile, []byte(strconv.Itoa(proc.Pid)+"\n"), 0o644); err != nil {
		_ = proc.Kill()
		return fmt.Sprintf("cp-hostsim: write %s: %v", containerdPidFile, err)
	}
	s.containerd = proc
	return ""
}

func (s *sim) awaitContainerd() string {
	proc := s.containerd
	if proc == nil {
		return "cp-hostsim: containerd was not started"
	}
	// Reap the child if it exits while we wait; afterwards it belongs to
	// init once this process ends.
	exited := make(chan struct{})
	go func() { _, _ = proc.Wait(); close(exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			_ = os.Remove(containerdPidFile)
			return "containerd exited at start:\n" + logTail(containerdLog, 10)
		default:
		}
		if c, err := net.Dial("unix", ctrSocket); err == nil {
			_ = c.Close()
			return ""
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stopContainerd()
	return "containerd did not answer on " + ctrSocket + " within 20s:\n" + logTail(containerdLog, 10)
}

// logTail returns the last n lines of a file.
func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
