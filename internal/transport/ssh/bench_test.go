package ssh

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkRunTrue measures one short command (`true`) on a reused
// connection, p50 and p99, as the pool runs it by default: in a shell (see
// the package documentation). Beside it, on the same sshd and connection,
// it reports what no client can avoid and what other ways cost:
//   - bare-echo-p50-ms: one line sent to a running session (`cat`) and
//     read back with bare x/crypto/ssh: a round trip through sshd;
//   - overhead-p50-ms: p50 minus that, what this package adds (session
//     slot, request framing, output capture, the subshell on the host);
//   - session-p50-ms, session-p99-ms: the command in a session of its own
//     (Options.SessionPerCommand), and bare-session-p50-ms, a bare
//     x/crypto/ssh session running `true` (channel open, sshd forking the
//     session and the login shell); session-overhead-p50-ms is their
//     difference (the `exec sh -c` that gives every command POSIX sh
//     semantics whatever the login shell);
//   - loginsh-p50-ms: a session per command with Host.LoginShellSh (the
//     fixture's users log in to /bin/sh), without the `exec sh -c`;
//   - openssh-mux-p50-ms: `ssh true` through an OpenSSH ControlMaster
//     already connected (when the client is installed);
//   - local-spawn-p50-ms: `sh -c 'exec sh -c true'` spawned locally, the
//     cost of the processes alone on this machine.
func BenchmarkRunTrue(b *testing.B) {
	e := newEnv(b, sshdOptions{})
	direct := e.host("h2")
	direct.LoginShellSh = true
	p := newPool(b, Options{}, e.host("h1"))
	ps := newPool(b, Options{SessionPerCommand: true}, e.host("h1"), direct)
	c := dial(b, p, "h1")
	ctx := context.Background()
	timeTrue := func(c *conn, n int) []time.Duration {
		mustRun(b, c, transport.Command{Cmd: "true"})
		lat := make([]time.Duration, 0, n)
		for i := 0; i < n; i++ {
			st := time.Now()
			res, err := c.Run(ctx, transport.Command{Cmd: "true"})
			if err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.ExitCode)
			}
			lat = append(lat, time.Since(st))
		}
		return lat
	}
	b.ResetTimer()
	lat := timeTrue(c, b.N)
	b.StopTimer()
	sc := dial(b, ps, "h1")
	session := timeTrue(sc, b.N)
	loginSh := timeTrue(dial(b, ps, "h2"), b.N)
	cl, err := ps.client(ctx, sc.e)
	if err != nil {
		b.Fatal(err)
	}
	bare := make([]time.Duration, 0, 100)
	for i := 0; i < 100; i++ {
		st := time.Now()
		sess, err := cl.c.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if err := sess.Run("true"); err != nil {
			b.Fatal(err)
		}
		_ = sess.Close()
		bare = append(bare, time.Since(st))
	}
	echo := bareEcho(b, cl, 200)
	local := make([]time.Duration, 0, 50)
	for i := 0; i < 50; i++ {
		st := time.Now()
		if err := exec.Command("sh", "-c", "exec sh -c true").Run(); err != nil {
			b.Fatal(err)
		}
		local = append(local, time.Since(st))
	}
	p50, s50, b50, e50 := percentile(lat, 0.5), percentile(session, 0.5), percentile(bare, 0.5), percentile(echo, 0.5)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 0.99)), "p99-ms")
	b.ReportMetric(ms(e50), "bare-echo-p50-ms")
	b.ReportMetric(ms(p50-e50), "overhead-p50-ms")
	b.ReportMetric(ms(s50), "session-p50-ms")
	b.ReportMetric(ms(percentile(session, 0.99)), "session-p99-ms")
	b.ReportMetric(ms(b50), "bare-session-p50-ms")
	b.ReportMetric(ms(s50-b50), "session-overhead-p50-ms")
	b.ReportMetric(ms(percentile(loginSh, 0.5)), "loginsh-p50-ms")
	b.ReportMetric(ms(percentile(local, 0.5)), "local-spawn-p50-ms")
	if mux := opensshMux(b, e); len(mux) > 0 {
		b.ReportMetric(ms(percentile(mux, 0.5)), "openssh-mux-p50-ms")
	}
}

// bareEcho times n round trips of one line through a session running
// `cat`, with bare x/crypto/ssh.
func bareEcho(b *testing.B, cl *client, n int) []time.Duration {
	sess, err := cl.c.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	in, err := sess.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := sess.Start("cat"); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 2)
	d := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		st := time.Now()
		if _, err := in.Write([]byte("x\n")); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(out, buf); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(st))
	}
	_ = in.Close()
	return d
}

// opensshMux times `ssh true` through a ControlMaster that is already
// connected to e's sshd.
func opensshMux(b *testing.B, e *env) []time.Duration {
	if _, err := exec.LookPath("ssh"); err != nil {
		return nil
	}
	ctl := filepath.Join(b.TempDir(), "ctl")
	args := func(extra ...string) []string {
		return muxArgs(e.key.path, e.server.knownHosts, ctl, e.server, extra...)
	}
	if out, err := exec.Command("ssh", args("true")...).CombinedOutput(); err != nil {
		b.Fatalf("ssh through a ControlMaster: %v\n%s", err, out)
	}
	defer func() { _ = exec.Command("ssh", args("-O", "exit")...).Run() }()
	var d []time.Duration
	for i := 0; i < 100; i++ {
		st := time.Now()
		if err := exec.Command("ssh", args("true")...).Run(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(st))
	}
	return d
}

// fanOut is a set of sshd instances on 127.0.0.2, 127.0.0.3, ...
type fanOut struct {
	key        keypair
	servers    []*sshd
	knownHosts string
}

const (
	fanHosts    = 50
	fanCommands = 20
	fanParallel = 50
)

func startFanOut(b *testing.B) *fanOut {
	b.Helper()
	ensureUsers(b)
	f := &fanOut{key: newKey(b, b.TempDir(), "id_ed25519")}
	var lines []string
	for i := 0; i < fanHosts; i++ {
		s := startSSHD(b, sshdOptions{listen: fmt.Sprintf("127.0.0.%d", i+2), clientKeys: []gossh.PublicKey{f.key.pub}})
		f.servers = append(f.servers, s)
		lines = append(lines, knownhosts.Line([]string{s.addr()}, s.hostKey.pub))
	}
	f.knownHosts = filepath.Join(b.TempDir(), "known_hosts")
	if err := os.WriteFile(f.knownHosts, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return f
}

// jobs lists host indexes, command by command across all hosts, so the
// first wave touches every host once.
func fanJobs() []int {
	var jobs []int
	for c := 0; c < fanCommands; c++ {
		for h := 0; h < fanHosts; h++ {
			jobs = append(jobs, h)
		}
	}
	return jobs
}

func runParallel(b *testing.B, jobs []int, do func(host int) error) {
	ch := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < fanParallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range ch {
				if err := do(h); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
}

// BenchmarkFanOut runs 20 commands on each of 50 hosts, 50 at a time, from
// a cold start (connections included): with this package's Pool (its
// shells, then a session per command), and with the OpenSSH client multiplexing through ControlMaster=auto and
// ControlPersist. bench/bench-transport.sh prints the ratio.
func BenchmarkFanOut(b *testing.B) {
	f := startFanOut(b)
	const cmd = "echo ok"
	cp := func(b *testing.B, opts Options) {
		for i := 0; i < b.N; i++ {
			var hosts []Host
			for j, s := range f.servers {
				hosts = append(hosts, Host{
					Name: "h" + strconv.Itoa(j), Address: s.listenAddr, Port: s.port, User: nopwUser,
					Auth: Auth{PrivateKeyPath: f.key.path}, HostKey: HostKeyCheck{KnownHostsFile: f.knownHosts},
				})
			}
			p, err := NewPool(opts, hosts...)
			if err != nil {
				b.Fatal(err)
			}
			runParallel(b, fanJobs(), func(h int) error {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				c, err := p.Dial(ctx, "h"+strconv.Itoa(h))
				if err != nil {
					return err
				}
				res, err := c.Run(ctx, transport.Command{Cmd: cmd})
				if err == nil && string(res.Stdout) != "ok\n" {
					err = fmt.Errorf("got %q", res.Stdout)
				}
				return err
			})
			p.Close()
		}
	}
	b.Run("cp", func(b *testing.B) { cp(b, Options{}) })
	b.Run("cp-session-per-command", func(b *testing.B) { cp(b, Options{SessionPerCommand: true}) })
	b.Run("openssh", func(b *testing.B) {
		if _, err := exec.LookPath("ssh"); err != nil {
			b.Skip("no OpenSSH client")
		}
		for i := 0; i < b.N; i++ {
			ctlDir, err := os.MkdirTemp("", "cp-bench-ctl")
			if err != nil {
				b.Fatal(err)
			}
			args := func(s *sshd, extra ...string) []string {
				return muxArgs(f.key.path, f.knownHosts, ctlDir+"/%h-%p", s, extra...)
			}
			runParallel(b, fanJobs(), func(h int) error {
				out, err := exec.Command("ssh", args(f.servers[h], cmd)...).Output()
				if err == nil && string(out) != "ok\n" {
					err = fmt.Errorf("got %q", out)
				}
				return err
			})
			b.StopTimer()
			for _, s := range f.servers { // end the ControlPersist masters
				_ = exec.Command("ssh", args(s, "-O", "exit")...).Run()
			}
			os.RemoveAll(ctlDir)
			b.StartTimer()
		}
	})
}

// muxArgs are the OpenSSH client arguments for server s through a
// ControlMaster at controlPath (started on first use, kept 60 s).
func muxArgs(key, knownHosts, controlPath string, s *sshd, extra ...string) []string {
	return append([]string{"-F", "/dev/null", "-i", key, "-p", strconv.Itoa(s.port),
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
		"-o", "ControlMaster=auto", "-o", "ControlPersist=60", "-o", "ControlPath=" + controlPath,
		"-o", "LogLevel=ERROR", "-l", nopwUser, s.listenAddr}, extra...)
}
