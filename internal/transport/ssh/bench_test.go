package ssh

import (
	"context"
	"fmt"
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
// connection. The remote side forks the login shell and `sh -c`, which
// costs what it costs on the machine; local-spawn-p50-ms is the same
// `sh -c 'exec sh -c true'` spawned locally, so overhead-p50-ms is the
// time the SSH round trip adds on top of the remote process work.
func BenchmarkRunTrue(b *testing.B) {
	e := newEnv(b, sshdOptions{})
	p := newPool(b, Options{}, e.host("h1"))
	c := dial(b, p, "h1")
	ctx := context.Background()
	mustRun(b, c, transport.Command{Cmd: "true"})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := time.Now()
		res, err := c.Run(ctx, transport.Command{Cmd: "true"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res.ExitCode)
		}
		lat = append(lat, time.Since(st))
	}
	b.StopTimer()
	local := make([]time.Duration, 0, 50)
	for i := 0; i < 50; i++ {
		st := time.Now()
		if err := exec.Command("sh", "-c", "exec sh -c true").Run(); err != nil {
			b.Fatal(err)
		}
		local = append(local, time.Since(st))
	}
	p50, p99, l50 := percentile(lat, 0.5), percentile(lat, 0.99), percentile(local, 0.5)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(l50), "local-spawn-p50-ms")
	b.ReportMetric(ms(p50-l50), "overhead-p50-ms")
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
// a cold start (connections included): with this package's Pool, and with
// the OpenSSH client multiplexing through ControlMaster=auto and
// ControlPersist. bench/bench-transport.sh prints the ratio.
func BenchmarkFanOut(b *testing.B) {
	f := startFanOut(b)
	const cmd = "echo ok"
	b.Run("cp", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var hosts []Host
			for j, s := range f.servers {
				hosts = append(hosts, Host{
					Name: "h" + strconv.Itoa(j), Address: s.listenAddr, Port: s.port, User: nopwUser,
					Auth: Auth{PrivateKeyPath: f.key.path}, HostKey: HostKeyCheck{KnownHostsFile: f.knownHosts},
				})
			}
			p, err := NewPool(Options{}, hosts...)
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
	})
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
				return append([]string{"-F", "/dev/null", "-i", f.key.path, "-p", strconv.Itoa(s.port),
					"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + f.knownHosts,
					"-o", "ControlMaster=auto", "-o", "ControlPersist=60", "-o", "ControlPath=" + ctlDir + "/%h-%p",
					"-o", "LogLevel=ERROR", "-l", nopwUser, s.listenAddr}, extra...)
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
