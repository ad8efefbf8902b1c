package engine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// fixedClock returns a clock that advances one second per call, so
// timestamps are deterministic and ordered.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 4, 29, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

// recorder is a sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []Event
	on     func(Event)
}

func (r *recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	on := r.on
	r.mu.Unlock()
	if on != nil {
		on(e)
	}
}

func (r *recorder) started() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Type == EventInstanceStarted {
			out = append(out, e.Instance)
		}
	}
	return out
}

func evidence(id, cmd, expected string) protocol.Evidence {
	return protocol.Evidence{ID: id, Command: cmd, Expected: expected}
}

func newJob(id string, evs ...protocol.Evidence) *protocol.Job {
	return &protocol.Job{ID: id, Title: id, Script: "scripts/" + id + ".sh", Outputs: protocol.Outputs{Evidence: evs},
		Controls: protocol.Controls{Idempotency: protocol.Idempotency{Key: id + ":{node_id}"}}}
}

func newInst(job *protocol.Job, stage, host string, needs ...string) *protocol.JobInstance {
	id := job.ID
	if host != "" {
		id = fmt.Sprintf("%s[%s]", job.ID, host)
	}
	key := strings.ReplaceAll(job.Controls.Idempotency.Key, "{node_id}", host)
	return &protocol.JobInstance{ID: id, JobID: job.ID, Stage: stage, Host: host, Pack: "test@1.0.0", Needs: needs, Job: job, IdempotencyKey: key, Origin: protocol.OriginTemplate}
}

// clusterPlan is a small cluster create: validate once, runtime on every
// node, init on the first master (join token and kubeconfig, secrets),
// join on each worker (requires the token), verify once.
func clusterPlan(workers ...string) *protocol.Plan {
	hosts := append([]string{"m1"}, workers...)
	p := &protocol.Plan{ID: "plan-1", Template: "test.create@1.0.0", Title: "Create Test Cluster"}
	p.Intent = protocol.Intent{Action: "create", Pack: "test", TargetResource: "prod"}
	for i, h := range hosts {
		role := protocol.RoleWorker
		if i == 0 {
			role = protocol.RoleMaster
		}
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Address: "10.0.0." + fmt.Sprint(i+1), Role: role})
	}
	validate := newJob("validate", evidence("validated", "state validated", "yes"))
	runtime := newJob("runtime", evidence("containerd_service_active", "state runtime", "active"))
	runtime.Outputs.Provides.Capabilities = []protocol.Capability{{Key: "container.runtime.containerd", Scope: protocol.ScopeNode}}
	initJ := newJob("init", evidence("kube_apiserver_healthy", "state apiserver", "ok"))
	initJ.Outputs.Artifacts = []protocol.ArtifactSpec{
		{ID: "kubeadm.join_token", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(time.Hour)},
		{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret},
		{ID: "cluster.endpoint", Sensitivity: protocol.SensitivityPublic},
	}
	initJ.Outputs.Provides.Capabilities = []protocol.Capability{{Key: "kubernetes.api", Attributes: map[string]string{"port": "6443"}}}
	join := newJob("join", evidence("node_registered", "state joined", "yes"))
	join.Controls.ManualIntervention.Allowed = true
	join.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "kubeadm.join_token"}}
	verify := newJob("verify", evidence("nodes_ready", "state verified", "yes"))
	add := func(in *protocol.JobInstance) { p.Instances = append(p.Instances, in) }
	add(newInst(validate, "validate", ""))
	for _, h := range hosts {
		add(newInst(runtime, "runtime", h, "validate"))
	}
	add(newInst(initJ, "init", "m1", "runtime[m1]"))
	var joins []string
	for _, w := range workers {
		add(newInst(join, "join", w, "init[m1]", "runtime["+w+"]"))
		joins = append(joins, "join["+w+"]")
	}
	add(newInst(verify, "verify", "", joins...))
	stages := map[string]string{"validate": "Validate inputs", "runtime": "Install container runtime", "init": "Init control-plane", "join": "Join workers", "verify": "Verify cluster"}
	for _, s := range []string{"validate", "runtime", "init", "join", "verify"} {
		ps := protocol.PlanStage{ID: s, Title: stages[s]}
		for _, in := range p.Instances {
			if in.Stage == s {
				ps.Instances = append(ps.Instances, in.ID)
			}
		}
		p.Stages = append(p.Stages, ps)
	}
	return p
}

const (
	testToken      = "tok-9f8e7d6c5b4a39281706"
	testKubeconfig = "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: c2VjcmV0LWNhLWRhdGEtZm9yLXRlc3Rz\n"
)

// clusterNet gives memNet the behaviour of clusterPlan's scripts; a job
// may be made to fail on a host by setting state "break:<job>" there.
func clusterNet(workers ...string) *memNet {
	n := newMemNet(append([]string{"m1"}, workers...)...)
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		job := strings.TrimSuffix(strings.TrimPrefix(content, "script:scripts/"), ".sh")
		fmt.Fprintf(out, "running %s on %s\n", job, h.name)
		if msg := h.get("break:" + job); msg != "" {
			fmt.Fprintln(out, msg)
			return 1
		}
		switch job {
		case "validate":
			h.set("validated", "yes")
		case "runtime":
			h.set("runtime", "active")
		case "init":
			h.set("apiserver", "ok")
			h.put(env["CP_OUTPUT_DIR"]+"/kubeadm.join_token", []byte(testToken))
			h.put(env["CP_OUTPUT_DIR"]+"/kubeconfig.admin", []byte(testKubeconfig))
			h.put(env["CP_OUTPUT_DIR"]+"/cluster.endpoint", []byte("https://10.0.0.1:6443"))
		case "join":
			tok, _ := h.file(env["CP_ARTIFACT_KUBEADM_JOIN_TOKEN"])
			if string(tok) != testToken {
				fmt.Fprintf(out, "join: bad token %q\n", tok)
				return 3
			}
			h.set("joined", "yes")
		case "verify":
			h.set("verified", "yes")
		}
		return 0
	}
	n.check = func(h *memHost, cmd string, env map[string]string) (string, int) {
		if key, ok := strings.CutPrefix(cmd, "state "); ok {
			return h.get(key) + "\n", 0
		}
		return "unknown command " + cmd, 127
	}
	return n
}

func memScripts(pack, path string) ([]byte, error) { return []byte("script:" + path), nil }

func newTestEngine(n *memNet, mod func(*Config)) (*Engine, *recorder) {
	rec := &recorder{}
	cfg := Config{Dialer: n, Scripts: memScripts, Parallelism: 4, PerHost: 2, Clock: fixedClock(), Sinks: []Sink{rec},
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }, Actor: "tester"}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg), rec
}

func mustRun(t *testing.T, e *Engine, p *protocol.Plan, in RunInput) *Result {
	t.Helper()
	res, err := e.Run(context.Background(), p, in)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func statuses(res *Result) string {
	var b strings.Builder
	for _, in := range res.Instances {
		fmt.Fprintf(&b, "%s=%s\n", in.ID, in.Status)
	}
	return b.String()
}

func wantStatus(t *testing.T, res *Result, id string, want Status) InstanceResult {
	t.Helper()
	in, ok := res.Instance(id)
	if !ok {
		t.Fatalf("no instance %s in result", id)
	}
	if in.Status != want {
		t.Fatalf("instance %s: got: %s (%s) want: %s", id, in.Status, in.Reason, want)
	}
	return in
}
