package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Object types of the computed attributes the intent resources share.
var (
	plannedJobType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"id": types.StringType, "job": types.StringType, "stage": types.StringType, "host": types.StringType,
		"needs": types.ListType{ElemType: types.StringType}, "origin": types.StringType, "because": types.StringType,
	}}
	operationType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"id": types.StringType, "action": types.StringType, "template": types.StringType, "status": types.StringType,
		"phases_done": types.Int64Type, "phases_total": types.Int64Type, "jobs_run": types.Int64Type, "jobs_satisfied": types.Int64Type,
		"started_at": types.StringType, "finished_at": types.StringType,
		"timeline": types.ListType{ElemType: types.StringType},
	}}
	artifactType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"id": types.StringType, "sensitivity": types.StringType, "value": types.StringType, "ref": types.StringType,
		"fingerprint": types.StringType, "expires_at": types.StringType, "producer": types.StringType,
	}}
	evidenceType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"instance": types.StringType, "host": types.StringType, "id": types.StringType, "passed": types.BoolType,
		"observed": types.StringType, "checked_at": types.StringType,
	}}
	capabilityType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"key": types.StringType, "attributes": types.MapType{ElemType: types.StringType},
	}}
	clusterNodeType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"name": types.StringType, "role": types.StringType, "ready": types.BoolType,
	}}
)

func rStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
}

func computedListOf(desc string, t types.ObjectType) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: t}
}

func plannedJobsAttr() schema.ListAttribute {
	return computedListOf("The DAG apply will run, one object per job instance (id, job, stage, host, needs, origin, because); "+
		"for `tofu show -json` and policy checks. Empty when the next apply has nothing to do.", plannedJobType)
}

func operationAttr() schema.ObjectAttribute {
	return schema.ObjectAttribute{
		MarkdownDescription: "The last operation: id, action, template, status (Completed, Failed, WaitingForApproval...), phases done of total, " +
			"jobs run and satisfied (already done on the hosts), start and end times, and the timeline.",
		Computed:       true,
		AttributeTypes: operationType.AttrTypes,
	}
}

func artifactsAttr() schema.ListAttribute {
	return computedListOf("Artifacts the operations produced. Public and internal ones carry their value; secret ones only a reference "+
		"(`host:path`), a SHA-256 fingerprint and an expiry. Read a secret live with the `cp_artifact` ephemeral resource.", artifactType)
}

func evidenceAttr() schema.ListAttribute {
	return computedListOf("Evidence recorded by the last operation: each check with what it observed and whether it held.", evidenceType)
}

func capabilitiesAttr() schema.ListAttribute {
	return computedListOf("Capabilities the resource provides, with attributes (e.g. `kubernetes.cluster` with `api_endpoint` and `ca_hash`).", capabilityType)
}
