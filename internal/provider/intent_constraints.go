package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	dschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// IntentConstraints are what a consumer says of its requirements and of
// itself for the policy: embedded in cp_scenario's and cp_tempo's models.
type IntentConstraints struct {
	Requirements map[string]map[string]string `tfsdk:"requirements"`
	Criticality  types.String                 `tfsdk:"criticality"`
	Compliance   []types.String               `tfsdk:"compliance"`
}

// constraintAttrs adds requirements, criticality and compliance to an
// intent resource's schema.
func constraintAttrs(attrs map[string]schema.Attribute) {
	attrs["requirements"] = schema.MapAttribute{
		MarkdownDescription: "Constraints on the pack's requirements, keyed by capability, e.g. `{ \"object_storage.s3\" = { min_capacity_gb = 200, encryption = true, " +
			"access_mode = \"dedicated\", region = \"eu-central\" } }`. They filter the candidates (the plan says why each was rejected) and shape a provider " +
			"created for the requirement. The constraints: `min_capacity_gb` (a whole number: a candidate's `capacity_gb` must be at least this; a created MinIO " +
			"gets a volume of this many Gi), `encryption` (`true`: only encrypted candidates, and a created one encrypts, evidenced; `false`: any, and a created " +
			"one goes without unless the policy requires encryption), `access_mode` (`dedicated`: an instance of this resource's own, namespace and release " +
			"`minio-<name>`; `shared`), `region` (a candidate's `region` must equal it, or `same-as-workload`; a created one gets it). Another key, or a " +
			"capability the pack does not require, is refused at plan.",
		ElementType: types.MapType{ElemType: types.StringType},
		Optional:    true,
	}
	attrs["criticality"] = rOptStr("How critical the workload is: `low`, `medium`, `high` or `critical`; provider `policy_rules` match on it.")
	attrs["compliance"] = schema.ListAttribute{MarkdownDescription: "Compliance regimes the workload falls under, e.g. `[\"pci\"]`; provider `policy_rules` match on them.",
		ElementType: types.StringType, Optional: true}
}

// apply checks the constraints at plan, on their attributes, and sets them
// on the spec.
func (c IntentConstraints) apply(data *providerData, pack *protocol.ScenarioPack, spec *intent.Spec, diags *diag.Diagnostics) {
	reqs, ps := intent.ParseRequirements(intent.Root("requirements"), pack, c.Requirements)
	addProblems(diags, ps)
	crit, comp := strOr(c.Criticality, ""), strs(c.Compliance)
	addProblems(diags, intent.CheckPolicyContext(intent.Root("criticality"), crit, intent.Root("compliance"), comp))
	spec.Requirements = reqs
	spec.Context = capability.Context{Organization: data.Organization, Criticality: crit, Compliance: comp}
}

// policyRuleListModel is one of the provider's policy_rules.
type policyRuleListModel struct {
	Name          types.String   `tfsdk:"name"`
	Capability    types.String   `tfsdk:"capability"`
	Environments  []types.String `tfsdk:"environments"`
	Organizations []types.String `tfsdk:"organizations"`
	Criticality   []types.String `tfsdk:"criticality"`
	Compliance    []types.String `tfsdk:"compliance"`
	Providers     []types.String `tfsdk:"providers"`
	MinMonthlyUSD types.Float64  `tfsdk:"min_monthly_cost_usd"`
	Effect        types.String   `tfsdk:"effect"`
	Roles         []types.String `tfsdk:"roles"`
	Reason        types.String   `tfsdk:"reason"`
}

func policyRulesSchema() dschema.ListNestedAttribute {
	list := func(d string) dschema.ListAttribute {
		return dschema.ListAttribute{MarkdownDescription: d, ElementType: types.StringType, Optional: true}
	}
	return dschema.ListNestedAttribute{
		MarkdownDescription: "Policy rules weighed before `capability_policy`, in order: for each provider kind a requirement could use (an existing candidate " +
			"or one a pack would create), the first rule whose every dimension set matches decides: `allow` (whatever `allowed_providers` says), `deny`, " +
			"`require_approval` (an approval gate for `roles`, a `cost_confirmation` gate when the rule matched on cost) or `exception` (forbidden unless one " +
			"of `roles` grants it at a `policy_exception` gate). The plan and `cp_capability` say per candidate which rule decided.",
		Optional: true,
		NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
			"name":                 dschema.StringAttribute{MarkdownDescription: "Name, shown as the rule that decided.", Required: true},
			"capability":           dschema.StringAttribute{MarkdownDescription: "Capability key the rule is about; unset: any.", Optional: true},
			"environments":         list("Environments it matches; unset: any."),
			"organizations":        list("Organizations (provider `organization`) it matches; unset: any."),
			"criticality":          list("Criticalities (the resource's `criticality`) it matches; unset: any."),
			"compliance":           list("Compliance regimes: matches a resource under one of them; unset: any."),
			"providers":            list("Provider kinds it matches, e.g. `[\"shared_minio\"]`; unset: any."),
			"min_monthly_cost_usd": dschema.Float64Attribute{MarkdownDescription: "Matches only creating a provider whose pack declares at least this monthly cost (USD).", Optional: true},
			"effect":               dschema.StringAttribute{MarkdownDescription: "`allow`, `deny`, `require_approval` or `exception`.", Required: true},
			"roles":                list("Roles that approve (`require_approval`) or grant (`exception`); required for those, refused for the others."),
			"reason":               dschema.StringAttribute{MarkdownDescription: "Why, shown with the decision.", Optional: true},
		}},
	}
}

// policyRules converts and checks the provider's policy_rules.
func (m providerModel) policyRules(d *providerData, diags *diag.Diagnostics) {
	for _, r := range m.PolicyRules {
		ru := capability.Rule{Name: strOr(r.Name, ""), Capability: strOr(r.Capability, ""), Environments: strs(r.Environments),
			Organizations: strs(r.Organizations), Criticality: strs(r.Criticality), Compliance: strs(r.Compliance), Providers: strs(r.Providers),
			Effect: capability.RuleEffect(strOr(r.Effect, "")), Roles: strs(r.Roles), Reason: strOr(r.Reason, "")}
		if !r.MinMonthlyUSD.IsNull() && !r.MinMonthlyUSD.IsUnknown() {
			v := r.MinMonthlyUSD.ValueFloat64()
			ru.MinMonthlyUSD = &v
		}
		d.Rules = append(d.Rules, ru)
	}
	if d.Catalog != nil {
		addProblems(diags, intent.CheckRules(intent.Root("policy_rules"), d.Rules, d.Catalog))
	}
}
