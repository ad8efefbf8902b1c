package capability

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A require_approval rule holds the options of a provider selection that
// bind or create what it decided for, and only those: choosing one needs
// the rule's roles (and the plan's gate then requires them at apply);
// choosing another needs none.
func TestSelectionHonoursRequireApproval(t *testing.T) {
	const gate = "select-object-storage-s3-provider"
	rule := Rule{Name: "aws-needs-finops", Providers: []string{"aws_s3"}, Effect: EffectRequireApproval, Roles: []string{"finops"}, Reason: "billed per request"}
	all := Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3", "shared_minio", "dedicated_minio"}}}}
	cands := func(choice string, roles ...string) Request {
		req := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: all,
			Candidates: []Candidate{sharedMinio, awsEncrypted}, Rules: []Rule{rule}}
		if choice != "" {
			req.Choices = []protocol.Decision{{Gate: gate, Option: choice, Actor: "ana", Roles: roles}}
		}
		return req
	}
	const note = `option "bind aws-s3-eu" needs approval by one of finops: rule 1 "aws-needs-finops" requires approval for provider aws_s3 (provider aws_s3): billed per request`

	t.Run("the gate says which option needs whose approval and why", func(t *testing.T) {
		d, err := Resolve(cands(""))
		if err != nil || d.Kind != KindGate || d.Gate.Type != protocol.GateProviderSelection {
			t.Fatalf("got %s %+v, %v; want a provider_selection gate", d.Kind, d.Gate, err)
		}
		if !strings.Contains(d.Gate.Reason, note) || strings.Contains(d.Gate.Reason, `"bind cp_minio.shared" needs`) {
			t.Errorf("reason = %q; want only the aws option held, naming the rule: %s", d.Gate.Reason, note)
		}
		if len(d.Gate.RequiredRoles) != 0 {
			t.Errorf("roles = %v; want none before a choice (the shared option needs none)", d.Gate.RequiredRoles)
		}
	})

	cases := []struct {
		name, option string
		roles        []string
		bound        string // "" when the gate waits
		gateRoles    []string
		refused      string
		reason       string
	}{
		{name: "gated candidate, role held: bound behind a gate requiring the rule's roles", option: "bind aws-s3-eu", roles: []string{"dev", "finops"},
			bound: "aws-s3-eu", gateRoles: []string{"finops"}, reason: `option "bind aws-s3-eu" approved by ana (role finops): rule 1 "aws-needs-finops"`},
		{name: "gated candidate, role not held: refused, the gate waits", option: "bind aws-s3-eu", roles: []string{"sre"},
			refused: `option "bind aws-s3-eu" needs approval by one of ["finops"] (rule 1 "aws-needs-finops" requires approval for provider aws_s3`},
		{name: "gated candidate, no roles: refused", option: "bind aws-s3-eu",
			refused: `actor "ana" has roles []`},
		{name: "candidate no rule gates, no roles: bound, the gate requires none", option: "bind cp_minio.shared",
			bound: "cp_minio.shared"},
		{name: "candidate no rule gates, other roles: bound", option: "bind cp_minio.shared", roles: []string{"finops"},
			bound: "cp_minio.shared"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(cands(tc.option, tc.roles...))
			if err != nil {
				t.Fatal(err)
			}
			if tc.bound == "" {
				if d.Kind != KindGate || d.Binding.Provider != "" || d.Gate.Chosen != "" || !strings.Contains(d.Refused, tc.refused) {
					t.Fatalf("got %s bound %q chosen %q refused %q; want the gate waiting, refused: %s", d.Kind, d.Binding.Provider, d.Gate.Chosen, d.Refused, tc.refused)
				}
				if !strings.Contains(d.Gate.Reason, "decision refused: ") {
					t.Errorf("plan text %q does not say the decision was refused", d.Gate.Reason)
				}
				return
			}
			if d.Kind != KindBind || d.Binding.Provider != tc.bound || d.Gate == nil || d.Gate.Chosen != tc.option || d.Refused != "" {
				t.Fatalf("got %s bound %q gate %+v refused %q; want %s bound at the gate", d.Kind, d.Binding.Provider, d.Gate, d.Refused, tc.bound)
			}
			if !slices.Equal(d.Gate.RequiredRoles, tc.gateRoles) {
				t.Errorf("gate roles = %v; want %v", d.Gate.RequiredRoles, tc.gateRoles)
			}
			if !strings.Contains(d.Gate.Reason, tc.reason) {
				t.Errorf("reason = %q; want %q", d.Gate.Reason, tc.reason)
			}
			// Apply checks the plan's gate again: the approver passes, an
			// actor without the rule's roles does not when it gates.
			ok := protocol.Decision{Gate: gate, Option: tc.option, Actor: "ana", Roles: tc.roles}
			if err := ok.Check(*d.Gate); err != nil {
				t.Errorf("apply refuses the plan's own decision: %v", err)
			}
			other := protocol.Decision{Gate: gate, Option: tc.option, Actor: "bo", Roles: []string{"dev"}}
			if err := other.Check(*d.Gate); (err != nil) != (len(tc.gateRoles) > 0) {
				t.Errorf("apply check by a dev = %v; want refused only when the rule gates", err)
			}
		})
	}
}

// The same holds for a selection among providers to create: the creation
// a rule holds needs its roles, the other none.
func TestCreatorSelectionHonoursRequireApproval(t *testing.T) {
	const gate = "select-object-storage-s3-provider"
	rule := Rule{Name: "dedicated-needs-sre", Providers: []string{"dedicated_minio"}, Effect: EffectRequireApproval, Roles: []string{"sre"}}
	req := func(option string, roles ...string) Request {
		return Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Creators: minioCreators(), Rules: []Rule{rule},
			Choices: []protocol.Decision{{Gate: gate, Option: option, Actor: "ana", Roles: roles}}}
	}
	d, err := Resolve(Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "dev", Creators: minioCreators(), Rules: []Rule{rule}})
	if err != nil || d.Kind != KindGate || !strings.Contains(d.Gate.Reason, `option "create dedicated_minio" needs approval by one of sre: rule 1 "dedicated-needs-sre"`) ||
		strings.Contains(d.Gate.Reason, `"create shared_minio" needs`) {
		t.Fatalf("got %s %+v, %v; want a selection naming the rule on the dedicated option only", d.Kind, d.Gate, err)
	}
	cases := []struct {
		name, option string
		roles        []string
		create       string
		gateRoles    []string
	}{
		{name: "gated creation, role held", option: "create dedicated_minio", roles: []string{"sre"}, create: "dedicated_minio", gateRoles: []string{"sre"}},
		{name: "gated creation, role not held", option: "create dedicated_minio", roles: []string{"dev"}},
		{name: "creation no rule gates", option: "create shared_minio", create: "shared_minio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(req(tc.option, tc.roles...))
			if err != nil {
				t.Fatal(err)
			}
			if tc.create == "" {
				if d.Kind != KindGate || d.Create != nil || d.Gate.Chosen != "" || !strings.Contains(d.Refused, `needs approval by one of ["sre"] (rule 1 "dedicated-needs-sre"`) {
					t.Fatalf("got %s create %+v refused %q; want the gate waiting with the rule named", d.Kind, d.Create, d.Refused)
				}
				return
			}
			if d.Kind != KindCreate || d.Create == nil || d.Create.Provider != tc.create || d.Gate.Chosen != tc.option || !slices.Equal(d.Gate.RequiredRoles, tc.gateRoles) {
				t.Fatalf("got %s create %+v gate %+v; want %s created behind a gate with roles %v", d.Kind, d.Create, d.Gate, tc.create, tc.gateRoles)
			}
		})
	}
}

// A default provider that picks a candidate a require_approval rule holds
// does not bind it unasked: the binding waits at the rule's approval gate.
func TestDefaultProviderPickStillNeedsApproval(t *testing.T) {
	pol := Policy{s3: {"prod": {AllowedProviders: []string{"aws_s3", "shared_minio"}, DefaultProvider: "aws_s3"}}}
	rule := Rule{Name: "aws-needs-finops", Providers: []string{"aws_s3"}, Effect: EffectRequireApproval, Roles: []string{"finops"}}
	req := Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol, Candidates: []Candidate{sharedMinio, awsEncrypted}, Rules: []Rule{rule}}
	d, err := Resolve(req)
	if err != nil || d.Kind != KindGate || d.Gate.Type != protocol.GateApproval || d.Gate.ID != "approve-bind-aws-s3-eu" ||
		!slices.Equal(d.Gate.RequiredRoles, []string{"finops"}) || !strings.Contains(d.Gate.Reason, `rule 1 "aws-needs-finops"`) {
		t.Fatalf("got %s %+v, %v; want the default's binding held at approve-bind-aws-s3-eu for finops", d.Kind, d.Gate, err)
	}
	req.Rules = nil
	if d, err := Resolve(req); err != nil || d.Kind != KindBind || d.Gate != nil || d.Binding.Provider != "aws-s3-eu" {
		t.Fatalf("without the rule got %s %+v, %v; want the default bound directly", d.Kind, d.Gate, err)
	}
}
