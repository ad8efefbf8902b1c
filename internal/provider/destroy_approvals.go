package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
)

// Destroy approvals: Delete cannot read a resource's configuration, so the
// approvals of its destroy gates come from the state (those of its last
// apply) or from the provider block, which Terraform configures for a
// destroy too. A provider entry names the resource by type and name (its
// name attribute, or its id), the gate and the option; it is decided by
// the provider's actor, whose roles are checked like any approval's, at
// plan and again before anything runs.

// destroyApprovalModel is one destroy_approvals entry.
type destroyApprovalModel struct {
	Resource types.String `tfsdk:"resource"`
	Name     types.String `tfsdk:"name"`
	Gate     types.String `tfsdk:"gate"`
	Option   types.String `tfsdk:"option"`
}

// destroyApproval is a checked entry; Index is its place in the list.
type destroyApproval struct {
	Resource, Name, Gate, Option string
	Index                        int
}

// destroyResourceTypes are the resources whose destroy may stop at gates.
var destroyResourceTypes = []string{"cp_kubernetes_cluster", "cp_node", "cp_scenario", "cp_tempo"}

func destroyApprovalsSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Decisions for the gates of a destroy, given without applying the resource first: `tofu plan -destroy` shows each gate approved " +
			"or waiting, and `tofu destroy` runs nothing until every gate of the destroy is decided. An entry names the resource by `resource` type and " +
			"`name` (its `name` attribute, or its `id`), the `gate` and the `option`; the provider's `actor` decides it, and its `actor_roles` must hold " +
			"one of the gate's roles. An entry overrides the resource's own approval of the same gate; approvals the resource was applied with keep working. " +
			"Each resource page lists its destroy gates.",
		Optional: true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"resource": schema.StringAttribute{MarkdownDescription: "Resource type: `" + strings.Join(destroyResourceTypes, "`, `") + "`.", Required: true},
			"name":     schema.StringAttribute{MarkdownDescription: "The resource's `name` attribute or its `id` (e.g. `tempo/tracing`, `kubernetes/prod-k8s`).", Required: true},
			"gate":     schema.StringAttribute{MarkdownDescription: "Gate of the destroy, e.g. `confirm-cluster-deletion`.", Required: true},
			"option":   schema.StringAttribute{MarkdownDescription: "Option chosen, e.g. `delete cluster`.", Required: true},
		}},
	}
}

// destroyApprovalsOf checks the provider's entries: a known resource type,
// and a name, gate and option each given.
func destroyApprovalsOf(in []destroyApprovalModel, diags *diag.Diagnostics) []destroyApproval {
	var out []destroyApproval
	for i, m := range in {
		at := path.Root("destroy_approvals").AtListIndex(i)
		d := destroyApproval{Resource: strOr(m.Resource, ""), Name: strOr(m.Name, ""), Gate: strOr(m.Gate, ""), Option: strOr(m.Option, ""), Index: i}
		ok := true
		if !containsStr(destroyResourceTypes, d.Resource) {
			addAttrError(diags, at.AtName("resource"), "Unknown resource type",
				fmt.Sprintf("%s is not a cp resource with a destroy; use one of %s.", paramtype.Quote(d.Resource), strings.Join(destroyResourceTypes, ", ")))
			ok = false
		}
		for attr, v := range map[string]string{"name": d.Name, "gate": d.Gate, "option": d.Option} {
			if v == "" {
				addAttrError(diags, at.AtName(attr), "Missing "+attr, "set the "+attr+" of the destroy approval.")
				ok = false
			}
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// destroyKey is how destroy_approvals names a resource of model m: its
// type and the names that match it (name attribute, id).
func destroyKey(m any) (string, []string) {
	switch v := m.(type) {
	case *clusterModel:
		return "cp_kubernetes_cluster", []string{v.Name.ValueString(), v.ID.ValueString()}
	case *tempoModel:
		return "cp_tempo", []string{v.Name.ValueString(), v.ID.ValueString()}
	case *scenarioModel:
		return "cp_scenario", []string{v.Name.ValueString(), v.ID.ValueString()}
	case *nodeResModel:
		names := []string{v.ID.ValueString()}
		if v.Node != nil {
			names = append(names, v.Node.Name.ValueString())
		}
		return "cp_node", names
	}
	return "", nil
}

// destroyApprovalsFor are the provider's entries for the resource of m.
func destroyApprovalsFor(data *providerData, m any) []destroyApproval {
	typ, names := destroyKey(m)
	var out []destroyApproval
	for _, d := range data.DestroyApprovals {
		if d.Resource == typ && containsStr(names, d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// destroyHCL is the provider entry to paste for a gate of m's destroy.
func destroyHCL(m any, gate, option string) string {
	typ, names := destroyKey(m)
	name := ""
	if len(names) > 0 {
		name = names[0]
	}
	return fmt.Sprintf("destroy_approvals = [{ resource = %q, name = %q, gate = %q, option = %q }]", typ, name, gate, option)
}

// mergeDestroyApprovals are the approvals a destroy runs with: the
// resource's own, except a gate a provider entry decides, then the
// provider's entries.
func mergeDestroyApprovals(own []approvalModel, extra []destroyApproval) []approvalModel {
	decided := map[string]bool{}
	for _, d := range extra {
		decided[d.Gate] = true
	}
	var out []approvalModel
	for _, a := range own {
		if !decided[strOr(a.Gate, "")] {
			out = append(out, a)
		}
	}
	for _, d := range extra {
		out = append(out, approvalModel{Gate: types.StringValue(d.Gate), Option: types.StringValue(d.Option)})
	}
	return out
}

// checkDestroyApprovals refuses provider entries for the resource that
// could not take effect on its destroy (intent.CheckApprovals: a gate the
// destroy has not, an option the gate has not, an actor without the
// gate's roles), naming the entry in the provider block.
func checkDestroyApprovals(ops []intentOp, extra []destroyApproval, actor intent.Actor, diags *diag.Diagnostics) {
	if len(extra) == 0 {
		return
	}
	var gates intent.GateSet
	for _, op := range ops {
		gates.Planned = append(gates.Planned, intent.PlannedGates(op.Composed.Plan)...)
	}
	approvals := make([]intent.Approval, len(extra))
	for i, d := range extra {
		approvals[i] = intent.Approval{Gate: d.Gate, Option: d.Option}
	}
	for _, p := range intent.CheckApprovals(intent.Root("destroy_approvals"), approvals, gates, actor) {
		// p.Path is destroy_approvals[i] of the resource's entries; name
		// the entry of the provider block.
		i := 0
		if len(p.Path) > 1 && p.Path[1].Kind == intent.StepIndex {
			i = p.Path[1].Index
		}
		at := fmt.Sprintf("provider \"cp\" destroy_approvals[%d]", extra[i].Index)
		if p.Warning {
			diags.AddWarning(p.Summary+" ("+at+")", at+" (resource "+extra[i].Resource+" "+extra[i].Name+"): "+p.Detail)
			continue
		}
		diags.AddError(p.Summary+" ("+at+")", at+" (resource "+extra[i].Resource+" "+extra[i].Name+"): "+p.Detail)
	}
}
