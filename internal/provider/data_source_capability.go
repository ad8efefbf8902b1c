package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var _ datasource.DataSourceWithConfigure = &CapabilityDataSource{}

// CapabilityDataSource resolves one capability requirement.
type CapabilityDataSource struct {
	data *providerData
}

// NewCapabilityDataSource is the constructor listed by the provider.
func NewCapabilityDataSource() datasource.DataSource { return &CapabilityDataSource{} }

type capabilityDataModel struct {
	Capability  types.String      `tfsdk:"capability"`
	Scope       types.String      `tfsdk:"scope"`
	Constraints map[string]string `tfsdk:"constraints"`
	Environment types.String      `tfsdk:"environment"`
	Workload    map[string]string `tfsdk:"workload"`
	Criticality types.String      `tfsdk:"criticality"`
	Compliance  []types.String    `tfsdk:"compliance"`
	Candidates  []candidateModel  `tfsdk:"candidates"`

	Decision   types.String           `tfsdk:"decision"`
	Selected   types.String           `tfsdk:"selected_provider"`
	Reason     types.String           `tfsdk:"reason"`
	Binding    map[string]string      `tfsdk:"binding"`
	CreatePack types.String           `tfsdk:"create_pack"`
	Gate       *packGateModel         `tfsdk:"gate"`
	Considered []candidateReportModel `tfsdk:"considered"`
}

// Metadata sets the type name.
func (d *CapabilityDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_capability"
}

// Configure receives the provider data.
func (d *CapabilityDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// Schema of cp_capability.
func (d *CapabilityDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Resolves one capability requirement against candidates under the provider's capability policy and returns " +
			"the decision — `bind` an existing provider, `create` one through a pack's sub-operation, or stop at a `gate` — and why " +
			"each candidate was accepted or rejected. Pass its `binding` to an intent as a candidate.",
		Attributes: map[string]schema.Attribute{
			"capability":  schema.StringAttribute{MarkdownDescription: "Capability key, e.g. `object_storage.s3`.", Required: true},
			"scope":       optStr("`cluster` (default) or `node`."),
			"constraints": optMap("Constraints: a value means equality; `required` means the attribute must be true; `same-as-workload` compares with the same key of `workload`; `min_<attr>` is a numeric minimum of `<attr>`."),
			"environment": optStr("Environment whose policy applies; defaults to the provider's."),
			"workload":    optMap("Attributes of the requesting intent, for `same-as-workload` constraints, e.g. `region`."),
			"criticality": optStr("Criticality of the requesting intent (`low`, `medium`, `high`, `critical`), which provider `policy_rules` match on."),
			"compliance": schema.ListAttribute{MarkdownDescription: "Compliance regimes of the requesting intent, e.g. `[\"pci\"]`, which provider `policy_rules` match on.",
				ElementType: types.StringType, Optional: true},
			"candidates":        dsCandidatesAttr(),
			"decision":          cStr("`bind`, `create` or `gate`."),
			"selected_provider": cStr("The provider kind bound or created, e.g. `aws_s3` or `dedicated_minio`."),
			"reason":            cStr("Why this decision."),
			"binding":           cMap("Attributes of the bound capability (for `bind`)."),
			"create_pack":       cStr("Pack that creates the provider (for `create`), as `id action`."),
			"gate": schema.SingleNestedAttribute{
				MarkdownDescription: "The gate the requirement stops at (for `gate`).",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"id":             cStr("Gate id."),
					"type":           cStr("`provider_selection` or `approval`."),
					"reason":         cStr("Why."),
					"options":        cList("Options a decision may choose."),
					"required_roles": cList("Roles allowed to decide."),
				},
			},
			"considered": cNested("Every candidate and creatable provider considered, with reasons.", map[string]schema.Attribute{
				"name":     cStr("Candidate name."),
				"provider": cStr("Provider kind."),
				"accepted": cBool("Whether it matched."),
				"reasons":  cList("Reasons, each `accepted: ...` or `rejected: ...`."),
				"decided_by": cStr("What decided whether its provider kind may serve: a provider policy rule (`rule 2 \"pci\"`), " +
					"the environment's `capability_policy` entry, or `no policy`."),
			}),
		},
	}
}

// Read resolves the requirement.
func (d *CapabilityDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m capabilityDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	requirement := protocol.CapabilityRequirement{Key: m.Capability.ValueString(), Scope: protocol.Scope(strOr(m.Scope, "")), Constraints: m.Constraints}
	if err := requirement.Validate(); err != nil {
		attr := path.Root("scope")
		if requirement.Key == "" {
			attr = path.Root("capability")
		}
		addAttrError(&resp.Diagnostics, attr, "Invalid requirement", err.Error())
		return
	}
	crit, comp := strOr(m.Criticality, ""), strs(m.Compliance)
	if ps := intent.CheckPolicyContext(intent.Root("criticality"), crit, intent.Root("compliance"), comp); len(ps) > 0 {
		addProblems(&resp.Diagnostics, ps)
		return
	}
	dec, err := capability.Resolve(capability.Request{
		Requirement: requirement, Environment: strOr(m.Environment, d.data.Environment), Workload: m.Workload,
		Candidates: toCandidates(m.Candidates), Creators: planner.Creators(d.data.Catalog), Policy: d.data.Policy,
		Rules: d.data.Rules, Context: capability.Context{Organization: d.data.Organization, Criticality: crit, Compliance: comp},
	})
	if err != nil {
		attr := path.Root("capability")
		if errors.Is(err, capability.ErrUnsatisfiable) {
			attr = path.Root("candidates")
		}
		addAttrError(&resp.Diagnostics, attr, "Unsatisfiable requirement", err.Error())
		return
	}
	dm := flattenDecision(dec)
	m.Decision = types.StringValue(dm.Decision)
	m.Selected = types.StringValue(dm.Provider)
	m.Reason = types.StringValue(dm.Reason)
	m.Considered = dm.Candidates
	m.Binding = map[string]string{}
	if dec.Binding.Capability != nil {
		for k, v := range dec.Binding.Capability.Attributes {
			m.Binding[k] = v
		}
	}
	m.CreatePack = types.StringValue("")
	if dec.Create != nil {
		m.CreatePack = types.StringValue(dec.Create.Pack + " " + dec.Create.Action)
	}
	if g := dec.Gate; g != nil {
		m.Gate = &packGateModel{ID: g.ID, Type: string(g.Type), Reason: g.Reason, Options: nonNil(g.OptionIDs()), RequiredRoles: nonNil(g.RequiredRoles)}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
