package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// env is one set of simulator test hosts sharing a simulated cluster,
// with the builtin catalog.
type env struct {
	t     *testing.T
	c     *testhosts.Cluster
	cat   *packs.Catalog
	hosts map[string]testhosts.Host
}

// startHosts starts simulator hosts named names for the test; they are
// removed when the test ends.
func startHosts(t *testing.T, cluster string, names ...string) *env {
	t.Helper()
	c := testhosts.Require(t, testhosts.Options{Names: names, Simulator: true, SimulatorCluster: cluster})
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, cat: cat, hosts: map[string]testhosts.Host{}}
	for _, h := range c.Hosts() {
		e.hosts[h.Name] = h
	}
	return e
}

// intentHosts lists masters then workers as intent hosts.
func (e *env) intentHosts(masters, workers []string) []protocol.Host {
	var out []protocol.Host
	add := func(names []string, role string) {
		for _, n := range names {
			h, ok := e.hosts[n]
			if !ok {
				e.t.Fatalf("no test host %s", n)
			}
			out = append(out, protocol.Host{Name: n, Address: h.Addr, Port: h.Port, Role: role})
		}
	}
	add(masters, protocol.RoleMaster)
	add(workers, protocol.RoleWorker)
	return out
}

func (e *env) addr(name string) string { return e.hosts[name].Addr }

// access is how the runner reaches the intent's hosts.
func (e *env) access(hosts []protocol.Host) []operation.HostAccess {
	var out []operation.HostAccess
	for _, h := range hosts {
		th := e.hosts[h.Name]
		out = append(out, operation.HostAccess{Host: h, Access: operation.Access{
			User: th.User, PrivateKeyFile: th.KeyPath, KnownHostsFile: th.KnownHostsPath}})
	}
	return out
}

// compose builds a plan from the builtin catalog.
func (e *env) compose(req planner.Request) *planner.Composed {
	e.t.Helper()
	req.Catalog = e.cat
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	c, err := planner.Compose(req)
	if err != nil {
		e.t.Fatalf("compose %s %s: %v", req.PackID, req.Intent.Action, err)
	}
	return c
}

// run runs a plan with a fresh engine over a fresh SSH pool.
func (e *env) run(plan *protocol.Plan, in engine.RunInput) *engine.Result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	r := &operation.Runner{Packs: e.cat, Parallelism: 8, PerHost: 2, Actor: "e2e"}
	if in.OperationID == "" {
		in.OperationID = plan.ID
	}
	start := time.Now()
	res, err := r.Run(ctx, plan, e.access(plan.Intent.Hosts), in)
	if err != nil {
		e.t.Fatalf("run %s: %v", plan.ID, err)
	}
	e.t.Logf("run %s: %s in %s (%d instances)", plan.ID, res.Operation.Status, time.Since(start).Round(time.Millisecond), len(res.Instances))
	for _, in := range res.Instances {
		if in.Duration > 15*time.Second {
			e.t.Logf("slow instance %s: %s, %s, %d attempts", in.ID, in.Status, in.Duration.Round(time.Second), len(in.Attempts))
		}
	}
	return res
}

// runCompleted runs a plan and fails the test unless it completed.
func (e *env) runCompleted(plan *protocol.Plan, in engine.RunInput) *engine.Result {
	e.t.Helper()
	res := e.run(plan, in)
	requireCompleted(e.t, res)
	return res
}

func requireCompleted(t *testing.T, res *engine.Result) {
	t.Helper()
	if res.Operation.Status == protocol.StatusCompleted {
		return
	}
	t.Fatalf("operation %s: status %s, want Completed\n%s", res.Operation.ID, res.Operation.Status, describe(res))
}

// describe lists the instances that did not finish, with reasons and log
// tails.
func describe(res *engine.Result) string {
	var b strings.Builder
	for _, in := range res.Instances {
		if in.Status.Finished() {
			continue
		}
		b.WriteString("  " + in.ID + ": " + string(in.Status) + ": " + in.Reason + "\n")
		if in.Status == engine.StatusFailed {
			for _, ev := range in.Evidence {
				if !ev.Passed {
					b.WriteString("    evidence " + ev.ID + " failed: observed " + strconv.Quote(ev.Observed) + " exit " + strconv.Itoa(ev.ExitCode) + " " + ev.Detail + "\n")
				}
			}
			for _, l := range in.LogTail {
				b.WriteString("    | " + l + "\n")
			}
		}
	}
	for _, w := range res.Waiting {
		b.WriteString("  waiting: " + w.Gate + " (" + string(w.Status) + "): " + w.Reason + " " + w.Refused + "\n")
	}
	return b.String()
}

// statuses counts the instances by status.
func statuses(res *engine.Result) map[engine.Status]int {
	out := map[engine.Status]int{}
	for _, in := range res.Instances {
		out[in.Status]++
	}
	return out
}

func instance(t *testing.T, res *engine.Result, id string) engine.InstanceResult {
	t.Helper()
	in, ok := res.Instance(id)
	if !ok {
		var ids []string
		for _, x := range res.Instances {
			ids = append(ids, x.ID)
		}
		t.Fatalf("no instance %s in the result; instances: %s", id, strings.Join(ids, ", "))
	}
	return in
}

// jobInstances returns the ids of a plan's instances of a job.
func jobInstances(plan *protocol.Plan, job string) []string {
	var out []string
	for _, in := range plan.Instances {
		if in.JobID == job {
			out = append(out, in.ID)
		}
	}
	return out
}

func artifact(t *testing.T, arts []protocol.Artifact, id string) protocol.Artifact {
	t.Helper()
	for _, a := range arts {
		if a.ID == id {
			return a
		}
	}
	var ids []string
	for _, a := range arts {
		ids = append(ids, a.ID)
	}
	t.Fatalf("no artifact %s; artifacts: %s", id, strings.Join(ids, ", "))
	return protocol.Artifact{}
}

// inputArtifacts passes artifacts to a run by reference, as the provider
// does from its state.
func inputArtifacts(arts []protocol.Artifact) []engine.InputArtifact {
	var out []engine.InputArtifact
	for _, a := range arts {
		out = append(out, engine.InputArtifact{Artifact: a})
	}
	return out
}

func (e *env) simState() *hostsim.State {
	e.t.Helper()
	st, err := hostsim.ReadState(e.c.SimulatorStateDir())
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

// simLogLines counts the simulated command invocations per host.
func (e *env) simLogLines() map[string]int {
	e.t.Helper()
	out := map[string]int{}
	for name := range e.hosts {
		lines, err := e.c.SimLog(name)
		if err != nil {
			e.t.Fatal(err)
		}
		out[name] = len(lines)
	}
	return out
}

// simLogSince returns the log lines of host after the first n.
func (e *env) simLogSince(host string, n int) []string {
	e.t.Helper()
	lines, err := e.c.SimLog(host)
	if err != nil {
		e.t.Fatal(err)
	}
	if n > len(lines) {
		return nil
	}
	return lines[n:]
}

// hostFile reads a file on a host through its overlay upper directory
// (the file must have been written on the host).
func (e *env) hostFile(host, path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(e.hosts[host].Upper, path))
	return string(b), err
}

// nodes lists the nodes registered in the simulator, Ready or not, sorted.
func (e *env) nodes() []string {
	st := e.simState()
	var out []string
	for n := range st.Nodes {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
