package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

func optStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Optional: true}
}

func optList(desc string) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: desc, Optional: true, ElementType: stringType}
}

func optMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: desc, Optional: true, ElementType: stringType}
}

func optNested(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{MarkdownDescription: desc, Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

func dsHostsAttr() schema.ListNestedAttribute {
	return optNested("Hosts the action runs on, in order (the first master is the first host with role `master`).", map[string]schema.Attribute{
		"name":    schema.StringAttribute{MarkdownDescription: "Unique host name, e.g. `worker-3`; job instances are named after it.", Required: true},
		"address": schema.StringAttribute{MarkdownDescription: "IP address or DNS name to connect to.", Required: true},
		"port":    schema.Int64Attribute{MarkdownDescription: "SSH port; defaults to the provider's.", Optional: true},
		"role":    schema.StringAttribute{MarkdownDescription: "`master`, `worker` or a role the pack defines.", Required: true},
		"labels":  optMap("Labels applied to the node."),
		"taints":  optList("Taints applied to the node, e.g. `dedicated=infra:NoSchedule`."),
	})
}

func dsCandidatesAttr() schema.ListNestedAttribute {
	return optNested("Capability providers that exist already — exported by other resources or declared here, e.g. an existing S3 bucket. "+
		"Resolution binds a matching one, creates one through a sub-operation, or stops at a gate.", map[string]schema.Attribute{
		"name":       schema.StringAttribute{MarkdownDescription: "Name of the candidate, e.g. `shared-minio`.", Required: true},
		"provider":   schema.StringAttribute{MarkdownDescription: "Provider kind the policy speaks of, e.g. `shared_minio`, `aws_s3`.", Required: true},
		"capability": schema.StringAttribute{MarkdownDescription: "Capability key it provides, e.g. `object_storage.s3`.", Required: true},
		"attributes": optMap("Attributes constraints are matched against, e.g. `region`, `encryption`, `capacity_gb`."),
	})
}

func dsCustomizationsAttr() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The stored difference to the pack template: jobs inserted after others (from the pack's job library) and jobs removed. " +
			"The plan then reads `<template> customized` and lists the changes. " + notEditableDesc,
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"base_template": optStr("Template the customization was made against, e.g. `kubernetes.create@1.0.0`; planning fails when it differs."),
			"changes": schema.ListNestedAttribute{
				MarkdownDescription: "Changes in order. Each sets `inserted` with `after`, or `removed`.",
				Required:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"inserted": optStr("Job id from the pack's job library to insert."),
					"after":    optStr("Job id the inserted job runs after."),
					"removed":  optStr("Job id to remove; refused while another job requires its outputs."),
				}},
			},
		},
	}
}

func dsPlanPatchesAttr() schema.ListNestedAttribute {
	return optNested("Plan patches (seed 001 §14): structured diffs proposed by a diagnosis or a person, applied only once approved. "+notEditableDesc, map[string]schema.Attribute{
		"id":     optStr("Patch id."),
		"author": schema.StringAttribute{MarkdownDescription: "Who proposed it, e.g. `ai-agent:sre` or `alice`.", Required: true},
		"reason": schema.StringAttribute{MarkdownDescription: "Why.", Required: true},
		"risk":   optStr(patchRiskDesc),
		"changes": schema.ListNestedAttribute{
			MarkdownDescription: "Changes; each sets exactly one of `insert_after` (with `jobs`), `remove` or `retry`.",
			Required:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"insert_after": optStr("Job id after which `jobs` are inserted."),
				"jobs":         optList("Job ids from the pack's job library, inserted in order."),
				"parameters":   optMap("Parameters of the inserted jobs, e.g. `registry_mirrors`."),
				"remove":       optStr("Job id to remove."),
				"retry":        optStr("Job id to run again although it failed."),
			}},
		},
		"approval": schema.SingleNestedAttribute{
			MarkdownDescription: "Approval of the patch.",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"required":    schema.BoolAttribute{MarkdownDescription: "Whether approval is required.", Optional: true},
				"roles":       optList("Roles that may approve."),
				"approved_by": optStr("Who approved; a required approval without it keeps the patch out of the plan."),
			},
		},
	})
}

func planOutputAttrs() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"template":   cStr("Template reference, e.g. `kubernetes.create@1.0.0`."),
		"display":    cStr("Template reference, followed by `customized` when customizations or patches changed it."),
		"customized": cBool("Whether the plan differs from its template."),
		"changes":    cList("Customization and patch changes, in order."),
		"summary":    cStr("Simple view: stages with job counts."),
		"advanced":   cStr("Advanced view: job instances per stage with host, needs, requires/provides, inserted-because and gates."),
		"mermaid":    cStr("The DAG as a mermaid `flowchart`."),
		"json":       cStr("The plan as JSON: stages, instances, edges, gates, sub-operations, bindings."),
		"instances": cNested("Job instances and gate nodes in plan order.", map[string]schema.Attribute{
			"id":      cStr("Instance id, e.g. `join-workers[worker-3]`."),
			"job":     cStr("Job id."),
			"stage":   cStr("Stage id."),
			"host":    cStr("Host the instance runs on; empty for gates."),
			"needs":   cList("Instances it waits for (no redundant transitive edges)."),
			"origin":  cStr("template, customization, patch, inserted, sub-operation or gate."),
			"because": cStr("Why a non-template instance is here."),
			"gate":    cStr("Gate id, for gate nodes."),
			"retry":   cBool("Whether a patch asked to retry this job."),
		}),
		"planned_instances": schema.MapAttribute{MarkdownDescription: plannedInstancesDesc + " Gates show as waiting: " +
			"`cp_plan` takes no approvals.", Computed: true, ElementType: plannedInstanceType},
		"digest": cStr("SHA-256 digest of the per-instance DAG, as the resources' `plan_digest`."),
		"gates": cNested("Gates in the plan.", map[string]schema.Attribute{
			"id":             cStr("Gate id."),
			"type":           cStr("Gate type."),
			"reason":         cStr("Why the plan stops there."),
			"options":        cList("Options a decision may choose."),
			"required_roles": cList("Roles allowed to decide."),
		}),
		"decisions": cNested("Capability resolution of each requirement of the pack.", decisionAttrs()),
		"sub_operations": cNested("Nested operations created by `create` decisions, e.g. installing MinIO for `object_storage.s3`.", map[string]schema.Attribute{
			"id":         cStr("Sub-operation id."),
			"pack":       cStr("Pack reference."),
			"template":   cStr("Template reference."),
			"capability": cStr("Capability it provides."),
			"reason":     cStr("Why it was created."),
		}),
	}
}

func decisionAttrs() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"capability": cStr("Required capability."),
		"decision":   cStr("`bind`, `create` or `gate`."),
		"provider":   cStr("Provider bound or created."),
		"reason":     cStr("Why."),
		"candidates": cNested("Every candidate considered, with why it was accepted or rejected.", map[string]schema.Attribute{
			"name":     cStr("Candidate name."),
			"provider": cStr("Provider kind."),
			"accepted": cBool("Whether it matched."),
			"reasons":  cList("Reasons, each `accepted: ...` or `rejected: ...`."),
			"decided_by": cStr("What decided whether its provider kind may serve: a policy rule (`rule 2 \"pci\"`), " +
				"the environment's `capability_policy` entry, or `no policy`."),
		}),
	}
}

// Schema of cp_plan.
func (d *PlanDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := planOutputAttrs()
	attrs["pack"] = schema.StringAttribute{MarkdownDescription: "Pack id, e.g. `kubernetes`.", Required: true}
	attrs["version"] = optStr("Pack version constraint; the newest matching version is used.")
	attrs["action"] = schema.StringAttribute{MarkdownDescription: "Pack action, e.g. `create`, `add_node`, `install`.", Required: true}
	attrs["name"] = optStr("Name of the target resource, e.g. the cluster name.")
	attrs["environment"] = optStr("Environment whose policy applies; defaults to the provider's.")
	attrs["hosts"] = dsHostsAttr()
	attrs["targets"] = optList("Host names the action targets (add_node, remove_node); empty means every host.")
	attrs["parameters"] = optMap("Pack parameters, e.g. `cni = \"calico\"`; validated against the pack.")
	attrs["constraints"] = optMap("Intent constraints such as `region` and `require_ha_control_plane`; `environment` defaults to the provider's.")
	attrs["candidates"] = dsCandidatesAttr()
	attrs["state_artifacts"] = optNested("Artifacts a previous operation left, e.g. the cluster's join token with its expiry; an absent or expired one makes the planner insert the job that produces it.", map[string]schema.Attribute{
		"id":         schema.StringAttribute{MarkdownDescription: "Artifact id, e.g. `kubeadm.join_token`.", Required: true},
		"expires_at": optStr("RFC 3339 expiry, e.g. `2026-11-30T12:00:00Z`."),
	})
	attrs["state_capabilities"] = optList("Capabilities the target already provides, e.g. `kubernetes.api` for add_node.")
	attrs["customizations"] = dsCustomizationsAttr()
	attrs["plan_patches"] = dsPlanPatchesAttr()
	resp.Schema = schema.Schema{
		MarkdownDescription: "Previews the plan of a pack action — capability resolution, the DAG of job instances per host, gates, " +
			"inserted jobs and why, customizations and patches — without a resource. Nothing runs and no host is contacted. " +
			"The text attributes read well in `tofu plan` output; the lists serve `tofu show -json`.",
		Attributes: attrs,
	}
}
