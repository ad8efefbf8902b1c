package intent

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func rerunHandle(workers ...string) Handle {
	h := Handle{Kind: ClusterKind, Name: "small", Version: "1.30", APIEndpoint: "10.0.0.1:6443",
		Hosts:     []HandleHost{{Name: "master-1", Address: "10.0.0.1", Role: protocol.RoleMaster}},
		Artifacts: []HandleArtifact{{ID: "kubeconfig.admin"}}}
	for _, w := range workers {
		h.Hosts = append(h.Hosts, HandleHost{Name: w, Address: "10.0.1." + w[len(w)-1:], Role: protocol.RoleWorker})
	}
	return h
}

// rerunPlan is a plan with a cluster-scoped deploy job on the first
// master and, per host named, an agent job on that host.
func rerunPlan(perHost ...string) *protocol.Plan {
	p := &protocol.Plan{Template: "p.install@1.0.0", Instances: []*protocol.JobInstance{
		{ID: "deploy", JobID: "deploy", Stage: "deploy", Pack: "p@1.0.0", Params: map[string]string{"namespace": "db"}, IdempotencyKey: "deploy:small:db"},
	}}
	for _, h := range perHost {
		p.Instances = append(p.Instances, &protocol.JobInstance{ID: "agent[" + h + "]", JobID: "agent", Stage: "deploy", Host: h, Pack: "p@1.0.0",
			Needs: []string{"deploy"}, IdempotencyKey: "agent:" + h})
	}
	return p
}

func TestHandleRerunNothingNew(t *testing.T) {
	base := func() HandleRerun {
		return HandleRerun{PriorCompleted: true, SameOwnIntent: true, Prior: rerunHandle("worker-1", "worker-2"), Next: rerunHandle("worker-1"),
			PriorPlans: []*protocol.Plan{rerunPlan()}, NextPlans: []*protocol.Plan{rerunPlan()}}
	}
	for _, tc := range []struct {
		name   string
		change func(*HandleRerun)
		want   bool
	}{
		{"same instances, a worker removed: no action", func(*HandleRerun) {}, true},
		{"per-host instances on the hosts that remain: no action", func(r *HandleRerun) {
			r.PriorPlans = []*protocol.Plan{rerunPlan("master-1", "worker-1", "worker-2")}
			r.NextPlans = []*protocol.Plan{rerunPlan("master-1", "worker-1")}
		}, true},
		{"a new host instance (worker added): action", func(r *HandleRerun) {
			r.Prior, r.Next = rerunHandle("worker-1"), rerunHandle("worker-1", "worker-2")
			r.PriorPlans = []*protocol.Plan{rerunPlan("master-1", "worker-1")}
			r.NextPlans = []*protocol.Plan{rerunPlan("master-1", "worker-1", "worker-2")}
		}, false},
		{"first master changed: action", func(r *HandleRerun) { r.Next.Hosts[0].Address = "10.0.0.9" }, false},
		{"first master renamed: action", func(r *HandleRerun) { r.Next.Hosts[0].Name = "master-9" }, false},
		{"API endpoint changed: action", func(r *HandleRerun) { r.Next.APIEndpoint = "10.0.0.9:6443" }, false},
		{"an artifact's reference changed: action", func(r *HandleRerun) { r.Next.Artifacts = []HandleArtifact{{ID: "kubeconfig.admin", Ref: "cp://x"}} }, false},
		{"a capability changed: action", func(r *HandleRerun) {
			r.Next.Capabilities = []protocol.Capability{{Key: "kubernetes.cluster", Attributes: map[string]string{"version": "1.31"}}}
		}, false},
		{"own intent changed: action", func(r *HandleRerun) { r.SameOwnIntent = false }, false},
		{"prior operation not completed: action", func(r *HandleRerun) { r.PriorCompleted = false }, false},
		{"an instance's parameters changed: action", func(r *HandleRerun) { r.NextPlans[0].Instances[0].Params = map[string]string{"namespace": "other"} }, false},
		{"an instance's idempotency key changed: action", func(r *HandleRerun) { r.NextPlans[0].Instances[0].IdempotencyKey = "deploy:small:db:2" }, false},
		{"another template: action", func(r *HandleRerun) { r.NextPlans[0].Template = "p.install@2.0.0" }, false},
		{"no plan under the new handle: action", func(r *HandleRerun) { r.NextPlans = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.change(&r)
			if got := r.NothingNew(); got != tc.want {
				t.Errorf("NothingNew() = %v, want %v", got, tc.want)
			}
		})
	}
}
