package provider

import (
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

type packRequireModel struct {
	Capability  string            `tfsdk:"capability"`
	Scope       string            `tfsdk:"scope"`
	Constraints map[string]string `tfsdk:"constraints"`
	Optional    bool              `tfsdk:"optional"`
}

type packProvideModel struct {
	Capability string `tfsdk:"capability"`
	Scope      string `tfsdk:"scope"`
}

type packParamModel struct {
	Name        string   `tfsdk:"name"`
	Type        string   `tfsdk:"type"`
	Default     string   `tfsdk:"default"`
	Required    bool     `tfsdk:"required"`
	Description string   `tfsdk:"description"`
	Enum        []string `tfsdk:"enum"`
}

type packTemplateModel struct {
	ID         string           `tfsdk:"id"`
	Ref        string           `tfsdk:"ref"`
	Action     string           `tfsdk:"action"`
	Title      string           `tfsdk:"title"`
	Entrypoint string           `tfsdk:"entrypoint"`
	Stages     []packStageModel `tfsdk:"stages"`
	Gates      []packGateModel  `tfsdk:"gates"`
}

type packStageModel struct {
	ID       string   `tfsdk:"id"`
	Title    string   `tfsdk:"title"`
	Jobs     []string `tfsdk:"jobs"`
	Requires []string `tfsdk:"requires"`
	Produces []string `tfsdk:"produces"`
}

type packGateModel struct {
	ID            string   `tfsdk:"id"`
	Type          string   `tfsdk:"type"`
	Reason        string   `tfsdk:"reason"`
	Options       []string `tfsdk:"options"`
	RequiredRoles []string `tfsdk:"required_roles"`
}

type packJobModel struct {
	ID                    string               `tfsdk:"id"`
	Title                 string               `tfsdk:"title"`
	Description           string               `tfsdk:"description"`
	Type                  string               `tfsdk:"type"`
	Expand                string               `tfsdk:"expand"`
	Parameters            []string             `tfsdk:"parameters"`
	ParameterDescriptions map[string]string    `tfsdk:"parameter_descriptions"`
	RequiresCapabilities  []capabilityRefModel `tfsdk:"requires_capabilities"`
	RequiresArtifacts     []string             `tfsdk:"requires_artifacts"`
	ProvidesCapabilities  []capabilityRefModel `tfsdk:"provides_capabilities"`
	Artifacts             []artifactSpecModel  `tfsdk:"artifacts"`
	Evidence              []evidenceSpecModel  `tfsdk:"evidence"`
	MaxAttempts           int64                `tfsdk:"max_attempts"`
	IdempotencyKey        string               `tfsdk:"idempotency_key"`
	Timeout               string               `tfsdk:"timeout"`
	ManualIntervention    bool                 `tfsdk:"manual_intervention_allowed"`
	Become                bool                 `tfsdk:"become"`
	Script                string               `tfsdk:"script"`
	After                 []string             `tfsdk:"after"`
}

type capabilityRefModel struct {
	Key   string `tfsdk:"key"`
	Scope string `tfsdk:"scope"`
}

type artifactSpecModel struct {
	ID          string `tfsdk:"id"`
	Type        string `tfsdk:"type"`
	Description string `tfsdk:"description"`
	Sensitivity string `tfsdk:"sensitivity"`
	Scope       string `tfsdk:"scope"`
	TTL         string `tfsdk:"ttl"`
}

type evidenceSpecModel struct {
	ID               string `tfsdk:"id"`
	Source           string `tfsdk:"source"`
	Command          string `tfsdk:"command"`
	Expected         string `tfsdk:"expected"`
	Match            string `tfsdk:"match"`
	ExpectedExitCode int64  `tfsdk:"expected_exit_code"`
}

func flattenParam(name string, p protocol.ParamSpec) packParamModel {
	typ := p.Type
	if typ == "" {
		typ = "string"
	}
	return packParamModel{Name: name, Type: typ, Default: p.Default, Required: p.Required, Description: p.Description, Enum: nonNil(p.Enum)}
}

func flattenTemplate(ref protocol.TemplateRef, t *protocol.PlanTemplate) packTemplateModel {
	m := packTemplateModel{ID: ref.ID, Action: ref.Action, Entrypoint: ref.Entrypoint, Stages: []packStageModel{}, Gates: []packGateModel{}}
	if t == nil {
		return m
	}
	m.Ref = t.Ref()
	m.Title = t.Title
	for _, s := range t.Stages {
		m.Stages = append(m.Stages, packStageModel{ID: s.ID, Title: s.Title, Jobs: nonNil(s.Jobs), Requires: nonNil(s.Requires), Produces: nonNil(s.Produces)})
	}
	for _, g := range t.Gates {
		m.Gates = append(m.Gates, packGateModel{ID: g.ID, Type: string(g.Type), Reason: g.Reason, Options: nonNil(g.OptionIDs()), RequiredRoles: nonNil(g.RequiredRoles)})
	}
	return m
}

func flattenJob(j *protocol.Job) packJobModel {
	m := packJobModel{
		ID: j.ID, Title: j.Title, Description: j.Description, Type: j.Type, Expand: string(j.Scope.Expand),
		Parameters:            protocol.SortedKeys(j.Inputs.Parameters),
		ParameterDescriptions: map[string]string{},
		RequiresCapabilities:  []capabilityRefModel{},
		RequiresArtifacts:     []string{},
		ProvidesCapabilities:  []capabilityRefModel{},
		Artifacts:             []artifactSpecModel{},
		Evidence:              []evidenceSpecModel{},
		MaxAttempts:           int64(max(j.Controls.RetryPolicy.MaxAttempts, 1)),
		IdempotencyKey:        j.Controls.Idempotency.Key,
		ManualIntervention:    j.Controls.ManualIntervention.Allowed,
		Become:                j.Controls.Become,
		Script:                j.Script,
		After:                 nonNil(j.After),
	}
	for name, p := range j.Inputs.Parameters {
		if p.Description != "" {
			m.ParameterDescriptions[name] = p.Description
		}
	}
	if j.Controls.Timeout > 0 {
		m.Timeout = j.Controls.Timeout.String()
	}
	for _, r := range j.Inputs.Requires.Capabilities {
		m.RequiresCapabilities = append(m.RequiresCapabilities, capabilityRefModel{Key: r.Key, Scope: string(r.Scope.Normal())})
	}
	for _, a := range j.Inputs.Requires.Artifacts {
		m.RequiresArtifacts = append(m.RequiresArtifacts, a.ID)
	}
	for _, c := range j.Outputs.Provides.Capabilities {
		m.ProvidesCapabilities = append(m.ProvidesCapabilities, capabilityRefModel{Key: c.Key, Scope: string(c.Scope.Normal())})
	}
	for _, a := range j.Outputs.Artifacts {
		am := artifactSpecModel{ID: a.ID, Type: a.Type, Description: a.Description, Sensitivity: string(a.Sensitivity), Scope: string(a.Scope.Normal())}
		if a.TTL > 0 {
			am.TTL = a.TTL.String()
		}
		m.Artifacts = append(m.Artifacts, am)
	}
	for _, e := range j.Outputs.Evidence {
		em := evidenceSpecModel{ID: e.ID, Source: e.Source, Command: e.Command, Expected: e.Expected, Match: string(e.Match)}
		if e.ExpectedExitCode != nil {
			em.ExpectedExitCode = int64(*e.ExpectedExitCode)
		}
		m.Evidence = append(m.Evidence, em)
	}
	if m.Parameters == nil {
		m.Parameters = []string{}
	}
	return m
}
