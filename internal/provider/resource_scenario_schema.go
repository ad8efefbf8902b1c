package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

func resHostsAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Hosts the action runs on. With `cluster_handle` and no hosts, the cluster's hosts are used.",
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":    schema.StringAttribute{MarkdownDescription: "Unique host name.", Required: true},
			"address": schema.StringAttribute{MarkdownDescription: "IP address or DNS name.", Required: true},
			"port":    schema.Int64Attribute{MarkdownDescription: "SSH port.", Optional: true},
			"role":    rOptStr("Role the pack's jobs expand over: `master`, `worker` or `node` (a host only jobs run on every host reach); defaults to `node` (`worker` in `cp_node`, which takes `master` or `worker`). Any other role is refused at plan."),
			"labels":  rOptMap("Labels."),
			"taints":  rOptList("Taints."),
			"ssh": schema.SingleNestedAttribute{
				MarkdownDescription: "SSH settings for this host only.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"user":             rOptStr("Login user."),
					"private_key_file": rOptStr("Private key file."),
				},
			},
		}},
	}
}

func resCandidatesAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Existing capability providers the pack's requirements may bind, e.g. an S3 bucket (`provider = \"aws_s3\"`).",
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: storageCredentialAttrs(map[string]schema.Attribute{
			"name":       schema.StringAttribute{MarkdownDescription: "Candidate name.", Required: true},
			"provider":   schema.StringAttribute{MarkdownDescription: "Provider kind the policy speaks of.", Required: true},
			"capability": schema.StringAttribute{MarkdownDescription: "Capability key.", Required: true},
			"attributes": rOptMap("Attributes constraints are matched against; an `object_storage.s3` candidate's `endpoint` (the S3 API URL) is given to the jobs with its credentials."),
		})},
	}
}

// intentComputedAttrs are the computed attributes of every intent resource.
func intentComputedAttrs(attrs map[string]schema.Attribute) {
	planAttrs(attrs, "Simple view of the operation's plan: stages with job counts. Shown in `plan` before apply; kept after it.")
	attrs["operation"] = operationAttr()
	attrs["artifacts"] = artifactsAttr()
	attrs["evidence"] = evidenceAttr()
	attrs["capabilities"] = capabilitiesAttr()
	attrs["handle"] = rStr("What other cp resources need to use this one (capabilities, artifact references; no secrets).")
}

// Schema of cp_scenario.
func (r *ScenarioResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{MarkdownDescription: "`<pack>/<name>`.", Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"pack": schema.StringAttribute{MarkdownDescription: "Pack id, built-in or from the provider's `pack_dirs`.", Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"version": rOptStr("Pack version constraint; the newest matching version is used."),
		"action": schema.StringAttribute{MarkdownDescription: "Pack action apply runs, e.g. `install`. Defaults to `install`.",
			Optional: true, Computed: true, Default: stringdefault.StaticString("install")},
		"destroy_action": rOptStr("Pack action destroy runs, e.g. `uninstall`; without it, destroy only forgets the resource."),
		"name": schema.StringAttribute{MarkdownDescription: "Name of the target resource the action creates or changes.", Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"environment": schema.StringAttribute{MarkdownDescription: "Environment whose policy applies; defaults to the provider's.",
			Optional: true, Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"hosts": resHostsAttr(),
		"targets": rOptList("Host names the action targets, each one of the intent's hosts (those of `hosts` or of the cluster handle): " +
			"the jobs a pack runs per target node (`scope.expand: target_nodes`), e.g. the node `remove_node`, `drain`, `cordon` or `uncordon` of the " +
			"`kubernetes` pack acts on. Empty means every host. Changing it runs the action again."),
		"cluster_handle": rOptStr("Handle of a `cp_kubernetes_cluster`: its hosts, artifacts (kubeconfig by reference) and capabilities (`kubernetes.cluster`, `secret.store`) become part of the intent. " +
			"When a host leaves the cluster (a worker removed), the next plan runs the pack's `uninstall_node` action, if it has one, on the hosts that left " +
			"(the node-scoped part of its uninstall, jobs with `scope.expand: target_nodes`), then the action again on the hosts left."),
		"parameters":     rOptMap("Pack parameters; validated against the pack."),
		"constraints":    rOptMap("Intent constraints, e.g. `region`."),
		"candidates":     resCandidatesAttr(),
		"customizations": resCustomizationsAttr(),
		"plan_patches":   resPlanPatchesAttr(),
		"approvals":      resApprovalsAttr(),
		"interventions":  resInterventionsAttr(),
		"ssh":            resourceSSHAttr(),
		"timeouts":       timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}
	intentComputedAttrs(attrs)
	constraintAttrs(attrs)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs any pack action — built-in or from a user pack directory — with parameters, hosts and capability bindings, " +
			"so HCL modules can compose packs. Same plan and apply behaviour as the other intent resources: the plan shows the DAG, " +
			"apply runs it and records artifacts and evidence, a failed apply resumes when run again.",
		Attributes: attrs,
	}
}
