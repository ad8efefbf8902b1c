package capability

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func usdPtr(v float64) *float64 { return &v }

// exceptionPolicy allows only aws_s3 in prod and lets security grant an
// exception.
func exceptionPolicy() Policy {
	return Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3"}, ExceptionRoles: []string{"security"}}}}
}

func costPolicy(max float64) Policy {
	return Policy{s3: {"dev": {AllowedProviders: []string{"dedicated_minio"}, MaxMonthlyCostWithoutConfirmation: usdPtr(max), ApprovalRoles: []string{"finance"}}}}
}

func costlyCreator(usd float64) []Creator {
	return []Creator{{Capability: s3, Provider: "dedicated_minio", Pack: "minio", Action: "install", MonthlyUSD: usd}}
}

func TestResolveChoicesAndGateTypes(t *testing.T) {
	ambiguous := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: seedPolicy(), Candidates: []Candidate{sharedMinio2, sharedMinio}}
	approval := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: seedPolicy(), Creators: minioCreators()}
	creators := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "qa",
		Policy: Policy{s3: {"qa": {AllowedProviders: []string{"shared_minio", "dedicated_minio"}}}}, Creators: minioCreators()}
	exc := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: exceptionPolicy(),
		Candidates: []Candidate{sharedMinio}, Creators: minioCreators()[:1]}
	with := func(r Request, ds ...protocol.Decision) Request { r.Choices = ds; return r }
	dec := func(gate, option string, roles ...string) protocol.Decision {
		return protocol.Decision{Gate: gate, Option: option, Actor: "alice", Roles: roles}
	}
	type want struct {
		kind     Kind
		gateType protocol.GateType
		chosen   string
		provider string // binding provider
		create   string
		options  []string
		effects  []protocol.OptionEffect
		roles    []string
		reason   string
		refused  string
		err      string
	}
	cases := []struct {
		name string
		req  Request
		want want
	}{
		{name: "ambiguous candidates: provider selection with a bind option per candidate", req: ambiguous,
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection, options: []string{"bind cp_minio.shared", "bind cp_minio.shared-b", OptionCancel},
				effects: []protocol.OptionEffect{protocol.EffectBind, protocol.EffectBind, protocol.EffectCancel}}},
		{name: "choosing a candidate binds it behind the gate", req: with(ambiguous, dec("select-object-storage-s3-provider", "bind cp_minio.shared-b")),
			want: want{kind: KindBind, gateType: protocol.GateProviderSelection, chosen: "bind cp_minio.shared-b", provider: "cp_minio.shared-b",
				reason: `option "bind cp_minio.shared-b" of gate select-object-storage-s3-provider chosen by alice`}},
		{name: "choosing the other candidate binds the other", req: with(ambiguous, dec("select-object-storage-s3-provider", "bind cp_minio.shared")),
			want: want{kind: KindBind, chosen: "bind cp_minio.shared", provider: "cp_minio.shared"}},
		{name: "cancel at a selection leaves the gate for the engine", req: with(ambiguous, dec("select-object-storage-s3-provider", OptionCancel)),
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection}},
		{name: "an option the gate does not have is refused", req: with(ambiguous, dec("select-object-storage-s3-provider", "bind aws_s3")),
			want: want{err: `gate select-object-storage-s3-provider (provider_selection) has no option "bind aws_s3"; its options: "bind cp_minio.shared", "bind cp_minio.shared-b", "cancel operation"`}},
		{name: "a decision for another gate changes nothing", req: with(ambiguous, dec("other-gate", "bind cp_minio.shared")),
			want: want{kind: KindGate, gateType: protocol.GateProviderSelection}},
		{name: "choosing a creator plans its creation", req: with(creators, dec("select-object-storage-s3-provider", "create shared_minio")),
			want: want{kind: KindCreate, chosen: "create shared_minio", create: "shared_minio"}},
		{name: "approval gate offers only options that take effect", req: approval,
			want: want{kind: KindGate, gateType: protocol.GateApproval, chosen: "create dedicated_minio", create: "dedicated_minio", options: []string{"create dedicated_minio", OptionCancel},
				effects: []protocol.OptionEffect{protocol.EffectCreate, protocol.EffectCancel}, roles: []string{"sre", "platform_admin"}}},
		{name: "approval bind aws_s3 is not an option", req: with(approval, dec("approve-dedicated-minio", "bind aws_s3", "sre")),
			want: want{err: `gate approve-dedicated-minio (approval) has no option "bind aws_s3"`}},
		{name: "approved creation by a role holder", req: with(approval, dec("approve-dedicated-minio", "create dedicated_minio", "sre")),
			want: want{kind: KindCreate, gateType: protocol.GateApproval, chosen: "create dedicated_minio", create: "dedicated_minio"}},
		{name: "approval by an actor without the role is refused and waits", req: with(approval, dec("approve-dedicated-minio", "create dedicated_minio", "developer")),
			want: want{kind: KindGate, gateType: protocol.GateApproval, chosen: "create dedicated_minio", create: "dedicated_minio", refused: `actor "alice" has roles ["developer"] but the gate requires one of ["sre" "platform_admin"]`}},
		{name: "policy forbids without exception roles: unsatisfiable",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3"}}}}, Candidates: []Candidate{sharedMinio}},
			want: want{err: "no candidate matches and no allowed provider can be created"}},
		{name: "policy exception gate offers the forbidden providers to the exception roles", req: exc,
			want: want{kind: KindGate, gateType: protocol.GatePolicyException, roles: []string{"security"},
				options: []string{"grant exception: bind cp_minio.shared", "grant exception: create dedicated_minio", OptionCancel},
				effects: []protocol.OptionEffect{protocol.EffectBind, protocol.EffectCreate, protocol.EffectCancel},
				reason:  "no allowed provider (aws_s3) satisfies it; the policy forbids cp_minio.shared (shared_minio), new dedicated_minio, which would, unless one of the roles security grants an exception"}},
		{name: "granted exception binds", req: with(exc, dec("exception-object-storage-s3", "grant exception: bind cp_minio.shared", "security")),
			want: want{kind: KindBind, gateType: protocol.GatePolicyException, chosen: "grant exception: bind cp_minio.shared", provider: "cp_minio.shared"}},
		{name: "granted exception creates", req: with(exc, dec("exception-object-storage-s3", "grant exception: create dedicated_minio", "security")),
			want: want{kind: KindCreate, chosen: "grant exception: create dedicated_minio", create: "dedicated_minio"}},
		{name: "refused exception waits", req: with(exc, dec("exception-object-storage-s3", "grant exception: bind cp_minio.shared", "sre")),
			want: want{kind: KindGate, gateType: protocol.GatePolicyException, refused: `gate requires one of ["security"]`}},
		{name: "a candidate failing a constraint is no exception material",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"min_capacity_gb": "500"}}, Environment: "prod",
				Policy: exceptionPolicy(), Candidates: []Candidate{sharedMinio}},
			want: want{err: "no candidate matches"}},
		{name: "cost under the threshold creates",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: costPolicy(50), Creators: costlyCreator(40)},
			want: want{kind: KindCreate, create: "dedicated_minio", reason: "it costs 40 USD a month, within the 50 USD threshold of dev"}},
		{name: "cost equal to the threshold creates",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: costPolicy(40), Creators: costlyCreator(40)},
			want: want{kind: KindCreate, create: "dedicated_minio"}},
		{name: "cost over the threshold stops at a cost gate holding the creation",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: costPolicy(25), Creators: costlyCreator(40)},
			want: want{kind: KindGate, gateType: protocol.GateCostConfirmation, chosen: "create dedicated_minio", create: "dedicated_minio", roles: []string{"finance"},
				options: []string{"create dedicated_minio", OptionCancel},
				reason:  "costs 40 USD a month, above the 25 USD that the dev policy allows without confirmation"}},
		{name: "confirmed cost creates behind the gate",
			req: Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: costPolicy(25), Creators: costlyCreator(40),
				Choices: []protocol.Decision{dec("confirm-cost-dedicated-minio", "create dedicated_minio", "finance")}},
			want: want{kind: KindCreate, gateType: protocol.GateCostConfirmation, chosen: "create dedicated_minio", create: "dedicated_minio"}},
		{name: "no threshold: no cost gate",
			req:  Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Policy: Policy{s3: {"dev": {}}}, Creators: costlyCreator(4000)},
			want: want{kind: KindCreate, create: "dedicated_minio"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(tc.req)
			w := tc.want
			if w.err != "" {
				if err == nil || !strings.Contains(err.Error(), w.err) {
					t.Fatalf("got: %v want error containing %q", err, w.err)
				}
				if strings.Contains(w.err, "has no option") && !errors.Is(err, ErrUnknownOption) {
					t.Fatalf("got: %v want errors.Is ErrUnknownOption", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got: %v want: no error", err)
			}
			if d.Kind != w.kind {
				t.Fatalf("kind got: %s want: %s (%s)", d.Kind, w.kind, d.Reason)
			}
			if d.Binding.Decision != string(w.kind) {
				t.Errorf("binding decision got: %s want: %s", d.Binding.Decision, w.kind)
			}
			if w.gateType != "" && (d.Gate == nil || d.Gate.Type != w.gateType) {
				t.Fatalf("gate got: %+v want type %s", d.Gate, w.gateType)
			}
			if d.Gate != nil {
				if err := d.Gate.Validate(); err != nil {
					t.Errorf("gate invalid: %v", err)
				}
				if d.Gate.Chosen != w.chosen {
					t.Errorf("chosen got: %q want: %q", d.Gate.Chosen, w.chosen)
				}
			} else if w.chosen != "" || w.kind == KindGate {
				t.Fatalf("no gate, want one")
			}
			if w.provider != "" && (d.Binding.Provider != w.provider || d.Binding.Capability == nil) {
				t.Errorf("binding got: %+v want provider %s with its capability", d.Binding, w.provider)
			}
			if w.kind == KindBind && d.Create != nil {
				t.Errorf("bind carries create %+v", d.Create)
			}
			if w.create != "" && (d.Create == nil || d.Create.Provider != w.create) {
				t.Errorf("create got: %+v want %s", d.Create, w.create)
			}
			if w.create == "" && d.Create != nil {
				t.Errorf("create got: %+v want none", d.Create)
			}
			if w.options != nil && !slices.Equal(d.Gate.OptionIDs(), w.options) {
				t.Errorf("options got: %q want: %q", d.Gate.OptionIDs(), w.options)
			}
			if w.effects != nil {
				var got []protocol.OptionEffect
				for _, o := range d.Gate.Options {
					got = append(got, o.Effect)
				}
				if !slices.Equal(got, w.effects) {
					t.Errorf("effects got: %q want: %q", got, w.effects)
				}
			}
			if w.roles != nil && !slices.Equal(d.Gate.RequiredRoles, w.roles) {
				t.Errorf("roles got: %q want: %q", d.Gate.RequiredRoles, w.roles)
			}
			if !strings.Contains(d.Reason, w.reason) {
				t.Errorf("reason got: %q want substring %q", d.Reason, w.reason)
			}
			if !strings.Contains(d.Refused, w.refused) || (w.refused == "" && d.Refused != "") {
				t.Errorf("refused got: %q want: %q", d.Refused, w.refused)
			}
			if w.refused != "" && (!strings.Contains(d.Gate.Reason, "; decision refused: "+d.Refused) || d.Binding.Reason != d.Gate.Reason) {
				t.Errorf("gate reason got: %q want it to say the refusal", d.Gate.Reason)
			}
		})
	}
}
