package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// builtinClusterState is an existing cluster's state: its API and the
// admin kubeconfig kept on the first master.
func builtinClusterState() State {
	return State{
		Capabilities: []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.cluster"}},
		Artifacts: []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Host: "master-1",
			Producer: "fetch-admin-kubeconfig", Ref: "master-1:/var/lib/cp/artifacts/x/kubeconfig.admin"}},
	}
}

// builtinIntent is clusterIntent with the builtin pack's parameters.
func builtinIntent(masters, workers int, action string) protocol.Intent {
	in := clusterIntent(masters, workers)
	in.Action, in.TargetResource = action, "prod-k8s"
	in.Parameters = map[string]string{"cluster_name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"}
	return in
}

func instanceOf(t *testing.T, p *protocol.Plan, id string) *protocol.JobInstance {
	t.Helper()
	in, ok := p.Instance(id)
	if !ok {
		var ids []string
		for _, x := range p.Instances {
			ids = append(ids, x.ID)
		}
		t.Fatalf("no instance %s in plan: %s", id, strings.Join(ids, " "))
	}
	return in
}

// remove_node's kubectl jobs run on the first master for the target node;
// the node-local reset stays on the node.
func TestRunOnFirstMasterRemoveNode(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := builtinIntent(2, 2, "remove_node")
	in.Targets = []string{"worker-2"}
	p, err := Build(Input{PlanID: "op-rm", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"drain-node[worker-2]": "master-1", "delete-node[worker-2]": "master-1", "reset-node[worker-2]": ""} {
		ji := instanceOf(t, p, id)
		if ji.Host != "worker-2" || ji.RunOn != want {
			t.Errorf("%s: got: host %q run on %q want: host worker-2, run on %q", id, ji.Host, ji.RunOn, want)
		}
	}
	// The plan says where they run, for people and in the JSON view.
	text := RenderAdvanced(p, AdvancedOptions{})
	if !strings.Contains(text, "  - drain-node[worker-2] (host worker-2)\n      runs on: master-1\n") {
		t.Errorf("advanced rendering does not say drain-node[worker-2] runs on master-1:\n%s", text)
	}
	for _, ji := range View(p).Instances {
		if ji.ID == "delete-node[worker-2]" && ji.RunOn != "master-1" {
			t.Errorf("JSON view: delete-node[worker-2] run_on got: %q want: master-1", ji.RunOn)
		}
	}
	// Removing the first master itself: it runs on its own host.
	in.Targets = []string{"master-1"}
	p, err = Build(Input{PlanID: "op-rm", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	if ji := instanceOf(t, p, "drain-node[master-1]"); ji.RunOn != "" {
		t.Errorf("drain-node[master-1] run on got: %q want: its own host", ji.RunOn)
	}
	// Without a master there is nowhere to run it.
	in = builtinIntent(0, 2, "remove_node")
	in.Targets = []string{"worker-2"}
	_, err = Build(Input{PlanID: "op-rm", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err == nil || !strings.Contains(err.Error(), "job drain-node: scope.run_on first_master, but the intent has no host with role master") {
		t.Errorf("got: %v want: the job and scope.run_on named", err)
	}
}

// upgrade moves drain (first master), upgrade (node) and uncordon (first
// master) over the workers one at a time: rolling_after chains each
// worker's drain to the previous worker's uncordon.
func TestRollingUpgradeOfWorkers(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := builtinIntent(1, 3, "upgrade")
	in.Parameters["kubernetes_version"] = "1.32.2"
	p, err := Build(Input{PlanID: "op-up", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"worker-1", "worker-2", "worker-3"} {
		for job, runOn := range map[string]string{"drain-node-for-upgrade": "master-1", "upgrade-node": "", "uncordon-node": "master-1"} {
			if ji := instanceOf(t, p, job+"["+w+"]"); ji.Host != w || ji.RunOn != runOn {
				t.Errorf("%s[%s]: got: host %q run on %q want: host %s, run on %q", job, w, ji.Host, ji.RunOn, w, runOn)
			}
		}
		if needs := instanceOf(t, p, "upgrade-node["+w+"]").Needs; !slices.Contains(needs, "drain-node-for-upgrade["+w+"]") {
			t.Errorf("upgrade-node[%s] needs %v, want its drain", w, needs)
		}
		if needs := instanceOf(t, p, "uncordon-node["+w+"]").Needs; !slices.Contains(needs, "upgrade-node["+w+"]") {
			t.Errorf("uncordon-node[%s] needs %v, want its upgrade", w, needs)
		}
	}
	for prev, next := range map[string]string{"worker-1": "worker-2", "worker-2": "worker-3"} {
		if needs := instanceOf(t, p, "drain-node-for-upgrade["+next+"]").Needs; !slices.Contains(needs, "uncordon-node["+prev+"]") {
			t.Errorf("drain-node-for-upgrade[%s] needs %v, want uncordon-node[%s]: one worker out of service at a time", next, needs, prev)
		}
	}
	if needs := instanceOf(t, p, "drain-node-for-upgrade[worker-1]").Needs; slices.ContainsFunc(needs, func(s string) bool { return strings.HasPrefix(s, "uncordon-node") }) {
		t.Errorf("the first worker's drain needs %v; it waits for no uncordon", needs)
	}
}
