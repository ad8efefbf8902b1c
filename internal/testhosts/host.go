package testhosts

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Host is one running test host as a client sees it.
type Host struct {
	Name           string `json:"name"`
	Addr           string `json:"address"`
	Port           int    `json:"port"`
	User           string `json:"user"`
	KeyPath        string `json:"key_path"`
	KnownHostsPath string `json:"known_hosts_path"`
	// Upper is the host's overlay upper directory: a file written on the
	// host at /etc/x is at Upper+"/etc/x" (until it is deleted there).
	Upper string `json:"upper"`
}

// Target is "addr:port" for dialing.
func (h Host) Target() string { return fmt.Sprintf("%s:%d", h.Addr, h.Port) }

// ClientConfig returns an x/crypto/ssh client configuration that logs in
// as h.User with the harness key and checks the host key against the
// harness known_hosts.
func (h Host) ClientConfig() (*ssh.ClientConfig, error) {
	pem, err := os.ReadFile(h.KeyPath)
	if err != nil {
		return nil, fmt.Errorf("client config for host %s: read key: %w", h.Name, err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		return nil, fmt.Errorf("client config for host %s: parse key %s: %w", h.Name, h.KeyPath, err)
	}
	cb, err := knownhosts.New(h.KnownHostsPath)
	if err != nil {
		return nil, fmt.Errorf("client config for host %s: read known_hosts %s: %w", h.Name, h.KnownHostsPath, err)
	}
	return &ssh.ClientConfig{
		User:            h.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: cb,
		Timeout:         10 * time.Second,
	}, nil
}

// hostDirs are a host's paths on the machine.
type hostDirs struct {
	root, upper, work, merged, control, log, state string
}

func newHostDirs(clusterDir, name string) hostDirs {
	r := filepath.Join(clusterDir, "hosts", name)
	return hostDirs{
		root:    r,
		upper:   filepath.Join(r, "upper"),
		work:    filepath.Join(r, "work"),
		merged:  filepath.Join(r, "merged"),
		control: filepath.Join(r, "control"),
		log:     filepath.Join(r, "sshd.log"),
		state:   filepath.Join(r, "state.json"),
	}
}

// hostProc is the harness's handle on one host's sshd.
type hostProc struct {
	name string
	addr netip.Addr
	port int
	dirs hostDirs

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	ns      string // mount namespace of the host's processes
	started time.Duration
	frozen  bool
}

// hostState is written to hostDirs.state so a later run (or `cp-testhosts
// down`) can find and end the processes of a crashed run.
type hostState struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	NS   string `json:"mount_namespace"`
}

func writeHostState(h *hostProc) error {
	b, _ := json.Marshal(hostState{Name: h.name, PID: h.cmd.Process.Pid, NS: h.ns})
	if err := os.WriteFile(h.dirs.state, b, 0o644); err != nil {
		return fmt.Errorf("write host state %s: %w", h.dirs.state, err)
	}
	return nil
}

// running reports whether the listening sshd is alive; h.mu is held.
func (h *hostProc) running() bool {
	if h.done == nil {
		return false
	}
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

// pid of the listening sshd, 0 when not running; h.mu is held.
func (h *hostProc) pid() int {
	if !h.running() {
		return 0
	}
	return h.cmd.Process.Pid
}

// killLocked SIGKILLs the listener and every process of the host.
func (h *hostProc) killLocked() {
	if h.cmd != nil && h.running() {
		_ = h.cmd.Process.Signal(syscall.SIGKILL)
	}
	killNS(h.ns)
	if h.done != nil {
		<-h.done
	}
	h.frozen = false
}

// stopLocked ends the host gracefully: SIGTERM to the listener, then to
// the sessions; what is still alive after grace is killed.
func (h *hostProc) stopLocked(grace time.Duration) {
	if h.frozen {
		signalAll(procsInNS(h.ns), syscall.SIGCONT)
		h.frozen = false
	}
	if h.cmd != nil && h.running() {
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.done:
		case <-time.After(grace):
		}
	}
	if pids := procsInNS(h.ns); len(pids) > 0 {
		signalAll(pids, syscall.SIGTERM)
		waitGone(pids, int(grace/time.Millisecond))
	}
	h.killLocked()
}
