package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
	"github.com/intentops/terraform-provider-cp/internal/transport"
	cpssh "github.com/intentops/terraform-provider-cp/internal/transport/ssh"
)

// The fan-out bench of the issue: N hosts (CP_BENCH_HOSTS, 50), 20 short
// jobs per host, each with evidence, parallelism 50. It compares the
// engine's wall time with the ideal and with ansible-playbook running the
// same commands. Run it with internal/engine/bench/fanout.sh.

const fanoutJobs = 20

// fanoutWork is job k's work and its evidence, as shell text over the
// run directory $D.
func fanoutWork(k int) (script, evidence string) {
	return fmt.Sprintf(`mkdir -p "$D" && echo done >"$D/j%02d"`, k), fmt.Sprintf(`cat "$D/j%02d"`, k)
}

// fanoutPlan: on every host a chain j01 -> j02 -> ... -> j20 (like the
// tasks of a playbook), every job with one evidence.
func fanoutPlan(hosts []string, run string) (*protocol.Plan, map[string][]byte) {
	p := &protocol.Plan{ID: "fanout-" + run, Title: "fan-out bench"}
	scripts := map[string][]byte{}
	for _, h := range hosts {
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Role: protocol.RoleWorker})
	}
	var jobs []*protocol.Job
	for k := 1; k <= fanoutJobs; k++ {
		work, ev := fanoutWork(k)
		path := fmt.Sprintf("scripts/j%02d.sh", k)
		scripts[path] = []byte("#!/bin/sh\nset -e\nD=\"$CP_PARAM_DIR\"\n" + work + "\n")
		j := &protocol.Job{ID: fmt.Sprintf("j%02d", k), Title: fmt.Sprintf("job %d", k), Script: path,
			Outputs:  protocol.Outputs{Evidence: []protocol.Evidence{{ID: fmt.Sprintf("j%02d_done", k), Command: `D="$CP_PARAM_DIR"; ` + ev, Expected: "done"}}},
			Controls: protocol.Controls{Idempotency: protocol.Idempotency{Key: fmt.Sprintf("j%02d:{node_id}", k)}}}
		jobs = append(jobs, j)
	}
	for _, h := range hosts {
		prev := ""
		for _, j := range jobs {
			in := newInst(j, "fanout", h)
			in.Pack = "fanout@1.0.0"
			in.Params = map[string]string{"dir": "/var/tmp/cp-fanout/" + run}
			if prev != "" {
				in.Needs = []string{prev}
			}
			prev = in.ID
			p.Instances = append(p.Instances, in)
		}
	}
	return p, scripts
}

func fanoutPool(tb testing.TB, c *testhosts.Cluster) *cpssh.Pool {
	return fanoutPoolWith(tb, c, cpssh.Options{})
}

// fanoutPoolWith is fanoutPool with options (SessionPerCommand).
func fanoutPoolWith(tb testing.TB, c *testhosts.Cluster, opts cpssh.Options) *cpssh.Pool {
	var hosts []cpssh.Host
	for _, h := range c.Hosts() {
		hosts = append(hosts, cpssh.Host{Name: h.Name, Address: h.Addr, Port: h.Port, User: h.User,
			Auth: cpssh.Auth{PrivateKeyPath: h.KeyPath}, HostKey: cpssh.HostKeyCheck{KnownHostsFile: h.KnownHostsPath}})
	}
	p, err := cpssh.NewPool(opts, hosts...)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// machineCounters reads /proc/stat: the CPU time all processes used so
// far and the processes created since boot.
func machineCounters() (busy time.Duration, forks int64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 7 && f[0] == "cpu":
			for _, i := range []int{1, 2, 3, 6, 7} { // user nice system irq softirq
				n, _ := strconv.ParseInt(f[i], 10, 64)
				busy += time.Duration(n) * 10 * time.Millisecond // USER_HZ 100
			}
		case len(f) == 2 && f[0] == "processes":
			forks, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return busy, forks, nil
}

// costMeter measures what a phase cost the whole machine: CPU time and
// processes created.
type costMeter struct {
	busy  time.Duration
	forks int64
}

func startCost() costMeter { b, f, _ := machineCounters(); return costMeter{b, f} }

// perJob returns CPU milliseconds and processes per job since the start.
func (m costMeter) perJob(jobs int) (cpuMS, forks float64) {
	b, f, _ := machineCounters()
	return float64(b-m.busy) / float64(time.Millisecond) / float64(jobs), float64(f-m.forks) / float64(jobs)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// rawFanout runs every job's work plus evidence as one command per job
// (what a driver with no bookkeeping at all would send), per host in
// order, all hosts at once over a warm pool. It returns the wall time and
// every command's round trip.
func rawFanout(b testing.TB, pool *cpssh.Pool, hosts []string, run string) (time.Duration, []time.Duration) {
	return driveJobs(b, pool, hosts, func(k int) string {
		work, ev := fanoutWork(k)
		return "D=/var/tmp/cp-fanout/" + run + "; " + work + " && " + ev
	})
}

// driveJobs runs command(1..fanoutJobs) on every host in order, all hosts
// at once; each must print "done". It returns the wall time and every
// command's round trip.
func driveJobs(b testing.TB, pool *cpssh.Pool, hosts []string, command func(k int) string) (time.Duration, []time.Duration) {
	var mu sync.Mutex
	var rtts []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pool.Dial(context.Background(), h)
			if err != nil {
				b.Error(err)
				return
			}
			for k := 1; k <= fanoutJobs; k++ {
				t0 := time.Now()
				res, err := conn.Run(context.Background(), transport.Command{Cmd: command(k)})
				d := time.Since(t0)
				if err != nil || strings.TrimSpace(string(res.Stdout)) != "done" {
					b.Errorf("job %d on %s: %v %q %q", k, h, err, res.Stdout, res.Stderr)
					return
				}
				mu.Lock()
				rtts = append(rtts, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Since(start), rtts
}

// shipScripts uploads the job scripts to dir on every host (not timed).
func shipScripts(b *testing.B, pool *cpssh.Pool, hosts []string, scripts map[string][]byte, dir string) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pool.Dial(context.Background(), h)
			if err == nil {
				_, err = conn.Run(context.Background(), transport.Command{Cmd: "mkdir -p " + dir})
			}
			for k := 1; err == nil && k <= fanoutJobs; k++ {
				name := fmt.Sprintf("j%02d.sh", k)
				err = conn.Upload(context.Background(), transport.File{Path: dir + "/" + name, Content: scripts["scripts/"+name], Mode: 0o755})
			}
			if err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
}

// rawScriptFanout is rawFanout with each job's work run from its script
// file in dir (see shipScripts) and its evidence after it in the same
// command: what a driver with no bookkeeping would send for jobs that are
// scripts.
func rawScriptFanout(b *testing.B, pool *cpssh.Pool, hosts []string, dir, run string) (time.Duration, []time.Duration) {
	return driveJobs(b, pool, hosts, func(k int) string {
		_, ev := fanoutWork(k)
		d := "/var/tmp/cp-fanout/" + run
		return fmt.Sprintf("CP_PARAM_DIR=%s %s/j%02d.sh && D=%s; %s", d, dir, k, d, ev)
	})
}

// ansibleFanout runs the same 20 jobs with ansible-playbook: one shell
// task per job running its work and its evidence, failing unless the
// evidence prints "done" (forks 50, pipelining, ControlMaster).
func ansibleFanout(b *testing.B, c *testhosts.Cluster, run string) (time.Duration, error) {
	bin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		return 0, fmt.Errorf("ansible-playbook not found (apt-get install -y ansible-core)")
	}
	dir := b.TempDir()
	var inv strings.Builder
	inv.WriteString("[bench]\n")
	for _, h := range c.Hosts() {
		fmt.Fprintf(&inv, "%s ansible_host=%s ansible_port=%d ansible_user=%s ansible_ssh_private_key_file=%s\n", h.Name, h.Addr, h.Port, h.User, h.KeyPath)
	}
	cfg := fmt.Sprintf(`[defaults]
inventory = %[1]s/inventory.ini
forks = 50
gathering = explicit
host_key_checking = True
interpreter_python = /usr/bin/python3
retry_files_enabled = False

[ssh_connection]
pipelining = True
ssh_args = -o ControlMaster=auto -o ControlPersist=120s -o UserKnownHostsFile=%[2]s -o StrictHostKeyChecking=yes -o BatchMode=yes
control_path_dir = %[1]s/cp
`, dir, c.KnownHostsPath())
	var pb strings.Builder
	pb.WriteString("- hosts: bench\n  gather_facts: false\n  tasks:\n")
	for k := 1; k <= fanoutJobs; k++ {
		work, ev := fanoutWork(k)
		fmt.Fprintf(&pb, "    - name: job %d\n      shell: 'D=/var/tmp/cp-fanout/%s; %s && %s'\n      register: r\n      failed_when: r.rc != 0 or r.stdout != 'done'\n",
			k, run, strings.ReplaceAll(work, "'", "''"), strings.ReplaceAll(ev, "'", "''"))
	}
	for name, content := range map[string]string{"inventory.ini": inv.String(), "ansible.cfg": cfg, "playbook.yml": pb.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return 0, err
		}
	}
	cmd := exec.Command(bin, "playbook.yml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ANSIBLE_CONFIG="+filepath.Join(dir, "ansible.cfg"), "SSH_AUTH_SOCK=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("ansible-playbook: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "failed=0") {
		return d, fmt.Errorf("ansible-playbook reported failures:\n%s", out)
	}
	return d, nil
}

// BenchmarkFanOut50x20 needs CP_BENCH_HOSTS (e.g. 50): it starts that many
// real test hosts, so it never runs by accident under `go test -bench .`.
// CP_BENCH_ANSIBLE=0 leaves Ansible out; CP_BENCH_STATE_BECOME=1 keeps the
// engine's state under /var/lib through sudo.
func BenchmarkFanOut50x20(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("CP_BENCH_HOSTS"))
	if n <= 0 {
		b.Skip("set CP_BENCH_HOSTS=50 (internal/engine/bench/fanout.sh) to run the fan-out bench against real test hosts")
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("fo-%02d", i+1)
	}
	c := testhosts.Require(b, testhosts.Options{Names: names, StartTimeout: 2 * time.Minute})
	const parallelism = 50
	jobs := n * fanoutJobs
	// The critical path at this parallelism: the longer of one host's
	// chain and the rounds the parallelism limit imposes.
	rounds := max(fanoutJobs, (jobs+parallelism-1)/parallelism)
	_, scripts := fanoutPlan(names, "scripts")

	// Drivers with no bookkeeping at all, over a warm pool: one command per
	// job (work plus evidence), first in a session of its own per command
	// (the ideal of one SSH command per job), then in the pool's shells.
	type driver struct {
		name       string
		wall, med  time.Duration
		cpu, forks float64
	}
	var drivers []driver
	var idle []time.Duration
	var dialAll time.Duration
	for _, perCommand := range []bool{true, false} {
		warm := fanoutPoolWith(b, c, cpssh.Options{SessionPerCommand: perCommand})
		mode, tag := "shells", "shells"
		if perCommand {
			mode, tag = "session per command", "sessions"
			conn, err := warm.Dial(context.Background(), names[0])
			if err != nil {
				b.Fatal(err)
			}
			for i := range 30 {
				work, ev := fanoutWork(1 + i%fanoutJobs)
				t0 := time.Now()
				if _, err := conn.Run(context.Background(), transport.Command{Cmd: "D=/var/tmp/cp-fanout/idle; " + work + " && " + ev}); err != nil {
					b.Fatal(err)
				}
				idle = append(idle, time.Since(t0))
			}
		}
		// Warm: every host dialed (timed once) and, in shells mode, its
		// shell started, as the ideal's "warm pool" says.
		dialStart := time.Now()
		var wg sync.WaitGroup
		for _, h := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := warm.Dial(context.Background(), h)
				if err == nil {
					_, err = conn.Run(context.Background(), transport.Command{Cmd: "true"})
				}
				if err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		if perCommand {
			dialAll = time.Since(dialStart)
		}
		meter := startCost()
		wall, rtts := rawFanout(b, warm, names, "raw-"+tag)
		cpu, forks := meter.perJob(jobs)
		drivers = append(drivers, driver{"inline, " + mode, wall, median(rtts), cpu, forks})
		dir := "/var/tmp/cp-fanout-scripts-" + tag
		shipScripts(b, warm, names, scripts, dir)
		meter = startCost()
		wall, rtts = rawScriptFanout(b, warm, names, dir, "rawscript-"+tag)
		cpu, forks = meter.perJob(jobs)
		drivers = append(drivers, driver{"script files, " + mode, wall, median(rtts), cpu, forks})
		_ = warm.Close()
		if b.Failed() {
			b.FailNow()
		}
	}
	ideal := time.Duration(rounds) * drivers[0].med
	idealScript := time.Duration(rounds) * drivers[1].med

	// The engine: cold pool, markers, evidence judged. Its runs use the
	// pool's shells; one more run takes a session per command.
	runEngine := func(run string, opts cpssh.Options) (time.Duration, float64, float64) {
		plan, scripts := fanoutPlan(names, run)
		pool := fanoutPoolWith(b, c, opts)
		// The login user owns a StateDir under /var/tmp, so the engine
		// needs no sudo, like the Ansible play (no become);
		// CP_BENCH_STATE_BECOME=1 keeps the state under /var/lib via sudo.
		stateDir, become := "/var/tmp/cp-fanout-state-"+run, false
		if os.Getenv("CP_BENCH_STATE_BECOME") == "1" {
			stateDir, become = "/var/lib/cp-fanout-"+run, true
		}
		eng := New(Config{Dialer: pool, Parallelism: parallelism, PerHost: 4, StateBecome: become, StateDir: stateDir,
			Scripts: func(pack, p string) ([]byte, error) { return scripts[p], nil }})
		meter := startCost()
		start := time.Now()
		res, err := eng.Run(context.Background(), plan, RunInput{})
		d := time.Since(start)
		cpu, forks := meter.perJob(jobs)
		_ = pool.Close()
		if err != nil || res.Operation.Status != protocol.StatusCompleted {
			b.Fatalf("engine run: %v %s: %v", err, res.Operation.Status, res.Err())
		}
		return d, cpu, forks
	}
	var engineTimes []time.Duration
	var engineCPU, engineForks float64
	b.ResetTimer()
	for i := range b.N {
		var d time.Duration
		d, engineCPU, engineForks = runEngine(fmt.Sprintf("engine-%d", i), cpssh.Options{})
		engineTimes = append(engineTimes, d)
	}
	b.StopTimer()
	engine := median(engineTimes)
	perCmd, perCmdCPU, perCmdForks := runEngine("engine-per-command", cpssh.Options{SessionPerCommand: true})

	var ansible time.Duration
	if os.Getenv("CP_BENCH_ANSIBLE") != "0" {
		var err error
		if ansible, err = ansibleFanout(b, c, "ansible"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(engine.Seconds(), "engine-s")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric(engine.Seconds()/ideal.Seconds(), "x-ideal")
	b.ReportMetric(engine.Seconds()/idealScript.Seconds(), "x-ideal-script")
	b.ReportMetric(engine.Seconds()/drivers[2].wall.Seconds(), "x-raw-shells")
	if ansible > 0 {
		b.ReportMetric(ansible.Seconds(), "ansible-s")
		b.ReportMetric(ansible.Seconds()/engine.Seconds(), "x-faster-than-ansible")
	}
	w := os.Stdout
	fmt.Fprintf(w, "\nfan-out: %d hosts x %d jobs (each with evidence), parallelism %d, critical path %d jobs\n", n, fanoutJobs, parallelism, rounds)
	fmt.Fprintf(w, "  one job (work+evidence) as one command, idle host, own session: median %v\n", median(idle).Round(time.Microsecond))
	fmt.Fprintf(w, "  dialing all hosts at once, one `true` on each: %v\n", dialAll.Round(time.Millisecond))
	fmt.Fprintf(w, "%-52s %9s %9s %12s %9s %9s\n", "", "wall", "vs ideal", "median/job", "CPU ms/job", "procs/job")
	row := func(name string, d, med time.Duration, cpu, forks float64) {
		m := "-"
		if med > 0 {
			m = med.Round(time.Millisecond).String()
		}
		c := "-"
		if cpu > 0 {
			c = fmt.Sprintf("%.1f / %.1f", cpu, forks)
		}
		fmt.Fprintf(w, "%-52s %8.2fs %8.2fx %12s %19s\n", name, d.Seconds(), d.Seconds()/ideal.Seconds(), m, c)
	}
	row("ideal: critical path x median, session per command", ideal, 0, 0, 0)
	row("the same for script files", idealScript, 0, 0, 0)
	row("ideal, idle host (critical path x idle median)", time.Duration(rounds)*median(idle), 0, 0, 0)
	for _, d := range drivers {
		row("raw driver: "+d.name, d.wall, d.med, d.cpu, d.forks)
	}
	for i, d := range engineTimes {
		cpu, forks := 0.0, 0.0
		if i == len(engineTimes)-1 {
			cpu, forks = engineCPU, engineForks
		}
		row(fmt.Sprintf("engine run %d (shells)", i+1), d, 0, cpu, forks)
	}
	row("engine, session per command", perCmd, 0, perCmdCPU, perCmdForks)
	if ansible > 0 {
		row("ansible-playbook (forks 50, pipelining)", ansible, 0, 0, 0)
		fmt.Fprintf(w, "engine is %.2fx faster than Ansible\n", ansible.Seconds()/engine.Seconds())
	}
}
