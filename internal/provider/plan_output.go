package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// planOutputModel is the plan as computed attributes: text views for people
// (they read well in `tofu plan`), and structured lists for
// `tofu show -json`.
type planOutputModel struct {
	Template      types.String        `tfsdk:"template"`
	Display       types.String        `tfsdk:"display"`
	Customized    types.Bool          `tfsdk:"customized"`
	Changes       []string            `tfsdk:"changes"`
	Summary       types.String        `tfsdk:"summary"`
	Advanced      types.String        `tfsdk:"advanced"`
	Mermaid       types.String        `tfsdk:"mermaid"`
	JSON          types.String        `tfsdk:"json"`
	Instances     []planInstanceModel `tfsdk:"instances"`
	Gates         []packGateModel     `tfsdk:"gates"`
	Decisions     []decisionModel     `tfsdk:"decisions"`
	SubOperations []subOperationModel `tfsdk:"sub_operations"`
}

type planInstanceModel struct {
	ID      string   `tfsdk:"id"`
	Job     string   `tfsdk:"job"`
	Stage   string   `tfsdk:"stage"`
	Host    string   `tfsdk:"host"`
	Needs   []string `tfsdk:"needs"`
	Origin  string   `tfsdk:"origin"`
	Because string   `tfsdk:"because"`
	Gate    string   `tfsdk:"gate"`
	Retry   bool     `tfsdk:"retry"`
}

type decisionModel struct {
	Capability string                 `tfsdk:"capability"`
	Decision   string                 `tfsdk:"decision"`
	Provider   string                 `tfsdk:"provider"`
	Reason     string                 `tfsdk:"reason"`
	Candidates []candidateReportModel `tfsdk:"candidates"`
}

type candidateReportModel struct {
	Name     string   `tfsdk:"name"`
	Provider string   `tfsdk:"provider"`
	Accepted bool     `tfsdk:"accepted"`
	Reasons  []string `tfsdk:"reasons"`
}

type subOperationModel struct {
	ID         string `tfsdk:"id"`
	Pack       string `tfsdk:"pack"`
	Template   string `tfsdk:"template"`
	Capability string `tfsdk:"capability"`
	Reason     string `tfsdk:"reason"`
}

func flattenPlan(c *planner.Composed) planOutputModel {
	p := c.Plan
	js, err := planner.RenderJSON(p)
	if err != nil {
		js = []byte("{}")
	}
	m := planOutputModel{
		Template:      types.StringValue(p.Template),
		Display:       types.StringValue(p.Display()),
		Customized:    types.BoolValue(p.Customized),
		Changes:       nonNil(p.Changes),
		Summary:       types.StringValue(planner.RenderSimple(p)),
		Advanced:      types.StringValue(planner.RenderAdvanced(p, planner.AdvancedOptions{})),
		Mermaid:       types.StringValue(planner.RenderMermaid(p)),
		JSON:          types.StringValue(string(js)),
		Instances:     []planInstanceModel{},
		Gates:         []packGateModel{},
		Decisions:     []decisionModel{},
		SubOperations: []subOperationModel{},
	}
	for _, in := range p.Instances {
		im := planInstanceModel{ID: in.ID, Job: in.JobID, Stage: in.Stage, Host: in.Host, Needs: nonNil(in.Needs),
			Origin: string(in.Origin), Because: in.Because, Retry: in.Retry}
		if in.Gate != nil {
			im.Gate = in.Gate.ID
			m.Gates = append(m.Gates, packGateModel{ID: in.Gate.ID, Type: string(in.Gate.Type), Reason: in.Gate.Reason,
				Options: nonNil(in.Gate.OptionIDs()), RequiredRoles: nonNil(in.Gate.RequiredRoles)})
		}
		m.Instances = append(m.Instances, im)
	}
	for _, d := range c.Decisions {
		m.Decisions = append(m.Decisions, flattenDecision(d))
	}
	for _, s := range p.SubOps {
		m.SubOperations = append(m.SubOperations, subOperationModel{ID: s.ID, Pack: s.Pack, Template: s.Template, Capability: s.Capability, Reason: s.Reason})
	}
	return m
}

func flattenDecision(d capability.Decision) decisionModel {
	dm := decisionModel{Capability: d.Requirement.Key, Decision: string(d.Kind), Reason: d.Reason, Candidates: []candidateReportModel{}}
	switch {
	case d.Create != nil:
		dm.Provider = d.Create.Provider
	case d.Binding.Provider != "":
		dm.Provider = d.Binding.Provider
	}
	for _, c := range d.Candidates {
		dm.Candidates = append(dm.Candidates, candidateReportModel{Name: c.Name, Provider: c.Provider, Accepted: c.Accepted, Reasons: nonNil(c.Reasons)})
	}
	return dm
}
