package intent

import (
	"slices"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The spec's choices reach the planner: choosing each candidate at the
// provider-selection gate binds that candidate, and a choice the gate does
// not offer fails the plan.
func TestSpecChoicesBindTheChosenCandidate(t *testing.T) {
	cat := builtinCat(t)
	s3 := func(name string) capability.Candidate {
		return capability.Candidate{Name: name, Provider: "aws_s3", Source: capability.SourceExternal,
			Capability: protocol.Capability{Key: "object_storage.s3", Attributes: map[string]string{"endpoint": "https://" + name + ".example", "bucket": "traces"}}}
	}
	base := Spec{Pack: "tempo", Name: "tracing", Environment: "qa", ResourceType: "observability.tempo",
		Hosts:  []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, nil)},
		Params: map[string]string{"namespace": "tracing"},
		State: planner.State{Artifacts: []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Host: "master-1", Ref: "master-1:/etc/kubernetes/admin.conf"},
			{ID: "object_storage.s3.endpoint", Sensitivity: protocol.SensitivityPublic, Value: "https://s3.example"},
			{ID: "object_storage.s3.credentials", Sensitivity: protocol.SensitivitySecret, Ref: "env:S3_CREDENTIALS"}}},
		Candidates: []capability.Candidate{
			{Name: "cp_kubernetes_cluster.qa", Provider: "cp_kubernetes_cluster", Source: capability.SourceResource, Capability: protocol.Capability{Key: "kubernetes.cluster"}},
			{Name: "cp_kubernetes_cluster.qa", Provider: "kubernetes_secrets", Source: capability.SourceResource, Capability: protocol.Capability{Key: "secret.store"}},
			s3("aws-a"), s3("aws-b"),
		}}
	env := Planning{Catalog: cat, Now: time.Unix(0, 0),
		Policy: capability.Policy{"object_storage.s3": {"qa": {AllowedProviders: []string{"aws_s3"}}}}}
	actor := Actor{Name: "alice", Roles: []string{"sre"}}
	const gate = "select-object-storage-s3-provider"

	waiting, err := base.Compose(env, Change{Action: "install"})
	if err != nil {
		t.Fatalf("no choice: %v", err)
	}
	if g := gateOf(waiting.Composed.Plan, gate); g == nil || g.Chosen != "" {
		t.Fatalf("no choice got gate %+v want: %s waiting, nothing chosen", g, gate)
	}
	for _, name := range []string{"aws-a", "aws-b"} {
		s := base
		s.Choices = Decisions([]Approval{{Gate: gate, Option: "bind " + name}}, actor)
		req := s.Request(env, Change{Action: "install"})
		if !slices.EqualFunc(req.Choices, s.Choices, func(a, b protocol.Decision) bool { return a.Gate == b.Gate && a.Option == b.Option }) {
			t.Fatalf("request choices got %v want %v", req.Choices, s.Choices)
		}
		op, err := s.Compose(env, Change{Action: "install"})
		if err != nil {
			t.Fatalf("bind %s: %v", name, err)
		}
		var bound string
		for _, d := range op.Composed.Decisions {
			if d.Requirement.Key == "object_storage.s3" && d.Kind == capability.KindBind {
				bound = d.Binding.Provider
			}
		}
		if bound != name {
			t.Errorf("choice bind %s got binding %q want %q", name, bound, name)
		}
		if g := gateOf(op.Composed.Plan, gate); g == nil || g.Chosen != "bind "+name {
			t.Errorf("choice bind %s got gate %+v want chosen %q", name, g, "bind "+name)
		}
	}
	s := base
	s.Choices = Decisions([]Approval{{Gate: gate, Option: "bind aws-c"}}, actor)
	if _, err := s.Compose(env, Change{Action: "install"}); err == nil {
		t.Error("an option the gate lacks got: planned want: an error")
	}
}

func gateOf(p *protocol.Plan, id string) *protocol.Gate {
	for _, in := range p.Instances {
		if in.Gate != nil && in.Gate.ID == id {
			return in.Gate
		}
	}
	return nil
}

// A create option chosen through the spec plans the sub-operation that
// creates the provider; without the choice the exception gate waits and
// nothing is created.
func TestSpecChoicesCreateOptionPlansTheSubOperation(t *testing.T) {
	cat := builtinCat(t)
	s := Spec{Pack: "tempo", Name: "tracing", Environment: "prod",
		Hosts:  []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, nil)},
		Params: map[string]string{"namespace": "tracing"},
		State: planner.State{Artifacts: []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Host: "master-1", Ref: "master-1:/etc/kubernetes/admin.conf"},
			{ID: "object_storage.s3.endpoint", Sensitivity: protocol.SensitivityPublic, Value: "https://s3.example"},
			{ID: "object_storage.s3.credentials", Sensitivity: protocol.SensitivitySecret, Ref: "env:S3_CREDENTIALS"}}},
		Candidates: []capability.Candidate{
			{Name: "cp_kubernetes_cluster.prod", Provider: "cp_kubernetes_cluster", Source: capability.SourceResource, Capability: protocol.Capability{Key: "kubernetes.cluster"}},
			{Name: "cp_kubernetes_cluster.prod", Provider: "kubernetes_secrets", Source: capability.SourceResource, Capability: protocol.Capability{Key: "secret.store"}},
		}}
	env := Planning{Catalog: cat, Now: time.Unix(0, 0),
		Policy: capability.Policy{"object_storage.s3": {"prod": {AllowedProviders: []string{"aws_s3"}, ExceptionRoles: []string{"security"}}}}}
	for _, tc := range []struct {
		name   string
		choice []Approval
		roles  []string
		subOps bool
	}{
		{name: "no choice waits", subOps: false},
		{name: "granted create", choice: []Approval{{Gate: "exception-object-storage-s3", Option: "grant exception: create dedicated_minio"}}, roles: []string{"security"}, subOps: true},
		{name: "create by an actor without the role waits", choice: []Approval{{Gate: "exception-object-storage-s3", Option: "grant exception: create dedicated_minio"}}, roles: []string{"sre"}, subOps: false},
	} {
		sp := s
		sp.Choices = Decisions(tc.choice, Actor{Name: "alice", Roles: tc.roles})
		op, err := sp.Compose(env, Change{Action: "install"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := len(op.Composed.Plan.SubOps) > 0; got != tc.subOps {
			t.Errorf("%s got sub-operations %v want %v", tc.name, op.Composed.Plan.SubOps, tc.subOps)
		}
	}
}
