package provider

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// lockCluster is a one-master, one-worker cluster on the test hosts.
func lockCluster(c *testhosts.Cluster, name, extra string) string {
	return accProvider(c, "") + `
resource "cp_kubernetes_cluster" "k" {
  name    = "` + name + `"
  storage = "none"
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1") + `
  ` + extra + `
}
`
}

// lockTofuRun is newTofuRun, with the provider built from
// CP_ACC_LOCK_PROVIDER_SRC when set (another checkout, to measure how an
// earlier provider behaves; the assertions are this one's).
func lockTofuRun(t *testing.T, config string) *tofuRun {
	r := newTofuRun(t, config)
	if src := os.Getenv("CP_ACC_LOCK_PROVIDER_SRC"); src != "" {
		build := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(r.dir), "plugins", "terraform-provider-cp"), ".")
		build.Dir = src
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build the provider from %s: %v\n%s", src, err, out)
		}
		t.Logf("provider built from %s", src)
	}
	return r
}

// hostJobProcs lists the live processes of a test host (same root) whose
// environment names one of the engine's run directories: job scripts and
// what they started.
func hostJobProcs(t *testing.T, c *testhosts.Cluster, host string) []int {
	t.Helper()
	rp, err := c.RootPath(host)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.Readlink(rp)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("CP_RUN_DIR=/var/lib/cp/run/")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if r, err := os.Readlink("/proc/" + d.Name() + "/root"); err != nil || r != root {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) || procState(pid) == "Z" {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// procState is a process's state letter ("" when it is gone); procParent
// its parent's pid.
func procState(pid int) string {
	f := procStat(pid)
	if len(f) < 1 {
		return ""
	}
	return f[0]
}

func procParent(pid int) int {
	f := procStat(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// procStat is /proc/PID/stat after the command name.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range entries {
		n, err := strconv.Atoi(d.Name())
		if err == nil && procParent(n) == pid {
			out = append(out, n)
		}
	}
	return out
}

// simTimes returns the times of the simulator log lines of a host that
// match re.
func simTimes(t *testing.T, c *testhosts.Cluster, host string, re *regexp.Regexp) []time.Time {
	lines, err := c.SimLog(host)
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Time
	for _, l := range lines {
		if !re.MatchString(l) {
			continue
		}
		ts, _, _ := strings.Cut(l, " ")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("simulator log line %q: %v", l, err)
		}
		out = append(out, at)
	}
	return out
}

// startApply starts `apply -auto-approve`, its output into out.
func startApply(t *testing.T, r *tofuRun, ctx context.Context, log string, out *bytes.Buffer) (*exec.Cmd, <-chan error) {
	t.Helper()
	cmd := r.cmd(ctx, log, "apply", "-auto-approve")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done
}

// waitSim waits until the simulator log of host has a line matching re.
func waitSim(t *testing.T, c *testhosts.Cluster, host string, re *regexp.Regexp, done <-chan error, out *bytes.Buffer) {
	t.Helper()
	for end := time.Now().Add(5 * time.Minute); ; {
		if len(simTimes(t, c, host, re)) > 0 {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the apply ended (err %v) before %s ran on %s\n%s", err, re, host, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatalf("%s did not run on %s within 5m", re, host)
		}
	}
}

var (
	kubeadmInit = regexp.MustCompile(`kubeadm init --config`)
	tokenCreate = regexp.MustCompile(`kubeadm token create`)
	uploadCerts = regexp.MustCompile(`kubeadm init phase upload-certs`)
)

// A second apply of the same cluster from another working directory (its
// own state, as a second CI runner would have) while the first runs is
// refused: the error names the holder's operation, actor, user, machine
// and pid and how old its lock and lease are, and the second apply runs
// nothing. The first then completes.
func TestAccLock_concurrentApplyRefusedWithHolder(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "lockpair", "master-1", "worker-1")
	must(t, c.SetFault(hostsim.Fault{Kind: hostsim.FaultSlow, Host: "master-1", Command: "kubeadm init", Delay: 25 * time.Second}))
	first := lockTofuRun(t, lockCluster(c, "lockpair", ""))
	second := lockTofuRun(t, lockCluster(c, "lockpair", `timeouts = { create = "8s" }`))
	logs := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var out1 bytes.Buffer
	_, done1 := startApply(t, first, ctx, filepath.Join(logs, "first.log"), &out1)
	waitSim(t, c, "master-1", kubeadmInit, done1, &out1)
	before := snapshotMarkers(t, c, "master-1", "worker-1")
	simBefore, _ := c.SimLog("master-1")

	out2, err := second.cmd(ctx, filepath.Join(logs, "second.log"), "apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the second apply succeeded beside the first:\n%s", out2)
	}
	t.Logf("second apply refused:\n%s", out2)
	text := strings.Join(strings.Fields(string(out2)), " ") // the CLI wraps long lines
	host, _ := os.Hostname()
	for _, re := range []string{
		`kubernetes\.cluster lockpair: host master-1 is locked by operation \S+ on kubernetes\.cluster lockpair`,
		`of actor ci, root@` + regexp.QuoteMeta(host) + ` pid [0-9]+`,
		`started [0-9]+s ago, lease renewed [0-9]+s ago`,
		`waited [0-9]+s`,
		`Wait for that operation to end and apply again`,
		`none of its jobs ran`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("second apply's error does not match %q:\n%s", re, out2)
		}
	}
	if simNow, _ := c.SimLog("master-1"); len(simNow) != len(simBefore) {
		t.Errorf("the refused apply ran commands on master-1: %v", simNow[len(simBefore):])
	}
	for name, content := range before {
		if now, err := os.ReadFile(name); err != nil || !bytes.Equal(now, content) {
			t.Errorf("marker %s changed while the second apply was refused", filepath.Base(name))
		}
	}

	if err := <-done1; err != nil {
		t.Fatalf("first apply: %v\n%s", err, out1.String())
	}
	if !strings.Contains(out1.String(), "Apply complete!") {
		t.Fatalf("first apply got:\n%s", out1.String())
	}
	for _, re := range []*regexp.Regexp{tokenCreate, uploadCerts} {
		if n := countSim(t, c, "master-1", re); n != 1 {
			t.Errorf("master-1 ran %q %d times, want once", re, n)
		}
	}
}

// kill -9 of the CLI (only the CLI: its provider lives on) in the middle
// of init-control-plane, then an immediate re-apply. The orphaned provider
// sees its parent gone, TERMs its jobs on the hosts, releases its locks
// and exits; the re-apply waits for the lock, so no job runs beside its
// killed twin: kubeadm init starts again only after the killed run's job
// processes are gone, token create and upload-certs run once, and no job
// that finished before the kill runs again.
func TestAccLock_killedCLIStopsJobsAndReapplyRunsNothingTwice(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "lockkill", "master-1", "worker-1")
	must(t, c.SetFault(hostsim.Fault{Kind: hostsim.FaultSlow, Host: "master-1", Command: "kubeadm init", Delay: 40 * time.Second}))
	r := lockTofuRun(t, lockCluster(c, "lockkill", ""))
	logs := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var out1 bytes.Buffer
	first, done1 := startApply(t, r, ctx, filepath.Join(logs, "apply1.log"), &out1)
	waitSim(t, c, "master-1", kubeadmInit, done1, &out1)
	if n := len(hostJobProcs(t, c, "master-1")); n == 0 {
		t.Fatal("no job process on master-1 while kubeadm init runs: the measurement would be empty")
	}
	providers := childrenOf(first.Process.Pid)
	if len(providers) == 0 {
		t.Fatal("found no provider process under the CLI")
	}
	killedMarkers := snapshotMarkers(t, c, "master-1", "worker-1")

	killedAt := time.Now()
	must(t, first.Process.Signal(syscall.SIGKILL)) // the CLI only, as kill -9 <pid> does
	<-done1
	must(t, c.ClearFaults(hostsim.FaultSlow, "master-1"))

	// Watch the killed run's processes while the re-apply starts at once.
	type gone struct{ jobs, provider time.Duration }
	watched := make(chan gone, 1)
	go func() {
		var g gone
		for g.jobs == 0 || g.provider == 0 {
			if g.jobs == 0 && len(hostJobProcs(t, c, "master-1"))+len(hostJobProcs(t, c, "worker-1")) == 0 {
				g.jobs = time.Since(killedAt)
			}
			if g.provider == 0 {
				alive := false
				for _, p := range providers {
					if s := procState(p); s != "" && s != "Z" {
						alive = true
					}
				}
				if !alive {
					g.provider = time.Since(killedAt)
				}
			}
			if time.Since(killedAt) > 90*time.Second {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		watched <- g
	}()
	var out2 bytes.Buffer
	_, done2 := startApply(t, r, ctx, filepath.Join(logs, "apply2.log"), &out2)
	if err := <-done2; err != nil {
		t.Fatalf("re-apply: %v\n%s", err, out2.String())
	}
	if !strings.Contains(out2.String(), "Apply complete!") {
		t.Fatalf("re-apply got:\n%s", out2.String())
	}
	g := <-watched
	t.Logf("after kill -9 of the CLI: last remote job process gone after %s, the provider process after %s", g.jobs, g.provider)
	for _, p := range providers {
		_ = syscall.Kill(p, syscall.SIGKILL) // whatever lives on, for the cleanup
	}
	if g.jobs == 0 || g.jobs > 5*time.Second {
		t.Errorf("the killed run's job processes on the hosts were gone after %s; want within 5s of the kill", g.jobs)
	}
	if g.provider == 0 || g.provider > 30*time.Second {
		t.Errorf("the orphaned provider exited after %s; want within 30s of the kill", g.provider)
	}

	inits := simTimes(t, c, "master-1", kubeadmInit)
	if len(inits) != 2 {
		t.Fatalf("kubeadm init ran %d times on master-1; want twice (killed, then the re-apply)", len(inits))
	}
	if jobsGone := killedAt.Add(g.jobs); inits[1].Before(jobsGone) {
		t.Errorf("the re-apply started kubeadm init at %s, before the killed run's jobs were gone (%s): they ran side by side", inits[1].Format(time.RFC3339Nano), jobsGone.Format(time.RFC3339Nano))
	}
	for _, re := range []*regexp.Regexp{tokenCreate, uploadCerts} {
		if n := countSim(t, c, "master-1", re); n != 1 {
			t.Errorf("master-1 ran %q %d times, want once", re, n)
		}
	}
	for name, content := range killedMarkers {
		if now, err := os.ReadFile(name); err != nil || !bytes.Equal(now, content) {
			t.Errorf("marker %s written before the kill changed: a finished job ran again", filepath.Base(name))
		}
	}
	if len(killedMarkers) < 3 {
		t.Errorf("only %d markers before the kill: the kill came too early to show finished jobs are kept", len(killedMarkers))
	}
	// The lock is released on every host.
	for _, h := range []string{"master-1", "worker-1"} {
		hh, _ := c.Host(h)
		if _, err := os.Stat(filepath.Join(hh.Upper, "var/lib/cp/lock/held")); !os.IsNotExist(err) {
			t.Errorf("%s: lock left after the re-apply: %v", h, err)
		}
	}
}
