package capability

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A provider selection that both the capability policy (require_approval
// with approval_roles) and a require_approval rule on one of its options
// hold: choosing that option is checked, at plan, against both role sets,
// and the gate the plan keeps carries both, so that apply's check (the
// engine's protocol.Decision.Choose) refuses the same actors the plan
// refused: the policy's roles on the gate, the rule's on the option.
func TestSelectionKeepsPolicyAndRuleRolesForApply(t *testing.T) {
	const gate = "select-object-storage-s3-provider"
	pol := Policy{s3: {"prod": {RequireApproval: true, ApprovalRoles: []string{"sre"}}}}
	rule := Rule{Name: "dedicated-needs-finops", Providers: []string{"dedicated_minio"}, Effect: EffectRequireApproval, Roles: []string{"finops"}}
	req := func(option string, roles ...string) Request {
		return Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol, Creators: minioCreators(), Rules: []Rule{rule},
			Choices: []protocol.Decision{{Gate: gate, Option: option, Actor: "ana", Roles: roles}}}
	}
	apply := func(g *protocol.Gate, option string, roles ...string) error {
		_, err := protocol.Decision{Gate: g.ID, Option: option, Actor: "ana", Roles: roles}.Choose(*g)
		return err
	}
	cases := []struct {
		name, option string
		roles        []string
		// create is the provider the plan creates; empty: the gate waits
		// and refused names why.
		create, refused string
		optionRoles     []string
	}{
		{name: "both roles held", option: "create dedicated_minio", roles: []string{"sre", "finops"}, create: "dedicated_minio", optionRoles: []string{"finops"}},
		{name: "policy role only", option: "create dedicated_minio", roles: []string{"sre"}, refused: `needs approval by one of ["finops"] (rule 1 "dedicated-needs-finops"`},
		{name: "rule role only", option: "create dedicated_minio", roles: []string{"finops"}, refused: `the gate requires one of ["sre"]`},
		{name: "option no rule holds", option: "create shared_minio", roles: []string{"sre"}, create: "shared_minio"},
		{name: "option no rule holds, no policy role", option: "create shared_minio", roles: []string{"finops"}, refused: `the gate requires one of ["sre"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Resolve(req(tc.option, tc.roles...))
			if err != nil {
				t.Fatal(err)
			}
			if d.Gate == nil || d.Gate.ID != gate || !slices.Equal(d.Gate.RequiredRoles, []string{"sre"}) {
				t.Fatalf("got gate %+v; want %s requiring the policy's roles [sre]", d.Gate, gate)
			}
			if tc.create == "" {
				if d.Kind != KindGate || d.Create != nil || d.Gate.Chosen != "" || !strings.Contains(d.Refused, tc.refused) {
					t.Fatalf("got %s create %+v refused %q; want the gate waiting, refused with %q", d.Kind, d.Create, d.Refused, tc.refused)
				}
				if err := apply(d.Gate, tc.option, tc.roles...); err == nil {
					t.Fatalf("apply accepted %q by roles %v at the gate the plan keeps waiting", tc.option, tc.roles)
				}
				return
			}
			if d.Kind != KindCreate || d.Create == nil || d.Create.Provider != tc.create || d.Gate.Chosen != tc.option {
				t.Fatalf("got %s create %+v gate %+v; want %s created behind the gate", d.Kind, d.Create, d.Gate, tc.create)
			}
			if got := d.Gate.OptionRoles[tc.option]; !slices.Equal(got, tc.optionRoles) {
				t.Fatalf("option %q requires %v; want %v (the rule's roles, for apply to check again)", tc.option, got, tc.optionRoles)
			}
			for id, roles := range d.Gate.OptionRoles {
				if id != tc.option {
					t.Errorf("option %q, not chosen, requires %v; want none", id, roles)
				}
			}
			// Apply checks what the plan checked: the same actor passes,
			// an actor holding only one of the two sets does not.
			if err := apply(d.Gate, tc.option, tc.roles...); err != nil {
				t.Errorf("apply refused the plan's own decision: %v", err)
			}
			if err := apply(d.Gate, tc.option, "finops"); err == nil || !strings.Contains(err.Error(), `the gate requires one of ["sre"]`) {
				t.Errorf("apply by roles [finops] got %v; want refused for the policy's roles", err)
			}
			if len(tc.optionRoles) > 0 {
				if err := apply(d.Gate, tc.option, "sre"); err == nil || !strings.Contains(err.Error(), `option "create dedicated_minio" also requires one of ["finops"]`) {
					t.Errorf("apply by roles [sre] got %v; want refused for the rule's roles", err)
				}
			}
		})
	}
	// The resolution the gate was built from is not changed: its options
	// require nothing before a choice.
	d, err := Resolve(Request{Requirement: protocol.CapabilityRequirement{Key: s3}, Environment: "prod", Policy: pol, Creators: minioCreators(), Rules: []Rule{rule}})
	if err != nil || d.Gate == nil {
		t.Fatalf("got %+v, %v", d, err)
	}
	if len(d.Gate.OptionRoles) > 0 {
		t.Errorf("unchosen gate: options require %v; want none", d.Gate.OptionRoles)
	}
}
