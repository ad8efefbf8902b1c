package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// countingNet counts the commands run on each host of a shellNet.
type countingNet struct {
	*shellNet
	mu   sync.Mutex
	runs map[string]int
	cmds []transport.Command
}

func (n *countingNet) Dial(ctx context.Context, host string) (transport.Conn, error) {
	c, err := n.shellNet.Dial(ctx, host)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: n}, nil
}

type countingConn struct {
	transport.Conn
	n *countingNet
}

func (c *countingConn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	c.n.mu.Lock()
	c.n.runs[c.Host()]++
	c.n.cmds = append(c.n.cmds, cmd)
	c.n.mu.Unlock()
	return c.Conn.Run(ctx, cmd)
}

func newCountingNet(t *testing.T, hosts ...string) *countingNet {
	t.Helper()
	root := t.TempDir()
	for _, h := range hosts {
		must(t, os.MkdirAll(filepath.Join(root, h), 0o755))
	}
	return &countingNet{shellNet: &shellNet{root: root}, runs: map[string]int{}}
}

// recheckPlan is a plan of two jobs on each host: write-flag (evidence:
// the host's flag file reads "up", and the instance sees its own
// parameter) and serve (evidence: exit code of a test of the pid file).
func recheckPlan(hosts ...string) *protocol.Plan {
	flag := newJob("write-flag",
		evidence("flag_up", `cat "$HOST_ROOT/flag"`, "up"),
		evidence("own_param", `echo "$CP_INSTANCE $CP_PARAM_COLOUR"`, ""))
	serve := newJob("serve", protocol.Evidence{ID: "pid_file", Command: `test -f "$HOST_ROOT/pid"`})
	p := &protocol.Plan{ID: "p1", Template: "probe.install"}
	for _, h := range hosts {
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Address: "10.0.0." + h[len(h)-1:], Role: "worker"})
		f := newInst(flag, "s", h)
		f.Params = map[string]string{"colour": "blue-" + h}
		p.Instances = append(p.Instances, f, newInst(serve, "s", h, f.ID))
	}
	// own_param expects the instance's id and colour.
	for _, in := range p.Instances {
		if in.JobID == "write-flag" {
			in.Job = cloneJob(in.Job)
			in.Job.Outputs.Evidence[1].Expected = in.ID + " " + in.Params["colour"]
		}
	}
	return p
}

func cloneJob(j *protocol.Job) *protocol.Job {
	c := *j
	c.Outputs.Evidence = append([]protocol.Evidence(nil), j.Outputs.Evidence...)
	return &c
}

func allInstances(p *protocol.Plan) map[string][]string {
	out := map[string][]string{}
	for _, in := range p.Instances {
		out[in.ID] = nil
	}
	return out
}

func writeHostFile(t *testing.T, n *countingNet, host, name, body string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(n.hostRoot(host), name), []byte(body), 0o644))
}

// Three hosts, two instances and three checks each: one command per host
// whatever the number of checks; the host whose flag was changed fails
// flag_up with what it observed, and only there; every check saw its own
// instance's environment.
func TestRecheck_oneCommandPerHost(t *testing.T) {
	hosts := []string{"node-1", "node-2", "node-3"}
	n := newCountingNet(t, hosts...)
	for _, h := range hosts {
		writeHostFile(t, n, h, "flag", "up\n")
		writeHostFile(t, n, h, "pid", "1\n")
	}
	writeHostFile(t, n, "node-2", "flag", "down\n")
	p := recheckPlan(hosts...)
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p), Clock: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if n.runs[h] != 1 || res.Commands[h] != 1 {
			t.Errorf("host %s: %d commands run (result says %d), want 1", h, n.runs[h], res.Commands[h])
		}
	}
	if len(res.Evidence) != 9 {
		t.Fatalf("got %d results, want 9: %+v", len(res.Evidence), res.Evidence)
	}
	failed := res.Failed()
	if len(failed) != 1 || len(failed["write-flag[node-2]"]) != 1 {
		t.Fatalf("failed: %+v, want flag_up of write-flag[node-2] only", failed)
	}
	f := failed["write-flag[node-2]"][0]
	if f.ID != "flag_up" || f.Observed != "down" || f.Host != "node-2" || !strings.Contains(f.Detail, "observed down, expected up") {
		t.Errorf("failure: %+v", f)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("skipped: %+v", res.Skipped)
	}
}

// A check that hangs is cut at its own timeout and reported as timed
// out; the checks after it on the host still run.
func TestRecheck_perCheckTimeout(t *testing.T) {
	n := newCountingNet(t, "node-1")
	writeHostFile(t, n, "node-1", "pid", "1\n")
	hang := newJob("hang", protocol.Evidence{ID: "hangs", Command: "sleep 30"})
	serve := newJob("serve", protocol.Evidence{ID: "pid_file", Command: `test -f "$HOST_ROOT/pid"`})
	p := &protocol.Plan{ID: "p2", Instances: []*protocol.JobInstance{newInst(hang, "s", "node-1"), newInst(serve, "s", "node-1")}}
	start := time.Now()
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("the hung check was not cut at its timeout")
	}
	if len(res.Evidence) != 2 {
		t.Fatalf("results: %+v", res.Evidence)
	}
	byID := map[string]InstanceEvidence{}
	for _, e := range res.Evidence {
		byID[e.ID] = e
	}
	if h := byID["hangs"]; h.Passed || !strings.Contains(h.Detail, "timed out after 300ms") {
		t.Errorf("hung check: %+v", h)
	}
	if s := byID["pid_file"]; !s.Passed {
		t.Errorf("check after the hung one: %+v", s)
	}
	if n.runs["node-1"] != 1 {
		t.Errorf("%d commands, want 1", n.runs["node-1"])
	}
}

// Only the recorded evidence ids of an instance are checked.
func TestRecheck_onlyRecordedChecks(t *testing.T) {
	n := newCountingNet(t, "node-1")
	writeHostFile(t, n, "node-1", "flag", "down\n")
	p := recheckPlan("node-1")
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: map[string][]string{"write-flag[node-1]": {"own_param"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) != 1 || res.Evidence[0].ID != "own_param" || !res.Evidence[0].Passed {
		t.Fatalf("results: %+v, want own_param passing only", res.Evidence)
	}
}

// Input artifacts: a secret kept on the check's host is read from there; a
// public value is written to a private temporary file; a secret kept on
// another host is not fetched: the instance is skipped, saying why. What
// the checks of a job reading a secret print is withheld.
func TestRecheck_inputArtifacts(t *testing.T) {
	n := newCountingNet(t, "node-1", "node-2")
	secretPath := filepath.Join(n.hostRoot("node-1"), "kept-token")
	writeHostFile(t, n, "node-1", "kept-token", "s3cr3t-token")
	job := newJob("use-token",
		protocol.Evidence{ID: "token", Command: `cat "$CP_ARTIFACT_JOIN_TOKEN"`, Expected: "s3cr3t-token"},
		protocol.Evidence{ID: "endpoint", Command: `cat "$CP_ARTIFACT_ENDPOINT"`, Expected: "https://api.test"})
	job.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}, {ID: "endpoint"}}
	p := &protocol.Plan{ID: "p3", Instances: []*protocol.JobInstance{newInst(job, "s", "node-1"), newInst(job, "s", "node-2")}}
	red := &transport.Redactor{}
	red.Add("s3cr3t-token")
	arts := []protocol.Artifact{
		{ID: "join.token", Sensitivity: protocol.SensitivitySecret, Ref: protocol.HostRef("node-1", secretPath)},
		{ID: "endpoint", Sensitivity: protocol.SensitivityPublic, Value: "https://api.test"},
	}
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p), Artifacts: arts, Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) != 2 {
		t.Fatalf("results: %+v", res.Evidence)
	}
	for _, e := range res.Evidence {
		if !e.Passed || e.Instance != "use-token[node-1]" {
			t.Errorf("result %+v, want passing on node-1", e)
		}
		if e.Observed != withheldOutput {
			t.Errorf("the output of a check of a job reading a secret is recorded: %+v", e)
		}
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Instance != "use-token[node-2]" || !strings.Contains(res.Skipped[0].Reason, "join.token is not kept on host node-2") {
		t.Errorf("skipped: %+v", res.Skipped)
	}
	if n.runs["node-2"] != 0 {
		t.Errorf("node-2: %d commands, want none", n.runs["node-2"])
	}
	for _, c := range n.cmds {
		for k, v := range c.Env {
			if strings.Contains(v, "s3cr3t") {
				t.Errorf("secret value sent in %s", k)
			}
		}
	}
}

// An unreachable host is reported per instance; the others are checked.
func TestRecheck_unreachableHost(t *testing.T) {
	n := newCountingNet(t, "node-1")
	writeHostFile(t, n, "node-1", "flag", "up\n")
	writeHostFile(t, n, "node-1", "pid", "1\n")
	p := recheckPlan("node-1", "node-9")
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 2 || res.Skipped[0].Host != "node-9" || !strings.Contains(res.Skipped[0].Reason, "node-9") {
		t.Errorf("skipped: %+v", res.Skipped)
	}
	if res.Commands["node-9"] != 0 || res.Commands["node-1"] != 1 || len(res.Evidence) != 3 {
		t.Errorf("commands %v, %d results", res.Commands, len(res.Evidence))
	}
	if _, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: map[string][]string{"nope": nil}}); err == nil {
		t.Error("an instance not in the plan is not refused")
	}
}

// An environment name that is not a plain shell name is refused before
// anything runs on the host.
func TestRecheckBatchEnv_refusesNames(t *testing.T) {
	it := recheckItem{in: &protocol.JobInstance{ID: "x"}, ev: protocol.Evidence{ID: "e", Command: "true"},
		env: map[string]string{"CP_PARAM_A;B": "1"}}
	if _, _, err := recheckBatchEnv([]recheckItem{it, {in: it.in, ev: it.ev, env: map[string]string{}}}, time.Second, false); err == nil {
		t.Fatal("a name with ';' is not refused")
	}
}

// RunInput.Repair runs the named instances again although their markers
// stand, and only them: the others whose evidence holds are satisfied.
func TestRunRepairRunsOnlyTheNamedInstances(t *testing.T) {
	n := clusterNet("w1", "w2")
	e, _ := newTestEngine(n, nil)
	mustRun(t, e, clusterPlan("w1", "w2"), RunInput{})
	why := "evidence containerd_service_active failed at refresh"
	res := mustRun(t, e, clusterPlan("w1", "w2"), RunInput{Repair: map[string]string{"runtime[w2]": why}})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	in := wantStatus(t, res, "runtime[w2]", StatusDone)
	if !strings.Contains(in.Reason, "repair: "+why) {
		t.Errorf("reason got: %q want it to name the repair", in.Reason)
	}
	if got := n.host("w2").runCount("runtime[w2]"); got != 2 {
		t.Errorf("runtime[w2] ran %d times want 2", got)
	}
	for _, id := range []string{"runtime[m1]", "runtime[w1]", "join[w1]", "join[w2]"} {
		wantStatus(t, res, id, StatusSatisfied)
	}
}

// A kept input secret reaches its check as a private copy in the batch's
// directory, never by its kept path; with StateBecome the batch that
// copies it runs through sudo, and without, it does not.
func TestRecheck_keptInputIsCopied(t *testing.T) {
	for _, stateBecome := range []bool{false, true} {
		n := newCountingNet(t, "node-1")
		kept := filepath.Join(n.hostRoot("node-1"), "kept-token")
		writeHostFile(t, n, "node-1", "kept-token", "tok")
		job := newJob("use-token", protocol.Evidence{ID: "copied",
			Command:  `case "$CP_ARTIFACT_JOIN_TOKEN" in "${TMPDIR:-/tmp}"/cp.*) cat "$CP_ARTIFACT_JOIN_TOKEN";; *) echo "in place: $CP_ARTIFACT_JOIN_TOKEN";; esac`,
			Expected: "tok"})
		job.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}}
		p := &protocol.Plan{ID: "p4", Instances: []*protocol.JobInstance{newInst(job, "s", "node-1")}}
		arts := []protocol.Artifact{{ID: "join.token", Sensitivity: protocol.SensitivitySecret, Ref: protocol.HostRef("node-1", kept)}}
		res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p), Artifacts: arts, StateBecome: stateBecome})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Evidence) != 1 || !res.Evidence[0].Passed {
			t.Fatalf("stateBecome=%v: %+v", stateBecome, res.Evidence)
		}
		if len(n.cmds) != 1 || n.cmds[0].Become != stateBecome {
			t.Errorf("stateBecome=%v: batch become %v", stateBecome, n.cmds[0].Become)
		}
	}
}

// frameNet answers every recheck batch at once: each check prints "ok"
// and exits 0. It measures the engine's side of a refresh (environment,
// encoding, parsing, judging), not the hosts'.
type frameNet struct {
	mu       sync.Mutex
	envBytes int
}

func (n *frameNet) Dial(_ context.Context, host string) (transport.Conn, error) {
	return &frameConn{n: n, host: host}, nil
}

type frameConn struct {
	n    *frameNet
	host string
}

func (c *frameConn) Host() string                                           { return c.host }
func (c *frameConn) Close() error                                           { return nil }
func (c *frameConn) Upload(context.Context, transport.File) error           { return nil }
func (c *frameConn) Download(context.Context, string, bool) ([]byte, error) { return nil, nil }
func (c *frameConn) Run(_ context.Context, cmd transport.Command) (transport.Result, error) {
	size := 0
	for k, v := range cmd.Env {
		size += len(k) + len(v)
	}
	c.n.mu.Lock()
	c.n.envBytes += size
	c.n.mu.Unlock()
	var b strings.Builder
	n := 0
	fmt.Sscan(cmd.Env["CP_N"], &n)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "@cp ev %d 0\n|ok\n", i)
	}
	return transport.Result{Stdout: []byte(b.String())}, nil
}

// BenchmarkRecheck: a refresh of hosts nodes with 12 checks each (three
// jobs of four checks per node), as a cluster's per-node jobs have.
func BenchmarkRecheck(b *testing.B) {
	for _, hosts := range []int{100, 1000} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			var evs []protocol.Evidence
			for i := 0; i < 4; i++ {
				evs = append(evs, protocol.Evidence{ID: fmt.Sprintf("e%d", i), Command: "echo ok", Expected: "ok"})
			}
			p := &protocol.Plan{ID: "bench"}
			for h := 0; h < hosts; h++ {
				name := fmt.Sprintf("node-%d", h)
				p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: name, Address: fmt.Sprintf("10.0.%d.%d", h/250, h%250), Role: "worker"})
				for j := 0; j < 3; j++ {
					in := newInst(newJob(fmt.Sprintf("job%d", j), evs...), "s", name)
					in.Params = map[string]string{"version": "1.31.2"}
					p.Instances = append(p.Instances, in)
				}
			}
			want := allInstances(p)
			n := &frameNet{}
			b.ResetTimer()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: want})
				if err != nil || len(res.Evidence) != hosts*12 {
					b.Fatalf("%v, %d results", err, len(res.Evidence))
				}
			}
			b.ReportMetric(float64(n.envBytes)/float64(b.N)/float64(hosts), "env-bytes/host")
		})
	}
}

// hostEnvs gives what hostEnv gives, with the bound cluster, for every
// host and for a name the intent does not have.
func TestHostEnvsMatchHostEnv(t *testing.T) {
	p := recheckPlan("node-1", "node-2")
	p.Intent.Hosts[0].Labels = map[string]string{"zone": "a", "tier": "db"}
	p.Intent.Hosts[1].Taints = []string{"gpu=yes:NoSchedule"}
	p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: "master-1", Address: "10.0.0.9", Role: protocol.RoleMaster})
	p.Intent.TargetResource = "small"
	e := newHostEnvs(p)
	for _, h := range []string{"node-1", "node-2", "master-1", "unknown", ""} {
		want := hostEnv(&p.Intent, h)
		if got := e.of(h); !reflect.DeepEqual(got, want) {
			t.Errorf("host %q: got %v, want %v", h, got, want)
		}
	}
}

// A failing check of a job that produces a secret says how it failed but
// not what it printed; a job without secrets records what it observed.
func TestRecheck_secretJobOutputWithheld(t *testing.T) {
	n := newCountingNet(t, "node-1")
	gen := newJob("gen-key", protocol.Evidence{ID: "key", Command: "echo private-key-bytes; exit 3"})
	gen.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "wg.key", Sensitivity: protocol.SensitivitySecret}}
	plain := newJob("plain", protocol.Evidence{ID: "says", Command: "echo hello", Expected: "bye"})
	p := &protocol.Plan{ID: "p5", Instances: []*protocol.JobInstance{newInst(gen, "s", "node-1"), newInst(plain, "s", "node-1")}}
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p)})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]InstanceEvidence{}
	for _, e := range res.Evidence {
		byID[e.ID] = e
	}
	k := byID["key"]
	if k.Passed || strings.Contains(k.Observed+k.Detail, "private-key") || !strings.Contains(k.Detail, "exit code 3") {
		t.Errorf("secret job's check: %+v", k)
	}
	if s := byID["says"]; s.Passed || s.Observed != "hello" {
		t.Errorf("plain check: %+v", s)
	}
}

// The batch's private directory (copies of kept secrets) is gone after
// the batch, also when it is killed with TERM while a check runs.
func TestRecheck_privateDirRemoved(t *testing.T) {
	n := newCountingNet(t, "node-1")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	writeHostFile(t, n, "node-1", "kept", "tok")
	job := newJob("j", protocol.Evidence{ID: "e", Command: `cat "$CP_ARTIFACT_T"`, Expected: "tok"})
	job.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "t"}}
	p := &protocol.Plan{ID: "p6", Instances: []*protocol.JobInstance{newInst(job, "s", "node-1")}}
	arts := []protocol.Artifact{{ID: "t", Sensitivity: protocol.SensitivitySecret, Ref: protocol.HostRef("node-1", filepath.Join(n.hostRoot("node-1"), "kept"))}}
	in := RecheckInput{Plan: p, Instances: allInstances(p), Artifacts: arts}
	if _, err := Recheck(context.Background(), n, in); err != nil {
		t.Fatal(err)
	}
	left := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "cp.*"))
		return m
	}
	if l := left(); len(l) != 0 {
		t.Errorf("left after the batch: %v", l)
	}
	// Killed: the shell gets TERM while a check runs; it removes the
	// directory once the check ends (within the check's timeout).
	x := exec.Command("/bin/sh", "-c", recheckCmd)
	x.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "CP_N=1", "CP_C0=sleep 2", "CP_T0=60", "CP_VN0=0"}
	must(t, x.Start())
	// Generous bounds: a loaded machine may start the shell late. They
	// bound the wait, not the behaviour.
	deadline := time.Now().Add(60 * time.Second)
	for len(left()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(left()) == 0 {
		_ = x.Process.Kill()
		t.Fatal("the batch made no private directory within 60s")
	}
	must(t, x.Process.Signal(syscall.SIGTERM))
	_ = x.Wait()
	deadline = time.Now().Add(60 * time.Second)
	for len(left()) != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if l := left(); len(l) != 0 {
		t.Errorf("left after TERM: %v", l)
	}
}

// A cluster-scoped instance (no host of its own) is checked where it ran:
// on the intent's first master (chooseHost), seeing that master as
// CP_HOST, not skipped for a host "" the pool does not know.
func TestRecheck_clusterScopedOnFirstMaster(t *testing.T) {
	n := newCountingNet(t, "master-1", "worker-1")
	writeHostFile(t, n, "master-1", "deployed", "yes\n")
	deploy := newJob("deploy",
		evidence("deployed", `cat "$HOST_ROOT/deployed"`, "yes"),
		evidence("host", `echo "$CP_HOST"`, "master-1"))
	p := &protocol.Plan{ID: "p-cluster", Template: "db.install", Instances: []*protocol.JobInstance{newInst(deploy, "s", "")},
		Intent: protocol.Intent{Hosts: []protocol.Host{{Name: "worker-1", Role: "worker"}, {Name: "master-1", Role: protocol.RoleMaster}}}}
	res, err := Recheck(context.Background(), n, RecheckInput{Plan: p, Instances: allInstances(p)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Fatalf("skipped: %+v, want the instance checked on master-1", res.Skipped)
	}
	if n.runs["master-1"] != 1 || n.runs["worker-1"] != 0 {
		t.Errorf("commands per host: %v, want one on master-1", n.runs)
	}
	if len(res.Evidence) != 2 {
		t.Fatalf("results: %+v", res.Evidence)
	}
	for _, e := range res.Evidence {
		if !e.Passed || e.Host != "master-1" {
			t.Errorf("check %s: %+v, want passed on master-1", e.ID, e)
		}
	}
}
