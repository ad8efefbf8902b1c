package planner

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// gateCatalog is a Catalog over fixture packs, for Compose.
type gateCatalog map[string]*protocol.ScenarioPack

func (c gateCatalog) Get(id, _ string) (*protocol.ScenarioPack, error) {
	return fakePacks(c).Get(id, "")
}

func (c gateCatalog) List() []*protocol.ScenarioPack {
	var out []*protocol.ScenarioPack
	for _, k := range protocol.SortedKeys(c) {
		out = append(out, c[k])
	}
	return out
}

func s3Cand(name, provider string) capability.Candidate {
	return capability.Candidate{Name: name, Provider: provider, Source: capability.SourceExternal,
		Capability: protocol.Capability{Key: "object_storage.s3", Attributes: map[string]string{"region": "eu-central", "encryption": "aws:kms"}}}
}

func usd(v float64) *float64 { return &v }

// composeTempo plans tempo.install in env with the given object storage
// candidates, policy, minio cost and choices.
func composeTempo(t *testing.T, env string, s3 []capability.Candidate, policy capability.Policy, minioUSD float64, choices ...protocol.Decision) (*Composed, error) {
	t.Helper()
	minio := fixtureMinio()
	if minioUSD > 0 {
		minio.Cost = &protocol.PackCost{MonthlyUSD: minioUSD}
	}
	tempo := fixtureTempo()
	tempo.Requires = []protocol.PackRequirement{{Capability: "object_storage.s3"}}
	cands := append([]capability.Candidate{
		{Name: "cp_kubernetes_cluster.prod", Provider: "cp_kubernetes", Source: capability.SourceResource, Capability: protocol.Capability{Key: "kubernetes.cluster"}},
		{Name: "vault-eu", Provider: "vault", Source: capability.SourceExternal, Capability: protocol.Capability{Key: "secret.store"}},
	}, s3...)
	return Compose(Request{PlanID: "op-700", Catalog: gateCatalog{"tempo": tempo, "minio": minio}, PackID: "tempo",
		Intent:      protocol.Intent{ID: "tempo-" + env, Action: "install", TargetResource: "tempo/" + env},
		Environment: env, Policy: policy, Candidates: cands, Now: testNow, Choices: choices,
		State: State{Capabilities: []protocol.Capability{{Key: "kubernetes.cluster"}, {Key: "secret.store"}}}})
}

func instance(p *protocol.Plan, id string) *protocol.JobInstance {
	for _, in := range p.Instances {
		if in.ID == id {
			return in
		}
	}
	return nil
}

func TestPlanGatesFromDecisions(t *testing.T) {
	sel := capability.Policy{"object_storage.s3": {"qa": {AllowedProviders: []string{"aws_s3", "dedicated_minio"}}}}
	exc := capability.Policy{"object_storage.s3": {"prod": {AllowedProviders: []string{"aws_s3"}, ExceptionRoles: []string{"security"}}}}
	cost := func(max float64) capability.Policy {
		return capability.Policy{"object_storage.s3": {"dev": {AllowedProviders: []string{"dedicated_minio"}, MaxMonthlyCostWithoutConfirmation: usd(max)}}}
	}
	two := []capability.Candidate{s3Cand("aws-a", "aws_s3"), s3Cand("aws-b", "aws_s3")}
	dec := func(gate, option string, roles ...string) protocol.Decision {
		return protocol.Decision{Gate: gate, Option: option, Actor: "alice", Roles: roles}
	}
	type want struct {
		gate     string // gate instance id; "" none
		gateType protocol.GateType
		chosen   string
		binding  string // binding provider of object_storage.s3
		minio    bool   // minio sub-operation planned
		heldBy   string // create-bucket (or minio/deploy-minio when minio) needs this
		err      string
	}
	cases := []struct {
		name    string
		env     string
		s3      []capability.Candidate
		policy  capability.Policy
		usd     float64
		choices []protocol.Decision
		want    want
	}{
		{name: "ambiguous candidates wait at provider selection", env: "qa", s3: two, policy: sel,
			want: want{gate: "select-object-storage-s3-provider", gateType: protocol.GateProviderSelection, heldBy: "select-object-storage-s3-provider"}},
		{name: "choosing aws-a binds aws-a", env: "qa", s3: two, policy: sel, choices: []protocol.Decision{dec("select-object-storage-s3-provider", "bind aws-a")},
			want: want{gate: "select-object-storage-s3-provider", gateType: protocol.GateProviderSelection, chosen: "bind aws-a", binding: "aws-a", heldBy: "select-object-storage-s3-provider"}},
		{name: "choosing aws-b binds aws-b", env: "qa", s3: two, policy: sel, choices: []protocol.Decision{dec("select-object-storage-s3-provider", "bind aws-b")},
			want: want{gate: "select-object-storage-s3-provider", chosen: "bind aws-b", binding: "aws-b", heldBy: "select-object-storage-s3-provider"}},
		{name: "an option the gate lacks fails the plan", env: "qa", s3: two, policy: sel, choices: []protocol.Decision{dec("select-object-storage-s3-provider", "bind aws_s3")},
			want: want{err: `gate select-object-storage-s3-provider (provider_selection) has no option "bind aws_s3"; its options: "bind aws-a", "bind aws-b", "cancel operation"`}},
		{name: "approval holds the minio sub-operation", env: "prod", policy: s3Policy(),
			want: want{gate: "approve-dedicated-minio", gateType: protocol.GateApproval, chosen: "create dedicated_minio", minio: true, heldBy: "approve-dedicated-minio"}},
		{name: "approved creation keeps the gate for the apply-time check", env: "prod", policy: s3Policy(), choices: []protocol.Decision{dec("approve-dedicated-minio", "create dedicated_minio", "sre")},
			want: want{gate: "approve-dedicated-minio", chosen: "create dedicated_minio", binding: "dedicated_minio", minio: true, heldBy: "approve-dedicated-minio"}},
		{name: "bind aws_s3 at the approval is refused at plan", env: "prod", policy: s3Policy(), choices: []protocol.Decision{dec("approve-dedicated-minio", "bind aws_s3", "sre")},
			want: want{err: `gate approve-dedicated-minio (approval) has no option "bind aws_s3"; its options: "create dedicated_minio", "cancel operation"`}},
		{name: "policy exception waits", env: "prod", s3: []capability.Candidate{s3Cand("minio-shared", "shared_minio")}, policy: exc,
			want: want{gate: "exception-object-storage-s3", gateType: protocol.GatePolicyException, heldBy: "exception-object-storage-s3"}},
		{name: "granted exception binds the forbidden candidate", env: "prod", s3: []capability.Candidate{s3Cand("minio-shared", "shared_minio")}, policy: exc,
			choices: []protocol.Decision{dec("exception-object-storage-s3", "grant exception: bind minio-shared", "security")},
			want:    want{gate: "exception-object-storage-s3", chosen: "grant exception: bind minio-shared", binding: "minio-shared", heldBy: "exception-object-storage-s3"}},
		{name: "granted exception creates", env: "prod", policy: exc,
			choices: []protocol.Decision{dec("exception-object-storage-s3", "grant exception: create dedicated_minio", "security")},
			want:    want{gate: "exception-object-storage-s3", chosen: "grant exception: create dedicated_minio", binding: "dedicated_minio", minio: true, heldBy: "exception-object-storage-s3"}},
		{name: "refused exception still waits", env: "prod", s3: []capability.Candidate{s3Cand("minio-shared", "shared_minio")}, policy: exc,
			choices: []protocol.Decision{dec("exception-object-storage-s3", "grant exception: bind minio-shared", "developer")},
			want:    want{gate: "exception-object-storage-s3", gateType: protocol.GatePolicyException, heldBy: "exception-object-storage-s3"}},
		{name: "cost under the threshold creates without a gate", env: "dev", policy: cost(50), usd: 40, want: want{binding: "dedicated_minio", minio: true}},
		{name: "cost over the threshold holds the creation", env: "dev", policy: cost(25), usd: 40,
			want: want{gate: "confirm-cost-dedicated-minio", gateType: protocol.GateCostConfirmation, chosen: "create dedicated_minio", minio: true, heldBy: "confirm-cost-dedicated-minio"}},
		{name: "confirmed cost creates behind the gate", env: "dev", policy: cost(25), usd: 40, choices: []protocol.Decision{dec("confirm-cost-dedicated-minio", "create dedicated_minio")},
			want: want{gate: "confirm-cost-dedicated-minio", chosen: "create dedicated_minio", binding: "dedicated_minio", minio: true, heldBy: "confirm-cost-dedicated-minio"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := composeTempo(t, tc.env, tc.s3, tc.policy, tc.usd, tc.choices...)
			w := tc.want
			if w.err != "" {
				if err == nil || !strings.Contains(err.Error(), w.err) || !errors.Is(err, capability.ErrUnknownOption) {
					t.Fatalf("got: %v want error containing %q", err, w.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := c.Plan
			var gates []string
			for _, in := range p.Instances {
				if in.Gate != nil {
					gates = append(gates, in.ID)
				}
			}
			if w.gate == "" && len(gates) > 0 || w.gate != "" && !slices.Equal(gates, []string{w.gate}) {
				t.Fatalf("gates got: %q want: %q", gates, w.gate)
			}
			if w.gate != "" {
				g := instance(p, w.gate).Gate
				if w.gateType != "" && g.Type != w.gateType {
					t.Errorf("gate type got: %s want: %s", g.Type, w.gateType)
				}
				if g.Chosen != w.chosen {
					t.Errorf("chosen got: %q want: %q", g.Chosen, w.chosen)
				}
			}
			var binding string
			for _, b := range p.Bindings {
				if b.Requirement.Key == "object_storage.s3" {
					binding = b.Provider
				}
			}
			if binding != w.binding {
				t.Errorf("binding got: %q want: %q", binding, w.binding)
			}
			minio := instance(p, "minio/deploy-minio")
			if (minio != nil) != w.minio {
				t.Fatalf("minio sub-operation got: %v want: %v", minio != nil, w.minio)
			}
			held := instance(p, "create-bucket")
			if w.minio {
				held = minio
				if !slices.Contains(instance(p, "create-bucket").Needs, "minio/verify-minio") {
					t.Errorf("create-bucket needs got: %q want minio/verify-minio", instance(p, "create-bucket").Needs)
				}
			}
			if w.heldBy != "" && !slices.Contains(held.Needs, w.heldBy) {
				t.Errorf("%s needs got: %q want: %s", held.ID, held.Needs, w.heldBy)
			}
			if w.heldBy == "" && len(gates) == 0 && slices.ContainsFunc(held.Needs, func(n string) bool { return instance(p, n).Gate != nil }) {
				t.Errorf("%s waits for a gate: %q", held.ID, held.Needs)
			}
		})
	}
}

// missingPack has two independent branches: publish reads the
// missing_input parameter endpoint, prepare does not.
func missingPack(spec protocol.ParamSpec) *protocol.ScenarioPack {
	p := &protocol.ScenarioPack{ID: "demo", Version: "1.0.0", Actions: []string{"install"},
		Parameters: map[string]protocol.ParamSpec{"endpoint": spec},
		Jobs: library(
			jobSpec{id: "prepare", expand: "each_node"},
			jobSpec{id: "publish", expand: "once", params: map[string]protocol.ParamSpec{"endpoint": {}}},
			jobSpec{id: "report", expand: "once", after: []string{"publish"}},
		)}
	p.Templates = map[string]*protocol.PlanTemplate{"install": {ID: "demo.install", Action: "install", Title: "Install demo", Version: p.Version, Stages: []protocol.Stage{
		{ID: "prepare", Title: "Prepare", Jobs: []string{"prepare"}},
		{ID: "publish", Title: "Publish", Jobs: []string{"publish", "report"}},
	}}}
	return p
}

func TestMissingInputGate(t *testing.T) {
	in := func(pack *protocol.ScenarioPack, params map[string]string) Input {
		i := clusterIntent(1, 1)
		i.Action, i.Pack, i.Parameters = "install", "demo", params
		return Input{PlanID: "op-9", Intent: i, Pack: pack, Now: testNow}
	}
	t.Run("missing value holds only the branch that reads it", func(t *testing.T) {
		p, err := Build(in(missingPack(protocol.ParamSpec{Type: "string", MissingInput: true}), nil))
		if err != nil {
			t.Fatal(err)
		}
		g := instance(p, "missing-input-endpoint")
		if g == nil || g.Gate.Type != protocol.GateMissingInput || g.Gate.Parameter != "endpoint" || len(g.Needs) != 0 {
			t.Fatalf("gate got: %+v", g)
		}
		if !strings.Contains(g.Gate.Reason, `parameter endpoint of demo@1.0.0 has no value; publish wait for it while the other jobs run; set parameters["endpoint"]`) {
			t.Errorf("reason got: %q", g.Gate.Reason)
		}
		if o := g.Gate.Options; len(o) != 1 || o[0].Effect != protocol.EffectCancel {
			t.Errorf("options got: %+v want only cancel", o)
		}
		if !slices.Contains(instance(p, "publish").Needs, "missing-input-endpoint") {
			t.Errorf("publish needs got: %q", instance(p, "publish").Needs)
		}
		if !slices.Contains(instance(p, "report").Needs, "publish") {
			t.Errorf("report needs got: %q want publish (held through it)", instance(p, "report").Needs)
		}
		for _, h := range []string{"master-1", "worker-1"} {
			if n := instance(p, "prepare["+h+"]").Needs; len(n) != 0 {
				t.Errorf("prepare[%s] needs got: %q want none", h, n)
			}
		}
	})
	t.Run("a value removes the gate", func(t *testing.T) {
		p, err := Build(in(missingPack(protocol.ParamSpec{Type: "string", MissingInput: true}), map[string]string{"endpoint": "s3.example"}))
		if err != nil {
			t.Fatal(err)
		}
		if instance(p, "missing-input-endpoint") != nil {
			t.Fatal("gate planned although the parameter has a value")
		}
		if got := instance(p, "publish").Params["endpoint"]; got != "s3.example" {
			t.Errorf("publish endpoint got: %q", got)
		}
	})
	t.Run("required without missing_input still fails the plan", func(t *testing.T) {
		_, err := Build(in(missingPack(protocol.ParamSpec{Type: "string", Required: true}), nil))
		var pe ParamErrors
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "is required: set it in the intent") {
			t.Fatalf("got: %v want the required error", err)
		}
	})
	t.Run("required and missing_input waits instead", func(t *testing.T) {
		p, err := Build(in(missingPack(protocol.ParamSpec{Type: "string", Required: true, MissingInput: true}), nil))
		if err != nil {
			t.Fatal(err)
		}
		if instance(p, "missing-input-endpoint") == nil {
			t.Fatal("no gate")
		}
	})
}
