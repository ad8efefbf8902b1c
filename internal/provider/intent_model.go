package provider

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Models shared by cp_plan and the intent resources: hosts, candidates,
// state inputs, customizations and plan patches, with their conversions
// to protocol types.

type hostModel struct {
	Name    types.String      `tfsdk:"name"`
	Address types.String      `tfsdk:"address"`
	Port    types.Int64       `tfsdk:"port"`
	Role    types.String      `tfsdk:"role"`
	Labels  map[string]string `tfsdk:"labels"`
	Taints  []string          `tfsdk:"taints"`
}

type candidateModel struct {
	Name       types.String      `tfsdk:"name"`
	Provider   types.String      `tfsdk:"provider"`
	Capability types.String      `tfsdk:"capability"`
	Attributes map[string]string `tfsdk:"attributes"`
}

type stateArtifactModel struct {
	ID        types.String `tfsdk:"id"`
	ExpiresAt types.String `tfsdk:"expires_at"`
}

type customizationModel struct {
	BaseTemplate types.String               `tfsdk:"base_template"`
	Changes      []customizationChangeModel `tfsdk:"changes"`
}

type customizationChangeModel struct {
	Inserted types.String `tfsdk:"inserted"`
	After    types.String `tfsdk:"after"`
	Removed  types.String `tfsdk:"removed"`
}

type planPatchModel struct {
	ID       types.String        `tfsdk:"id"`
	Author   types.String        `tfsdk:"author"`
	Reason   types.String        `tfsdk:"reason"`
	Risk     types.String        `tfsdk:"risk"`
	Changes  []patchChangeModel  `tfsdk:"changes"`
	Approval *patchApprovalModel `tfsdk:"approval"`
}

type patchChangeModel struct {
	InsertAfter types.String      `tfsdk:"insert_after"`
	Jobs        []string          `tfsdk:"jobs"`
	Parameters  map[string]string `tfsdk:"parameters"`
	Remove      types.String      `tfsdk:"remove"`
	Retry       types.String      `tfsdk:"retry"`
}

type patchApprovalModel struct {
	Required   types.Bool   `tfsdk:"required"`
	Roles      []string     `tfsdk:"roles"`
	ApprovedBy types.String `tfsdk:"approved_by"`
}

// toHosts converts cp_plan's hosts; planHostInputs and intent.CheckHosts
// check them.
func toHosts(in []hostModel) []protocol.Host {
	var out []protocol.Host
	for _, h := range in {
		out = append(out, protocol.Host{
			Name: strOr(h.Name, ""), Address: strOr(h.Address, ""), Port: intOr(h.Port, 0),
			Role: strOr(h.Role, ""), Labels: h.Labels, Taints: h.Taints,
		})
	}
	return out
}

func toCandidates(in []candidateModel) []capability.Candidate {
	var out []capability.Candidate
	for _, c := range in {
		out = append(out, capability.Candidate{
			Name: strOr(c.Name, ""), Provider: strOr(c.Provider, ""), Source: capability.SourceExternal,
			Capability: protocol.Capability{Key: strOr(c.Capability, ""), Attributes: c.Attributes},
		})
	}
	return out
}

func toState(arts []stateArtifactModel, caps []string, base path.Path, diags *diag.Diagnostics) planner.State {
	var s planner.State
	for i, a := range arts {
		art := protocol.Artifact{ID: strOr(a.ID, ""), Sensitivity: protocol.SensitivitySecret}
		if v := strOr(a.ExpiresAt, ""); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				addAttrError(diags, base.AtListIndex(i).AtName("expires_at"), "Invalid expiry",
					fmt.Sprintf("%s is not an RFC 3339 time such as \"2026-11-30T12:00:00Z\".", paramtype.Quote(v)))
			}
			art.ExpiresAt = t
		}
		s.Artifacts = append(s.Artifacts, art)
	}
	for _, c := range caps {
		s.Capabilities = append(s.Capabilities, protocol.Capability{Key: c})
	}
	return s
}

func toCustomization(c *customizationModel) *protocol.Customization {
	if c == nil {
		return nil
	}
	out := &protocol.Customization{BaseTemplate: strOr(c.BaseTemplate, "")}
	for _, ch := range c.Changes {
		out.Changes = append(out.Changes, protocol.CustomizationChange{
			Inserted: strOr(ch.Inserted, ""), After: strOr(ch.After, ""), Removed: strOr(ch.Removed, ""),
		})
	}
	return out
}

// toPatches converts plan patches. A change's parameters go to each of its
// jobs that reads them (per the pack's job library; all of them when the
// job is unknown, so the planner reports it).
func toPatches(in []planPatchModel, pack *protocol.ScenarioPack) []protocol.PlanPatch {
	var out []protocol.PlanPatch
	for _, p := range in {
		pp := protocol.PlanPatch{ID: strOr(p.ID, ""), Author: strOr(p.Author, ""), Reason: strOr(p.Reason, ""), Risk: strOr(p.Risk, "")}
		for _, c := range p.Changes {
			pc := protocol.PatchChange{InsertAfter: strOr(c.InsertAfter, ""), Remove: strOr(c.Remove, "")}
			for _, j := range c.Jobs {
				pc.Jobs = append(pc.Jobs, protocol.PatchJob{ID: j, Parameters: intent.JobParams(pack, j, c.Parameters)})
			}
			if r := strOr(c.Retry, ""); r != "" {
				pc.Retry = &protocol.RetryChange{Job: r}
			}
			pp.Changes = append(pp.Changes, pc)
		}
		if p.Approval != nil {
			pp.Approval = protocol.PatchApproval{Required: p.Approval.Required.ValueBool(), Roles: p.Approval.Roles, ApprovedBy: strOr(p.Approval.ApprovedBy, "")}
		}
		out = append(out, pp)
	}
	return out
}
