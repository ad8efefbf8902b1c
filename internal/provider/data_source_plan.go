package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var _ datasource.DataSourceWithConfigure = &PlanDataSource{}

// PlanDataSource previews the plan of a pack action without a resource.
type PlanDataSource struct {
	data *providerData
	now  func() time.Time
}

// NewPlanDataSource is the constructor listed by the provider.
func NewPlanDataSource() datasource.DataSource { return &PlanDataSource{now: time.Now} }

type planDataModel struct {
	Pack           types.String         `tfsdk:"pack"`
	Version        types.String         `tfsdk:"version"`
	Action         types.String         `tfsdk:"action"`
	Name           types.String         `tfsdk:"name"`
	Environment    types.String         `tfsdk:"environment"`
	Hosts          []hostModel          `tfsdk:"hosts"`
	Targets        []string             `tfsdk:"targets"`
	Parameters     map[string]string    `tfsdk:"parameters"`
	Constraints    map[string]string    `tfsdk:"constraints"`
	Candidates     []candidateModel     `tfsdk:"candidates"`
	StateArtifacts []stateArtifactModel `tfsdk:"state_artifacts"`
	StateCaps      []string             `tfsdk:"state_capabilities"`
	Customizations *customizationModel  `tfsdk:"customizations"`
	PlanPatches    []planPatchModel     `tfsdk:"plan_patches"`
	planOutputModel
}

// Metadata sets the type name.
func (d *PlanDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_plan"
}

// Configure receives the provider data.
func (d *PlanDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// Read resolves capabilities and builds the plan.
func (d *PlanDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m planDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	env := strOr(m.Environment, d.data.Environment)
	pack, _ := d.data.Catalog.Get(m.Pack.ValueString(), strOr(m.Version, ""))
	preq := planner.Request{
		PlanID:      "preview",
		Catalog:     d.data.Catalog,
		PackID:      m.Pack.ValueString(),
		PackVersion: strOr(m.Version, ""),
		Intent: protocol.Intent{
			ID: strOr(m.Name, m.Pack.ValueString()), Action: m.Action.ValueString(), TargetResource: strOr(m.Name, ""),
			Parameters: m.Parameters, Constraints: m.Constraints, Targets: m.Targets,
			Hosts: toHosts(m.Hosts, path.Root("hosts"), &resp.Diagnostics),
		},
		Environment:   env,
		Policy:        d.data.Policy,
		Candidates:    toCandidates(m.Candidates),
		State:         toState(m.StateArtifacts, m.StateCaps, path.Root("state_artifacts"), &resp.Diagnostics),
		Customization: toCustomization(m.Customizations),
		Patches:       toPatches(m.PlanPatches, pack),
		Now:           d.now(),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	composed, err := planner.Compose(preq)
	if err != nil {
		addPlanError(&resp.Diagnostics, preq, err)
		return
	}
	m.planOutputModel = flattenPlan(composed)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func configureData(v any, diags *diag.Diagnostics) *providerData {
	if v == nil {
		return nil
	}
	data, ok := v.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("got %T; this is a bug in the provider, please report it.", v))
		return nil
	}
	return data
}

// addPlanError attaches a planning error to the attribute that caused it.
// For edits it finds the first customization change or plan patch that
// makes planning fail by planning again with a growing prefix of them.
func addPlanError(diags *diag.Diagnostics, req planner.Request, err error) {
	attr := planErrorPath(req, err)
	summary := "Cannot build the plan"
	switch {
	case errors.Is(err, planner.ErrCycle):
		summary = "The plan has a cycle"
	case errors.Is(err, planner.ErrEdit):
		summary = "Invalid plan edit"
	case errors.Is(err, planner.ErrUnapproved):
		summary = "Plan patch not approved"
	case errors.Is(err, planner.ErrMissingInput), errors.Is(err, capability.ErrUnsatisfiable):
		summary = "Unsatisfiable requirement"
	case errors.Is(err, planner.ErrParams):
		summary = "Invalid parameters"
	}
	addAttrError(diags, attr, summary, err.Error())
}

func planErrorPath(req planner.Request, err error) path.Path {
	switch {
	case errors.Is(err, capability.ErrUnsatisfiable):
		return path.Root("candidates")
	case errors.Is(err, planner.ErrParams):
		return path.Root("parameters")
	}
	base := req
	base.Customization, base.Patches = nil, nil
	if _, e := planner.Compose(base); e != nil {
		if errors.Is(err, planner.ErrMissingInput) {
			return path.Root("candidates")
		}
		return path.Root("pack")
	}
	if c := req.Customization; c != nil {
		for i := range c.Changes {
			try := base
			try.Customization = &protocol.Customization{BaseTemplate: c.BaseTemplate, Changes: c.Changes[:i+1]}
			if _, e := planner.Compose(try); e != nil {
				return path.Root("customizations").AtName("changes").AtListIndex(i)
			}
		}
		if len(c.Changes) == 0 {
			try := base
			try.Customization = c
			if _, e := planner.Compose(try); e != nil {
				return path.Root("customizations")
			}
		}
	}
	for i := range req.Patches {
		try := base
		try.Customization = req.Customization
		try.Patches = req.Patches[:i+1]
		if _, e := planner.Compose(try); e != nil {
			return path.Root("plan_patches").AtListIndex(i)
		}
	}
	return path.Root("pack")
}
