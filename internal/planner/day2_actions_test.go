package planner

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// reaches reports whether instance from depends, directly or through
// others, on instance to.
func reaches(p *protocol.Plan, from, to string) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ji, ok := p.Instance(id)
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		for _, n := range ji.Needs {
			if n == to {
				return true
			}
			stack = append(stack, n)
		}
	}
	return false
}

// jobIDs are the plan's job instances (gates left out), sorted.
func jobIDs(p *protocol.Plan) []string {
	var ids []string
	for _, x := range p.Instances {
		if !x.IsGate() {
			ids = append(ids, x.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// Each day-2 action of the kubernetes pack plans against an existing
// cluster, with exactly the instances its template names on the hosts it
// expands to.
func TestKubernetesDay2ActionsPlan(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	for _, c := range []struct {
		action  string
		targets []string
		params  map[string]string
		want    []string
	}{
		{"snapshot", nil, nil, []string{"etcd-snapshot[master-1]"}},
		{"restore", nil, nil, []string{"restore-etcd-snapshot[master-1]"}},
		{"cordon", []string{"worker-2"}, nil, []string{"cordon-node[worker-2]"}},
		{"drain", []string{"worker-2"}, nil, []string{"cordon-node[worker-2]", "drain-cordoned-node[worker-2]"}},
		{"uncordon", []string{"worker-1", "worker-2"}, nil, []string{"uncordon-target-node[worker-1]", "uncordon-target-node[worker-2]"}},
		{"check_certificates", nil, nil, []string{"check-certificates[master-1]", "check-certificates[master-2]"}},
		{"renew_certificates", nil, nil, []string{"etcd-snapshot[master-1]", "renew-certificates[master-1]", "renew-certificates[master-2]"}},
		{"repair", nil, nil, []string{"check-certificates[master-1]", "check-certificates[master-2]", "verify-cluster-health[master-1]"}},
		{"add_master", []string{"master-3"}, nil, []string{"build-node-inventory", "check-host-identities", "configure-node-proxy[master-3]", "generate-certificate-key[master-1]",
			"generate-join-token[master-1]", "generate-wireguard-key[master-1]", "generate-wireguard-key[master-2]",
			"generate-wireguard-key[master-3]", "generate-wireguard-key[worker-1]", "generate-wireguard-key[worker-2]", "join-control-plane[master-3]", "label-node[master-3]",
			"preflight-node[master-3]", "prepare-kubernetes-prerequisites[master-3]", "update-wireguard-mesh[master-1]", "update-wireguard-mesh[master-2]",
			"update-wireguard-mesh[master-3]", "update-wireguard-mesh[worker-1]", "update-wireguard-mesh[worker-2]",
			"validate-node[master-3]", "verify-node-ready[master-3]", "verify-wireguard-mesh[master-1]", "verify-wireguard-mesh[master-2]",
			"verify-wireguard-mesh[master-3]", "verify-wireguard-mesh[worker-1]", "verify-wireguard-mesh[worker-2]"}},
	} {
		t.Run(c.action, func(t *testing.T) {
			in := builtinIntent(2, 2, c.action)
			if c.action == "add_master" {
				in = builtinIntent(3, 2, c.action)
			}
			in.Targets = c.targets
			for k, v := range c.params {
				in.Parameters[k] = v
			}
			p, err := Build(Input{PlanID: "op-" + c.action, Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
			if err != nil {
				t.Fatal(err)
			}
			if got := jobIDs(p); !slices.Equal(got, c.want) {
				t.Errorf("instances:\n got: %v\nwant: %v", got, c.want)
			}
		})
	}
}

// The upgrade takes an etcd snapshot on the first master before any
// master's control plane changes; customizing the snapshot away still
// plans (the requirement is optional).
func TestUpgradeSnapshotsEtcdFirst(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := builtinIntent(3, 1, "upgrade")
	in.Parameters["kubernetes_version"] = "1.32.2"
	p, err := Build(Input{PlanID: "op-up", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	snap := instanceOf(t, p, "etcd-snapshot[master-1]")
	if snap.Stage != "snapshot-etcd" {
		t.Errorf("etcd-snapshot stage %q, want snapshot-etcd", snap.Stage)
	}
	for _, m := range []string{"master-1", "master-2", "master-3"} {
		if id := "upgrade-control-plane[" + m + "]"; !reaches(p, id, snap.ID) {
			t.Errorf("%s does not wait for %s", id, snap.ID)
		}
	}
	if !reaches(p, "upgrade-node[worker-1]", snap.ID) {
		t.Errorf("upgrade-node[worker-1] does not come after the snapshot")
	}
	if reaches(p, snap.ID, "upgrade-control-plane[master-1]") {
		t.Errorf("the snapshot waits for the upgrade")
	}
	p, err = Build(Input{PlanID: "op-up", Intent: in, Pack: k, Now: testNow, State: builtinClusterState(),
		Customization: &protocol.Customization{BaseTemplate: "kubernetes.upgrade@1.0.0",
			Changes: []protocol.CustomizationChange{{Removed: "etcd-snapshot"}}}})
	if err != nil {
		t.Fatalf("upgrade without the snapshot: %v", err)
	}
	if _, ok := p.Instance("etcd-snapshot[master-1]"); ok {
		t.Errorf("removed etcd-snapshot still planned")
	}
}

// Removing a master: drain, then the snapshot and the removal of its
// etcd member through the first master, then the reset of the leaving
// host; a worker's removal plans the same jobs (the member removal finds
// no member).
func TestRemoveMasterRemovesEtcdMemberBeforeReset(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := builtinIntent(3, 1, "remove_node")
	in.Targets = []string{"master-3"}
	p, err := Build(Input{PlanID: "op-rm", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	member := instanceOf(t, p, "remove-etcd-member[master-3]")
	if member.RunOn != "master-1" {
		t.Errorf("remove-etcd-member[master-3] runs on %q, want master-1", member.RunOn)
	}
	for _, c := range [][2]string{
		{"remove-etcd-member[master-3]", "etcd-snapshot[master-1]"},
		{"remove-etcd-member[master-3]", "drain-node[master-3]"},
		{"reset-node[master-3]", "remove-etcd-member[master-3]"},
		{"reset-node[master-3]", "etcd-snapshot[master-1]"},
	} {
		if !reaches(p, c[0], c[1]) {
			t.Errorf("%s does not wait for %s; needs %v", c[0], c[1], instanceOf(t, p, c[0]).Needs)
		}
	}
	text := RenderAdvanced(p, AdvancedOptions{})
	if !strings.Contains(text, "remove-etcd-member[master-3] (host master-3)\n      runs on: master-1\n") {
		t.Errorf("the plan does not say where the member removal runs:\n%s", text)
	}
	// The delete template's reset needs no member removal and plans none.
	del := builtinIntent(3, 1, "delete")
	p, err = Build(Input{PlanID: "op-del", Intent: del, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range jobIDs(p) {
		if strings.HasPrefix(id, "remove-etcd-member") || strings.HasPrefix(id, "etcd-snapshot") {
			t.Errorf("delete plans %s", id)
		}
	}
}

// The drain action's drain waits for the cordon of the same node only;
// the restore is held by its destructive gate.
func TestDrainAndRestoreOrdering(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := builtinIntent(1, 2, "drain")
	p, err := Build(Input{PlanID: "op-drain", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"worker-1", "worker-2"} {
		d := instanceOf(t, p, "drain-cordoned-node["+w+"]")
		if !slices.Contains(d.Needs, "cordon-node["+w+"]") {
			t.Errorf("%s needs %v, want its cordon", d.ID, d.Needs)
		}
		other := map[string]string{"worker-1": "worker-2", "worker-2": "worker-1"}[w]
		if reaches(p, d.ID, "cordon-node["+other+"]") {
			t.Errorf("%s waits for %s's cordon", d.ID, other)
		}
	}
	in = builtinIntent(1, 1, "restore")
	p, err = Build(Input{PlanID: "op-restore", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err != nil {
		t.Fatal(err)
	}
	var gate string
	for _, x := range p.Instances {
		if x.IsGate() && x.Gate.ID == "confirm-etcd-restore" {
			gate = x.ID
		}
	}
	if gate == "" || !reaches(p, "restore-etcd-snapshot[master-1]", gate) {
		t.Errorf("restore-etcd-snapshot is not held by confirm-etcd-restore (gate instance %q)", gate)
	}
	// A snapshot name that is not one etcd-snapshot writes is refused at plan.
	in.Parameters["etcd_snapshot"] = "../../etc/shadow"
	_, err = Build(Input{PlanID: "op-restore", Intent: in, Pack: k, Now: testNow, State: builtinClusterState()})
	if err == nil || !strings.Contains(err.Error(), "etcd_snapshot") {
		t.Errorf("got: %v want: etcd_snapshot refused", err)
	}
}
