package engine

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// An instance with RunOn executes on that host: its script, evidence,
// inputs and marker are there, CP_HOST and the host attributes are its own
// host's, and its own host is never contacted for it.
func TestRunOnExecutesElsewhereForItsHost(t *testing.T) {
	for _, stepByStep := range []bool{false, true} {
		t.Run(map[bool]string{false: "one-session", true: "step-by-step"}[stepByStep], func(t *testing.T) {
			n := clusterNet("w1")
			var mu sync.Mutex
			seen := map[string]string{}
			base := n.script
			n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
				if strings.Contains(content, "drain") {
					mu.Lock()
					seen["ran on"], seen["CP_HOST"], seen["CP_HOST_ADDRESS"] = h.name, env[protocol.EnvHost], env[protocol.EnvHostAddress]
					mu.Unlock()
					tok, _ := h.file(env["CP_ARTIFACT_KUBEADM_JOIN_TOKEN"])
					if string(tok) != testToken {
						return 4
					}
					h.set("drained:"+env[protocol.EnvHost], "yes")
				}
				return base(h, content, env, out)
			}
			e, _ := newTestEngine(n, func(c *Config) { c.StateBecome = stepByStep })
			plan := clusterPlan("w1")
			drain := newJob("drain", evidence("node_drained", "state drained:w1", "yes"))
			drain.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "kubeadm.join_token"}}
			in := newInst(drain, "join", "w1", "init[m1]")
			in.RunOn = "m1"
			plan.Instances = append(plan.Instances, in)
			res := mustRun(t, e, plan, RunInput{OperationID: "op-1"})
			got := wantStatus(t, res, "drain[w1]", StatusDone)
			if got.Host != "w1" {
				t.Errorf("result host got: %q want: w1", got.Host)
			}
			if seen["ran on"] != "m1" || seen["CP_HOST"] != "w1" || seen["CP_HOST_ADDRESS"] != "10.0.0.2" {
				t.Errorf("drain[w1] got: %v want: ran on m1 with CP_HOST w1, CP_HOST_ADDRESS 10.0.0.2", seen)
			}
			if n.host("m1").runCount("drain[w1]") != 1 || n.host("w1").runCount("drain[w1]") != 0 {
				t.Errorf("drain[w1] runs got: m1 %d, w1 %d want: 1 on m1", n.host("m1").runCount("drain[w1]"), n.host("w1").runCount("drain[w1]"))
			}
			marker := layout{root: "/var/lib/cp"}.marker("drain:w1")
			if _, ok := n.host("m1").file(marker); !ok {
				t.Errorf("no marker of drain[w1] on m1")
			}
			if _, ok := n.host("w1").file(marker); ok {
				t.Errorf("w1 has the marker of drain[w1]")
			}
			// Satisfied on a second run, checked on m1.
			res = mustRun(t, e, plan, RunInput{OperationID: "op-2"})
			wantStatus(t, res, "drain[w1]", StatusSatisfied)
			if n.host("m1").runCount("drain[w1]") != 1 {
				t.Errorf("drain[w1] ran again")
			}
		})
	}
}

// A RunOn host that is not a host of the intent is refused before anything runs.
func TestRunOnUnknownHostRefused(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, nil)
	plan := clusterPlan("w1")
	plan.Instances[1].RunOn = "m9"
	_, err := e.Run(context.Background(), plan, RunInput{})
	if err == nil || !strings.Contains(err.Error(), `runs on host "m9", which is not a host of the intent`) {
		t.Errorf("got: %v want: the unknown host named", err)
	}
	if n.dials != 0 {
		t.Errorf("dials got: %d want: 0", n.dials)
	}
}
