package ssh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The fixture runs the real OpenSSH sshd from a generated sshd_config, like
// golang.org/x/crypto/ssh/test does. It needs root (to log in as other
// users and to create the sudo test users). Without sshd or root the tests
// skip, except under CI=true, where they fail.

const (
	sshdPath = "/usr/sbin/sshd"
	// Test users: pwUser has a password and needs it for sudo; nopwUser has
	// no password (key only) and passwordless sudo.
	pwUser     = "cpt-pw"
	pwPassword = "Pw-s3cret-'quoted' $(x) `y`"
	nopwUser   = "cpt-nopw"
)

func requireSSHD(t testing.TB) {
	t.Helper()
	var why string
	if _, err := os.Stat(sshdPath); err != nil {
		why = "sshd is not installed (apt-get install -y openssh-server sudo)"
	} else if os.Geteuid() != 0 {
		why = "the sshd fixture needs root"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run the sshd fixture: %s", why)
	}
	t.Skipf("cannot run the sshd fixture: %s", why)
}

// keypair is a client or host key.
type keypair struct {
	path   string // private key file, OpenSSH PEM
	pem    []byte
	signer gossh.Signer
	pub    gossh.PublicKey
}

func newKey(t testing.TB, dir, name string) keypair {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, name)
	if err != nil {
		t.Fatal(err)
	}
	data := pem.EncodeToMemory(block)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return keypair{path: path, pem: data, signer: signer, pub: signer.PublicKey()}
}

// sshd is one running OpenSSH server.
type sshd struct {
	t          testing.TB
	dir        string
	cfgPath    string
	listenAddr string
	port       int
	hostKey    keypair
	knownHosts string // a known_hosts file holding hostKey for this address

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *logFile
}

// logFile is sshd's stderr. A file, not a pipe: processes sshd forked
// inherit it, and a pipe would keep Wait waiting for them.
type logFile struct{ path string }

func (l *logFile) String() string {
	b, _ := os.ReadFile(l.path)
	return string(b)
}

type sshdOptions struct {
	listen     string // default 127.0.0.1
	clientKeys []gossh.PublicKey
	extra      []string // more sshd_config lines
	logLevel   string   // default from CP_TEST_SSHD_LOGLEVEL or ERROR
}

func freePort(t testing.TB, ip string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startSSHD(t testing.TB, o sshdOptions) *sshd {
	t.Helper()
	requireSSHD(t)
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // privilege separation directory
		t.Fatal(err)
	}
	if o.listen == "" {
		o.listen = "127.0.0.1"
	}
	if o.logLevel == "" {
		o.logLevel = os.Getenv("CP_TEST_SSHD_LOGLEVEL")
	}
	if o.logLevel == "" {
		o.logLevel = "ERROR"
	}
	dir := t.TempDir()
	// sshd reads authorized_keys as the logging-in user.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &sshd{t: t, dir: dir, listenAddr: o.listen, port: freePort(t, o.listen)}
	s.hostKey = newKey(t, dir, "host_ed25519")
	var ak bytes.Buffer
	for _, k := range o.clientKeys {
		ak.Write(gossh.MarshalAuthorizedKey(k))
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ak.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := []string{
		"ListenAddress " + net.JoinHostPort(o.listen, strconv.Itoa(s.port)),
		"HostKey " + s.hostKey.path,
		"PidFile none",
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"StrictModes no",
		"UsePAM no",
		"PermitRootLogin yes",
		"PubkeyAuthentication yes",
		"PasswordAuthentication yes",
		"KbdInteractiveAuthentication no",
		"MaxStartups 200",
		"MaxSessions 10",
		"UseDNS no",
		"LogLevel " + o.logLevel,
	}
	cfg = append(cfg, o.extra...)
	s.cfgPath = filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(s.cfgPath, []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.knownHosts = filepath.Join(dir, "known_hosts")
	s.writeKnownHosts(s.knownHosts, s.hostKey.pub)
	s.start()
	t.Cleanup(func() {
		s.thaw()
		s.stop()
		if t.Failed() {
			t.Logf("sshd %s stderr:\n%s", s.addr(), s.stderr.String())
		}
	})
	return s
}

func (s *sshd) addr() string { return net.JoinHostPort(s.listenAddr, strconv.Itoa(s.port)) }

func (s *sshd) writeKnownHosts(path string, key gossh.PublicKey) {
	line := knownhosts.Line([]string{s.addr()}, key) + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// start runs sshd and waits until it accepts connections.
func (s *sshd) start() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", s.cfgPath)
	s.stderr = &logFile{path: filepath.Join(s.dir, fmt.Sprintf("sshd-%d.log", time.Now().UnixNano()))}
	f, err := os.Create(s.stderr.path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	cmd.Stderr = f
	cmd.Stdout = f
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting sshd: %v", err)
	}
	s.cmd = cmd
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr(), 200*time.Millisecond)
		if err == nil {
			c.Close()
			s.exited = exited
			return
		}
		select {
		case <-exited:
			s.t.Fatalf("sshd exited at start: %s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("sshd did not listen on %s: %s", s.addr(), s.stderr.String())
		}
	}
}

// children lists the processes sshd started (one per connection).
func (s *sshd) children() []int {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	return childrenOf(cmd.Process.Pid)
}

// childrenOf returns the pids whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// descendantsOf returns every process below pid.
func descendantsOf(pid int) []int {
	var out []int
	for _, c := range childrenOf(pid) {
		out = append(out, c)
		out = append(out, descendantsOf(c)...)
	}
	return out
}

// signalAll signals the listener and every process below it (the
// privileged monitor and the network process of each connection).
func (s *sshd) signalAll(sig syscall.Signal) {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	for _, c := range descendantsOf(cmd.Process.Pid) {
		_ = syscall.Kill(c, sig)
	}
	_ = syscall.Kill(cmd.Process.Pid, sig)
}

// freeze stops sshd and its connections with SIGSTOP; thaw resumes them.
func (s *sshd) freeze() { s.signalAll(syscall.SIGSTOP) }
func (s *sshd) thaw()   { s.signalAll(syscall.SIGCONT) }

// killConnections kills the per-connection sshd processes, cutting every
// connection mid-flight; the listener stays up.
func (s *sshd) killConnections() int {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	kids := descendantsOf(cmd.Process.Pid)
	for _, c := range kids {
		_ = syscall.Kill(c, syscall.SIGKILL)
	}
	return len(kids)
}

// stop ends sshd and its connections.
func (s *sshd) stop() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	for _, c := range descendantsOf(cmd.Process.Pid) {
		_ = syscall.Kill(c, syscall.SIGKILL)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// restartWithNewHostKey restarts sshd on the same address with a new host
// key (a reinstalled host, or an impostor).
func (s *sshd) restartWithNewHostKey() keypair {
	s.stop()
	old := s.hostKey.path
	nk := newKey(s.t, s.dir, fmt.Sprintf("host_ed25519_%d", time.Now().UnixNano()))
	cfg, err := os.ReadFile(s.cfgPath)
	if err != nil {
		s.t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("HostKey "+old+"\n"), []byte("HostKey "+nk.path+"\n"), 1)
	if err := os.WriteFile(s.cfgPath, cfg, 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.hostKey = nk
	s.start()
	return nk
}

// ensureUsers creates the test login users and their sudo rules once per
// machine (idempotent).
func ensureUsers(t testing.TB) {
	t.Helper()
	requireSSHD(t)
	if _, err := os.Stat("/usr/bin/sudo"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sudo is not installed")
		}
		t.Skip("sudo is not installed")
	}
	run := func(name string, args ...string) {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", name, args, err, out)
		}
	}
	for _, u := range []string{pwUser, nopwUser} {
		if exec.Command("id", u).Run() != nil {
			run("useradd", "-M", "-d", "/tmp", "-s", "/bin/sh", u)
		}
	}
	cp := exec.Command("chpasswd")
	cp.Stdin = strings.NewReader(pwUser + ":" + pwPassword + "\n")
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v: %s", err, out)
	}
	run("usermod", "-p", "*", nopwUser) // no password, not locked: key login allowed
	rules := fmt.Sprintf("%s ALL=(ALL:ALL) ALL\n%s ALL=(ALL:ALL) NOPASSWD: ALL\n", pwUser, nopwUser)
	if err := os.WriteFile("/etc/sudoers.d/cp-transport-test", []byte(rules), 0o440); err != nil {
		t.Fatal(err)
	}
}

// env is a test environment: a client key and one sshd accepting it.
type env struct {
	t      testing.TB
	key    keypair
	server *sshd
}

func newEnv(t testing.TB, o sshdOptions) *env {
	t.Helper()
	requireSSHD(t)
	ensureUsers(t)
	key := newKey(t, t.TempDir(), "id_ed25519")
	o.clientKeys = append(o.clientKeys, key.pub)
	return &env{t: t, key: key, server: startSSHD(t, o)}
}

// host returns a Host for the env's server, logging in with the key file
// as nopwUser (shell /bin/sh, passwordless sudo). Root's login shell may
// read a slow ~/.bashrc on this machine; the pack scripts run as a sudo
// user anyway.
func (e *env) host(name string) Host {
	return Host{
		Name:    name,
		Address: e.server.listenAddr,
		Port:    e.server.port,
		User:    nopwUser,
		Auth:    Auth{PrivateKeyPath: e.key.path},
		HostKey: HostKeyCheck{KnownHostsFile: e.server.knownHosts},
	}
}

func newPool(t testing.TB, opts Options, hosts ...Host) *Pool {
	t.Helper()
	p, err := NewPool(opts, hosts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t testing.TB, p *Pool, name string) *conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := p.Dial(ctx, name)
	if err != nil {
		t.Fatalf("dial %s: %v", name, err)
	}
	return c.(*conn)
}
