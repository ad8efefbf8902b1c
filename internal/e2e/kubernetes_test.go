package e2e

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const clusterName = "prod-k8s"

// The seed's cluster: 3 masters and 5 workers; worker-6 and worker-7
// are added later. CP_E2E_QUICK=1 runs the same lifecycle on 1 master and
// 2 workers (without the HA constraint) for a faster loop while editing.
func clusterSize() (masters, workers []string, ha bool) {
	if os.Getenv("CP_E2E_QUICK") == "1" {
		return []string{"master-1"}, []string{"worker-1", "worker-2"}, false
	}
	return []string{"master-1", "master-2", "master-3"}, []string{"worker-1", "worker-2", "worker-3", "worker-4", "worker-5"}, true
}

// clusterRequest is the kubernetes intent of seed 000 §1 as the provider
// builds it for cp_kubernetes_cluster: 3 masters and 5 workers, calico,
// containerd, longhorn, prod, eu-central, HA control plane; several
// masters make the first one the control plane endpoint.
func (e *env) clusterRequest(action, version string, hosts []protocol.Host, targets []string, st planner.State) planner.Request {
	params := map[string]string{
		"cluster_name": clusterName, "kubernetes_version": version, "cni": "calico",
		"container_runtime": "containerd", "storage": "longhorn",
	}
	masters := 0
	for _, h := range hosts {
		if h.Role == protocol.RoleMaster {
			masters++
		}
	}
	if masters > 1 {
		params["control_plane_endpoint"] = e.addr("master-1") + ":6443"
	}
	ha := strconv.FormatBool(masters >= 3)
	return planner.Request{
		PlanID: clusterName + "." + action, PackID: "kubernetes", Environment: "prod", State: st,
		Intent: protocol.Intent{
			ID: clusterName, Action: action, TargetResource: clusterName, TargetResourceType: "kubernetes.cluster",
			Parameters: params, Hosts: hosts, Targets: targets,
			Constraints: map[string]string{"environment": "prod", "region": "eu-central", "require_ha_control_plane": ha},
		},
	}
}

// clusterState is what the provider passes to operations on an existing
// cluster: its capabilities and the artifacts of earlier operations.
func clusterState(arts []protocol.Artifact) planner.State {
	return planner.State{
		Capabilities: []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.cluster"}},
		Artifacts:    arts,
	}
}

// TestKubernetesLifecycle creates the seed's cluster and runs every other
// action of the kubernetes pack on it, plus the workload packs (Tempo with
// a MinIO sub-operation and with a bound S3, MinIO, PostgreSQL).
func TestKubernetesLifecycle(t *testing.T) {
	masters, createdWorks, _ := clusterSize()
	names := append(append(slices.Clone(masters), createdWorks...), "worker-6", "worker-7")
	e := startHosts(t, clusterName, names...)
	hosts := e.intentHosts(masters, createdWorks)
	hosts[len(masters)].Labels = map[string]string{"tier": "app"}
	hosts[len(masters)+1].Taints = []string{"dedicated=db:NoSchedule"}

	step := func(name string, f func(t *testing.T)) {
		if t.Failed() {
			t.Logf("skipping %s: an earlier step failed", name)
			return
		}
		t.Run(name, func(t *testing.T) {
			e.t = t
			f(t)
		})
	}
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	var arts []protocol.Artifact

	step("create", func(t *testing.T) {
		res := e.runCompleted(create.Plan, engine.RunInput{})
		arts = res.Artifacts
		kc := artifact(t, arts, "kubeconfig.admin")
		if kc.Sensitivity != protocol.SensitivitySecret || kc.Value != "" || !strings.HasPrefix(kc.Ref, "master-1:/") {
			t.Errorf("kubeconfig.admin = %+v; want a secret by reference master-1:/path without a value", kc)
		}
		tok := artifact(t, arts, "kubeadm.join_token")
		if tok.Sensitivity != protocol.SensitivitySecret || tok.Value != "" || tok.Ref == "" {
			t.Errorf("kubeadm.join_token = %+v; want a secret by reference", tok)
		}
		if d := time.Until(tok.ExpiresAt); d < 23*time.Hour || d > 25*time.Hour {
			t.Errorf("join token expires at %s; want about 24h from now", tok.ExpiresAt)
		}
		for _, w := range createdWorks {
			found := false
			for _, ev := range res.Evidence {
				if ev.Instance == "join-workers["+w+"]" && ev.ID == "node_registered" && ev.Passed {
					found = true
				}
			}
			if !found {
				t.Errorf("no passed node_registered evidence for %s", w)
			}
		}
		st := e.simState()
		want := append(slices.Clone(masters), createdWorks...)
		slices.Sort(want)
		if got := e.nodes(); !slices.Equal(got, want) {
			t.Errorf("simulated nodes = %v, want %v", got, want)
		}
		for _, n := range want {
			if !st.NodeReady(n) {
				t.Errorf("node %s is not Ready in the simulator", n)
			}
		}
		if st.CNI != "calico" {
			t.Errorf("CNI = %q, want calico", st.CNI)
		}
		if st.Releases["longhorn-system/longhorn"] == nil {
			t.Errorf("no longhorn release in the simulator: %v", st.Releases)
		}
	})
	step("second-run-satisfied", func(t *testing.T) {
		before := e.simLogLines()
		res := e.runCompleted(create.Plan, engine.RunInput{})
		for _, in := range res.Instances {
			if in.Status != engine.StatusSatisfied {
				t.Errorf("%s: %s (%s); want satisfied", in.ID, in.Status, in.Reason)
			}
		}
		// Only evidence ran: no command that changes a host.
		for host, n := range before {
			for _, l := range e.simLogSince(host, n) {
				for _, w := range []string{" apt-get install", " kubeadm init", " kubeadm join", " kubeadm token create", " helm upgrade", " kubectl --kubeconfig /etc/kubernetes/admin.conf apply", " systemctl restart", " systemctl enable"} {
					if strings.Contains(l, w) {
						t.Errorf("%s ran on %s in the second run: %s", strings.TrimSpace(w), host, l)
					}
				}
			}
		}
	})

	// What the cluster's state holds after create.
	withWorker6 := e.intentHosts(masters, append(slices.Clone(createdWorks), "worker-6"))
	withWorker7 := e.intentHosts(masters, append(slices.Clone(createdWorks), "worker-6", "worker-7"))

	step("add-node-valid-token", func(t *testing.T) {
		c := e.compose(e.clusterRequest("add_node", "1.31.2", withWorker6, []string{"worker-6"}, clusterState(arts)))
		if ids := jobInstances(c.Plan, "generate-join-token"); len(ids) != 0 {
			t.Fatalf("plan with a valid join token inserts %v", ids)
		}
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
		arts = protocol.MergeArtifacts(arts, res.Artifacts)
		if st := e.simState(); !st.NodeReady("worker-6") {
			t.Errorf("worker-6 is not a Ready node: %v", e.nodes())
		}
		if in := instance(t, res, "join-worker[worker-6]"); in.Status != engine.StatusDone {
			t.Errorf("join-worker[worker-6]: %s", in.Status)
		}
	})

	step("add-node-expired-token", func(t *testing.T) {
		expired := slices.Clone(arts)
		for i := range expired {
			if expired[i].ID == "kubeadm.join_token" {
				expired[i].ExpiresAt = time.Now().Add(-time.Hour)
			}
		}
		c := e.compose(e.clusterRequest("add_node", "1.31.2", withWorker7, []string{"worker-7"}, clusterState(expired)))
		gen := jobInstances(c.Plan, "generate-join-token")
		if len(gen) != 1 {
			t.Fatalf("plan with an expired join token: generate-join-token instances %v, want one", gen)
		}
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(expired)})
		if in := instance(t, res, gen[0]); in.Status != engine.StatusDone {
			t.Errorf("%s: %s, want done", gen[0], in.Status)
		}
		tok := artifact(t, res.Artifacts, "kubeadm.join_token")
		if !tok.ExpiresAt.After(time.Now().Add(23 * time.Hour)) {
			t.Errorf("new join token expires at %s", tok.ExpiresAt)
		}
		arts = protocol.MergeArtifacts(arts, res.Artifacts)
		if st := e.simState(); !st.NodeReady("worker-7") {
			t.Errorf("worker-7 is not a Ready node: %v", e.nodes())
		}
	})

	step("remove-node", func(t *testing.T) {
		c := e.compose(e.clusterRequest("remove_node", "1.31.2", withWorker7, []string{"worker-7"}, clusterState(arts)))
		// Without a decision the destructive gate holds the plan back.
		res := e.run(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), OperationID: c.Plan.ID + "-undecided"})
		if res.Operation.Status == protocol.StatusCompleted || len(res.Waiting) == 0 {
			t.Fatalf("remove_node without a decision: %s, waiting %v", res.Operation.Status, res.Waiting)
		}
		if !slices.Contains(e.nodes(), "worker-7") {
			t.Fatalf("worker-7 was removed while the gate waited")
		}
		e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
			{Gate: "confirm-node-removal", Option: "remove node", Actor: "alice", Roles: []string{"sre"}}}})
		if slices.Contains(e.nodes(), "worker-7") {
			t.Errorf("worker-7 is still a node: %v", e.nodes())
		}
		if _, err := e.hostFile("worker-7", "etc/kubernetes/kubelet.conf"); err == nil {
			t.Errorf("worker-7 still has /etc/kubernetes/kubelet.conf")
		}
	})

	e.workloads(step, withWorker6, arts)

	step("upgrade", func(t *testing.T) {
		c := e.compose(e.clusterRequest("upgrade", "1.32.2", withWorker6, nil, clusterState(arts)))
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
			{Gate: "approve-upgrade", Option: "upgrade", Actor: "alice", Roles: []string{"sre"}}}})
		arts = protocol.MergeArtifacts(arts, res.Artifacts)
		// Rolling: one node at a time, masters before workers.
		var prevEnd time.Time
		for _, job := range []string{"upgrade-control-plane", "upgrade-node"} {
			for _, in := range res.Instances {
				if in.Job != job {
					continue
				}
				if in.Status != engine.StatusDone {
					t.Errorf("%s: %s, want done", in.ID, in.Status)
				}
				if in.Started.Before(prevEnd) {
					t.Errorf("%s started at %s, before the previous node finished (%s)", in.ID, in.Started, prevEnd)
				}
				prevEnd = in.Started.Add(in.Duration)
			}
		}
		st := e.simState()
		if st.API == nil || st.API.Version != "v1.32.2" {
			t.Errorf("API server version = %+v, want v1.32.2", st.API)
		}
		for _, h := range withWorker6 {
			if v := st.Hosts[h.Name].Packages["kubelet"]; !strings.HasPrefix(v, "1.32.2-") {
				t.Errorf("kubelet on %s is %q, want 1.32.2", h.Name, v)
			}
			if !st.NodeReady(h.Name) {
				t.Errorf("%s is not Ready after the upgrade", h.Name)
			}
		}
	})

	step("delete", func(t *testing.T) {
		c := e.compose(e.clusterRequest("delete", "1.32.2", withWorker6, nil, clusterState(arts)))
		e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
			{Gate: "confirm-cluster-deletion", Option: "delete cluster", Actor: "bob", Roles: []string{"platform_admin"}}}})
		st := e.simState()
		if st.API != nil || len(st.Nodes) != 0 {
			t.Errorf("after delete: API %+v, nodes %v", st.API, e.nodes())
		}
		for _, h := range withWorker6 {
			if _, err := e.hostFile(h.Name, "etc/kubernetes/kubelet.conf"); err == nil {
				t.Errorf("%s still has /etc/kubernetes/kubelet.conf", h.Name)
			}
		}
	})
}
