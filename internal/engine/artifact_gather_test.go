package engine

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A node-scoped artifact produced on every host reaches a cluster-scoped
// consumer as one "host value" line per host; a node-scoped consumer gets
// its own host's value only; a value given to the run stands in for a
// host that did not produce one in this run.
func TestNodeScopedArtifactGatheredForClusterScope(t *testing.T) {
	hosts := []string{"m1", "w1", "w2"}
	n := newMemNet(hosts...)
	got := map[string]string{}
	var mu sync.Mutex // the consumers run concurrently, one per host
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		job := strings.TrimSuffix(strings.TrimPrefix(content, "script:scripts/"), ".sh")
		switch job {
		case "pub":
			h.put(env["CP_OUTPUT_DIR"]+"/node.pub", []byte("pub-of-"+h.name+"\n"))
		case "mesh", "own":
			b, ok := h.file(env["CP_ARTIFACT_NODE_PUB"])
			if !ok {
				fmt.Fprintln(out, "no node.pub input")
				return 1
			}
			mu.Lock()
			got[job+"@"+h.name] = string(b)
			mu.Unlock()
		}
		h.set(job, "yes")
		return 0
	}
	n.check = func(h *memHost, cmd string, env map[string]string) (string, int) {
		return h.get(strings.TrimPrefix(cmd, "state ")) + "\n", 0
	}
	pub := newJob("pub", evidence("published", "state pub", "yes"))
	pub.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "node.pub", Sensitivity: protocol.SensitivityPublic, Scope: protocol.ScopeNode}}
	mesh := newJob("mesh", evidence("meshed", "state mesh", "yes"))
	mesh.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "node.pub", Scope: protocol.ScopeCluster}}
	own := newJob("own", evidence("owned", "state own", "yes"))
	own.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "node.pub", Scope: protocol.ScopeNode}}
	p := &protocol.Plan{ID: "p"}
	var pubIDs []string
	for _, h := range hosts[:2] { // w2 publishes nothing in this run
		p.Instances = append(p.Instances, newInst(pub, "s", h))
		pubIDs = append(pubIDs, "pub["+h+"]")
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Role: "worker"})
	}
	p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: "w2", Role: "worker"})
	for _, h := range hosts {
		p.Instances = append(p.Instances, newInst(mesh, "s", h, pubIDs...))
	}
	p.Instances = append(p.Instances, newInst(own, "s", "w1", "pub[w1]"))
	e, _ := newTestEngine(n, nil)
	in := RunInput{Artifacts: []InputArtifact{
		{Artifact: protocol.Artifact{ID: "node.pub", Sensitivity: protocol.SensitivityPublic, Host: "w2", Value: "pub-of-w2"}},
		{Artifact: protocol.Artifact{ID: "node.pub", Sensitivity: protocol.SensitivityPublic, Host: "w1", Value: "stale-w1"}},
	}}
	res := mustRun(t, e, p, in)
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("status %s\n%s", res.Operation.Status, statuses(res))
	}
	want := "m1 pub-of-m1\nw1 pub-of-w1\nw2 pub-of-w2\n"
	for _, h := range hosts {
		if got["mesh@"+h] != want {
			t.Errorf("mesh on %s got input %q, want %q", h, got["mesh@"+h], want)
		}
	}
	if got["own@w1"] != "pub-of-w1\n" {
		t.Errorf("node-scoped consumer on w1 got %q, want its own value only", got["own@w1"])
	}
}

// A multi-line value cannot be listed as one line per host: the consumer
// is refused with the artifact and host named.
func TestNodeScopedArtifactMultiLineRefused(t *testing.T) {
	n := newMemNet("m1")
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		if strings.Contains(content, "pub.sh") {
			h.put(env["CP_OUTPUT_DIR"]+"/node.pub", []byte("a\nb\n"))
		}
		h.set("x", "yes")
		return 0
	}
	n.check = func(h *memHost, cmd string, env map[string]string) (string, int) { return "yes\n", 0 }
	pub := newJob("pub", evidence("published", "state x", "yes"))
	pub.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "node.pub", Sensitivity: protocol.SensitivityPublic, Scope: protocol.ScopeNode}}
	mesh := newJob("mesh", evidence("meshed", "state x", "yes"))
	mesh.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "node.pub"}}
	p := &protocol.Plan{ID: "p", Instances: []*protocol.JobInstance{newInst(pub, "s", "m1"), newInst(mesh, "s", "m1", "pub[m1]")}}
	p.Intent.Hosts = []protocol.Host{{Name: "m1", Role: "master"}}
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, p, RunInput{})
	if in := wantStatus(t, res, "mesh[m1]", StatusFailed); !strings.Contains(in.Reason, "node.pub of host m1 holds more than one line") {
		t.Errorf("reason %q; want the artifact and host named", in.Reason)
	}
}
