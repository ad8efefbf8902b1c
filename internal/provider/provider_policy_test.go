package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func policyModel(rule policyRuleModel, roles ...string) providerModel {
	m := providerModel{CapabilityPolicy: map[string]capabilityPolicyModel{
		"object_storage.s3": {Environments: map[string]policyRuleModel{"prod": rule}},
	}}
	for _, r := range roles {
		m.ActorRoles = append(m.ActorRoles, types.StringValue(r))
	}
	return m
}

// exception_roles and max_monthly_cost_without_confirmation reach the
// capability policy; a negative threshold is refused on its path, and an
// exception role is a known role for actor_roles.
func TestPolicyExceptionRolesAndCost(t *testing.T) {
	rule := policyRuleModel{AllowedProviders: []types.String{types.StringValue("aws_s3")},
		ExceptionRoles: []types.String{types.StringValue("security")}, MaxMonthlyCost: types.Float64Value(25)}
	d, diags := policyModel(rule, "security").settings("test")
	if diags.HasError() {
		t.Fatalf("settings: %v", diags)
	}
	got := d.Policy["object_storage.s3"]["prod"]
	if len(got.ExceptionRoles) != 1 || got.ExceptionRoles[0] != "security" {
		t.Errorf("exception roles got %v want [security]", got.ExceptionRoles)
	}
	if got.MaxMonthlyCostWithoutConfirmation == nil || *got.MaxMonthlyCostWithoutConfirmation != 25 {
		t.Errorf("cost threshold got %v want 25", got.MaxMonthlyCostWithoutConfirmation)
	}

	noExc := rule
	noExc.ExceptionRoles = nil
	noExc.MaxMonthlyCost = types.Float64Null()
	d, diags = policyModel(noExc, "security").settings("test")
	if !diags.HasError() || !strings.Contains(diagText(diags), `"security" is a role no gate asks for`) {
		t.Errorf("actor role security without exception_roles got %v want: unknown role", diagText(diags))
	}
	if d.Policy["object_storage.s3"]["prod"].MaxMonthlyCostWithoutConfirmation != nil {
		t.Error("unset threshold got a value want nil")
	}

	neg := rule
	neg.MaxMonthlyCost = types.Float64Value(-1)
	_, diags = policyModel(neg).settings("test")
	if txt := diagText(diags); !strings.Contains(txt, `max_monthly_cost_without_confirmation`) || !strings.Contains(txt, "at least 0") {
		t.Errorf("negative threshold got %q want an error on max_monthly_cost_without_confirmation", txt)
	}
}

// diagText joins diagnostics with their attribute paths.
func diagText(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			b.WriteString(wp.Path().String() + ": ")
		}
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}

// organization and policy_rules reach the provider data; a rule that
// cannot take effect is refused on its path, and a rule's roles are
// known roles for actor_roles.
func TestPolicyRulesSettings(t *testing.T) {
	rule := policyRuleListModel{Name: types.StringValue("pci"), Compliance: []types.String{types.StringValue("pci")},
		Providers: []types.String{types.StringValue("shared_minio")}, Effect: types.StringValue("exception"),
		Roles: []types.String{types.StringValue("security")}, MinMonthlyUSD: types.Float64Null()}
	m := providerModel{Organization: types.StringValue("acme"), PolicyRules: []policyRuleListModel{rule}, ActorRoles: []types.String{types.StringValue("security")}}
	d, diags := m.settings("test")
	if diags.HasError() {
		t.Fatalf("settings: %v", diags)
	}
	if d.Organization != "acme" || len(d.Rules) != 1 || d.Rules[0].Name != "pci" || d.Rules[0].Effect != "exception" || d.Rules[0].Roles[0] != "security" {
		t.Errorf("got: organization %q rules %+v want acme and the pci rule", d.Organization, d.Rules)
	}
	bad := rule
	bad.Roles = nil
	_, diags = providerModel{PolicyRules: []policyRuleListModel{bad}}.settings("test")
	if !hasDiagAt(diags, "policy_rules[0].effect", "needs roles") {
		t.Errorf("got: %v want an error on policy_rules[0].effect saying it needs roles", diags)
	}
}

func hasDiagAt(diags diag.Diagnostics, p, text string) bool {
	for _, d := range diags {
		if strings.Contains(d.Detail(), p) && strings.Contains(d.Detail(), text) {
			return true
		}
	}
	return false
}
