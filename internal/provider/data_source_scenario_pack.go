package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var _ datasource.DataSourceWithConfigure = &ScenarioPackDataSource{}

// ScenarioPackDataSource exposes a scenario pack's contract.
type ScenarioPackDataSource struct {
	data *providerData
}

// NewScenarioPackDataSource is the constructor listed by the provider.
func NewScenarioPackDataSource() datasource.DataSource { return &ScenarioPackDataSource{} }

type scenarioPackModel struct {
	ID            types.String        `tfsdk:"id"`
	Version       types.String        `tfsdk:"version"`
	Ref           types.String        `tfsdk:"ref"`
	Title         types.String        `tfsdk:"title"`
	Description   types.String        `tfsdk:"description"`
	Source        types.String        `tfsdk:"source"`
	ResourceTypes []string            `tfsdk:"resource_types"`
	Actions       []string            `tfsdk:"actions"`
	RiskLevel     types.String        `tfsdk:"risk_level"`
	AdvancedMode  types.Bool          `tfsdk:"advanced_mode"`
	Requires      []packRequireModel  `tfsdk:"requires"`
	Provides      []packProvideModel  `tfsdk:"provides"`
	Parameters    []packParamModel    `tfsdk:"parameters"`
	Templates     []packTemplateModel `tfsdk:"templates"`
	Jobs          []packJobModel      `tfsdk:"jobs"`
}

// Metadata sets the type name.
func (d *ScenarioPackDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scenario_pack"
}

// Configure receives the provider data.
func (d *ScenarioPackDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	data, ok := req.ProviderData.(*providerData)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("got %T; this is a bug in the provider, please report it.", req.ProviderData))
		return
	}
	d.data = data
}

// Read looks the pack up in the catalog and flattens its contract.
func (d *ScenarioPackDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg scenarioPackModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data == nil || d.data.Catalog == nil {
		resp.Diagnostics.AddError("Provider not configured", "the cp provider has no scenario pack catalog; check the provider block for errors.")
		return
	}
	pack, err := d.data.Catalog.Get(cfg.ID.ValueString(), cfg.Version.ValueString())
	if err != nil {
		// The version is at fault only when the pack exists.
		attr := path.Root("id")
		if _, anyErr := d.data.Catalog.Get(cfg.ID.ValueString(), ""); anyErr == nil {
			attr = path.Root("version")
		}
		addAttrError(&resp.Diagnostics, attr, "Scenario pack not found", err.Error())
		return
	}
	state := flattenPack(pack)
	state.Version = types.StringValue(pack.Version)
	if !cfg.Version.IsNull() {
		// Keep the constraint the user wrote; the resolved version is in ref.
		state.Version = cfg.Version
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func flattenPack(p *protocol.ScenarioPack) scenarioPackModel {
	m := scenarioPackModel{
		ID:            types.StringValue(p.ID),
		Ref:           types.StringValue(p.Ref()),
		Title:         types.StringValue(p.Title),
		Description:   types.StringValue(p.Description),
		Source:        types.StringValue(p.Source),
		ResourceTypes: nonNil(p.ResourceTypes),
		Actions:       nonNil(p.Actions),
		RiskLevel:     types.StringValue(p.Risk.DefaultLevel),
		AdvancedMode:  types.BoolValue(intent.PlanEditable(p)),
		Requires:      []packRequireModel{},
		Provides:      []packProvideModel{},
		Parameters:    []packParamModel{},
		Templates:     []packTemplateModel{},
		Jobs:          []packJobModel{},
	}
	for _, r := range p.Requires {
		m.Requires = append(m.Requires, packRequireModel{
			Capability: r.Capability, Scope: string(r.Scope.Normal()), Constraints: nonNilMap(r.Constraints), Optional: r.Optional,
		})
	}
	for _, pr := range p.Provides {
		m.Provides = append(m.Provides, packProvideModel{Capability: pr.Capability, Scope: string(pr.Scope.Normal())})
	}
	for _, name := range protocol.SortedKeys(p.Parameters) {
		m.Parameters = append(m.Parameters, flattenParam(name, p.Parameters[name]))
	}
	for _, ref := range p.PlanTemplates {
		m.Templates = append(m.Templates, flattenTemplate(ref, p.Templates[ref.Action]))
	}
	for _, id := range protocol.SortedKeys(p.Jobs) {
		m.Jobs = append(m.Jobs, flattenJob(p.Jobs[id]))
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
