package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
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
	addProblems(&resp.Diagnostics, intent.CheckHosts(planHostInputs(m.Hosts), intent.HostRules{
		Roles: append([]string{""}, intent.ScenarioRoles...), DefaultPort: d.data.SSH.Port}))
	pack, refProblems := intent.CheckPackRef(d.data.Catalog, intent.PackRef{ID: m.Pack.ValueString(), Version: strOr(m.Version, ""),
		Action: m.Action.ValueString(), IDPath: intent.Root("pack"), VersionPath: intent.Root("version"), ActionPath: intent.Root("action")})
	addProblems(&resp.Diagnostics, refProblems)
	if resp.Diagnostics.HasError() {
		return
	}
	preq := planner.Request{
		PlanID:      "preview",
		Catalog:     d.data.Catalog,
		PackID:      m.Pack.ValueString(),
		PackVersion: strOr(m.Version, ""),
		Intent: protocol.Intent{
			ID: strOr(m.Name, m.Pack.ValueString()), Action: m.Action.ValueString(), TargetResource: strOr(m.Name, ""),
			Parameters: m.Parameters, Constraints: m.Constraints, Targets: m.Targets,
			Hosts: toHosts(m.Hosts),
		},
		Environment:   env,
		Policy:        d.data.Policy,
		Candidates:    toCandidates(m.Candidates),
		State:         toState(m.StateArtifacts, m.StateCaps, path.Root("state_artifacts"), &resp.Diagnostics),
		Customization: toCustomization(m.Customizations),
		Patches:       toPatches(m.PlanPatches, pack),
		Now:           d.now(),
	}
	addProblems(&resp.Diagnostics, intent.CheckEditable(pack, planEdits(preq.Customization, preq.Patches)))
	if resp.Diagnostics.HasError() {
		return
	}
	patches := preq.Patches
	preq.Patches = intent.WithPatchRisk(pack, patches)
	composed, err := planner.Compose(preq)
	if err != nil {
		addPlanError(&resp.Diagnostics, preq, err)
		return
	}
	if addProblems(&resp.Diagnostics, intent.CheckPatchApprovals(intent.Root("plan_patches"), pack, patches, actorOf(d.data))); resp.Diagnostics.HasError() {
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

// planPaths says where a resource wrote what a planning error can be
// about: its parameters, and the candidates or handle that satisfy each
// capability requirement.
type planPaths struct {
	Params intent.ParamPaths
	// Requirement maps a required capability to the attribute that
	// offers it; nil, or an empty path, means candidates.
	Requirement func(capability string) path.Path
}

// defaultPlanPaths serves callers that pass only the request: the cluster
// intent's own attributes for a kubernetes.cluster, parameters otherwise.
func defaultPlanPaths(req planner.Request) planPaths {
	pp := intent.ParamPaths{Base: intent.Root("parameters")}
	if req.Intent.TargetResourceType == "kubernetes.cluster" {
		pp.Own = map[string]intent.Path{}
		for k, attr := range clusterOwnParams {
			pp.Own[k] = intent.Root(attr)
		}
	}
	for i, p := range req.Patches {
		for j, c := range p.Changes {
			var jobs []string
			for _, pj := range c.Jobs {
				if len(pj.Parameters) > 0 {
					jobs = append(jobs, pj.ID)
				}
			}
			if len(jobs) > 0 {
				pp.Patches = append(pp.Patches, intent.PatchParams{Path: intent.Root("plan_patches").Index(i).Attr("changes").Index(j).Attr("parameters"), Jobs: jobs})
			}
		}
	}
	return planPaths{Params: pp}
}

// addPlanError attaches a planning error to the attribute that caused it.
func addPlanError(diags *diag.Diagnostics, req planner.Request, err error) {
	addPlanErrorAt(diags, req, err, defaultPlanPaths(req))
}

// addPlanErrorAt attaches a planning error to the attribute that caused
// it: each refused parameter value to the attribute it was written in; a
// requirement nothing satisfies to what offers it; for edits, the first
// customization change or plan patch that makes planning fail (found by
// planning again with a growing prefix of them).
func addPlanErrorAt(diags *diag.Diagnostics, req planner.Request, err error, pp planPaths) {
	if pes, ok := planner.AsParamErrors(err); ok && len(pes) > 0 {
		addProblems(diags, intent.ParamProblems(pes, pp.Params))
		return
	}
	attr := planErrorPath(req, err, pp)
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
	detail := err.Error()
	if errors.Is(err, planner.ErrMissingInput) && strings.Contains(detail, "artifact "+s3Capability+".") {
		detail += "\n\nA bound " + s3Capability + " provider brings its endpoint, bucket and credentials artifacts only with its keys: " +
			"give the binding attributes.endpoint and access_key_env and secret_key_env (names of environment variables holding the keys), " +
			"or access_key_wo and secret_key_wo."
	}
	addAttrError(diags, attr, summary, detail)
}

// requirementPath finds the pack requirement an error names ("pack X
// requires <capability>: ...") and the attribute offering it.
func requirementPath(req planner.Request, err error, pp planPaths) path.Path {
	def := path.Root("candidates")
	if pp.Requirement == nil {
		return def
	}
	pack, e := req.Catalog.Get(req.PackID, req.PackVersion)
	if e != nil {
		return def
	}
	msg := err.Error()
	for _, r := range pack.Requires {
		if strings.Contains(msg, " requires "+r.Capability+":") || strings.Contains(msg, " requires "+r.Capability+" ") {
			if p := pp.Requirement(r.Capability); !p.Equal(path.Empty()) {
				return p
			}
		}
	}
	return def
}

func planErrorPath(req planner.Request, err error, pp planPaths) path.Path {
	switch {
	case errors.Is(err, capability.ErrUnsatisfiable):
		return requirementPath(req, err, pp)
	case errors.Is(err, planner.ErrParams):
		return path.Root("parameters")
	}
	base := req
	base.Customization, base.Patches = nil, nil
	if _, e := planner.Compose(base); e != nil {
		if errors.Is(err, planner.ErrMissingInput) {
			return requirementPath(req, err, pp)
		}
		return basePlanErrorPath(req)
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
	return basePlanErrorPath(req)
}

// basePlanErrorPath is where an error of the plan without edits belongs:
// the version constraint when no pack version matches it, the action when
// the pack has no template for it, the pack otherwise.
func basePlanErrorPath(req planner.Request) path.Path {
	if _, err := req.Catalog.Get(req.PackID, ""); err != nil {
		return path.Root("pack")
	}
	pack, err := req.Catalog.Get(req.PackID, req.PackVersion)
	if err != nil {
		return path.Root("version")
	}
	if _, ok := pack.Templates[req.Intent.Action]; !ok {
		return path.Root("action")
	}
	return path.Root("pack")
}
