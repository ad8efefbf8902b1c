package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Object types of the computed attributes the intent resources share.
var (
	// plannedInstanceType is one entry of planned_instances: an instance
	// keyed by its id, or in a resource's a job group's instances keyed
	// JOB[*] (planner.GroupedView).
	plannedInstanceType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"job": types.StringType, "stage": types.StringType, "host": types.StringType, "run_on": types.StringType,
		"needs": types.ListType{ElemType: types.StringType}, "origin": types.StringType, "because": types.StringType,
		"sub_operation": types.StringType, "gate": types.StringType, "idempotency_key": types.StringType, "status": types.StringType,
		"hosts": types.StringType, "count": types.Int64Type,
	}}
	operationType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"id": types.StringType, "action": types.StringType, "template": types.StringType, "status": types.StringType,
		"phases_done": types.Int64Type, "phases_total": types.Int64Type, "jobs_run": types.Int64Type, "jobs_satisfied": types.Int64Type,
		"started_at": types.StringType, "finished_at": types.StringType,
		"timeline": types.ListType{ElemType: types.StringType},
	}}
	artifactType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"id": types.StringType, "host": types.StringType, "sensitivity": types.StringType, "value": types.StringType, "ref": types.StringType,
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

// plannedEntryDesc describes an entry of planned_instances.
const plannedEntryDesc = "job, stage, host, run_on (where it executes when not on its host), needs (instance ids it waits for, " +
	"`JOB[*]` for every instance of a job), origin, because (why a job not from the template is here), sub_operation, " +
	"gate (the gate type of gate nodes), idempotency_key, status (`will run` or `satisfied` for jobs, `approved` or " +
	"`waiting` for gates), hosts (the hosts of the instances it stands for, as ranges such as `worker-1..7`) and count " +
	"(how many instances it stands for)."

// plannedInstancesDesc describes cp_plan's planned_instances.
const plannedInstancesDesc = "The per-instance DAG keyed by instance id (e.g. `join-workers[worker-3]`), each instance with its " +
	plannedEntryDesc + " For `tofu show -json` and policy checks: a change of plan diffs as the instances that changed."

func plannedInstancesAttr() schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: "The DAG by job group, for `tofu show -json` and policy checks: the instances " +
		"of a job that read the same once their own host is written `host` are one entry keyed `JOB[*]` (e.g. `join-workers[*]` " +
		"with hosts `worker-1..7`, count 7, needs `install-kubernetes-packages[host]` and an idempotency_key with `{host}`); " +
		"an instance that differs from its job's entry, and a job of one instance, has its own entry keyed by instance id " +
		"(e.g. `init-control-plane[master-1]`); with several operations, keys are `ACTION/KEY`. A change of plan diffs as the " +
		"jobs whose hosts changed and the instances that differ, in entries that grow with the jobs, not the hosts. Each entry: " +
		plannedEntryDesc + " The `cp_plan` data source has every instance under its own id. Empty when the next apply has " +
		"nothing to do. It holds no secret: it is marked sensitive only so that the diff of `tofu plan` shows it as one line " +
		"(`plan` and `plan_digest` summarize it there); `tofu show -json` of a saved plan shows it in full. An output that " +
		"passes it on needs `sensitive = true`, or `nonsensitive(...)`.",
		Computed: true, Sensitive: true, ElementType: plannedInstanceType}
}

// planAttrs are the plan views every intent resource shows: the compact
// text, the simple summary, the per-instance map and the DAG digest.
func planAttrs(attrs map[string]schema.Attribute, summary string) {
	attrs["plan_summary"] = rStr(summary)
	attrs["plan"] = rStr("Compact view of what apply will run, for the diff: hosts and counts, the DAG digest, changes against " +
		"the template, bindings and sub-operations, gates with their state (approved by whom with which option, or waiting " +
		"with the `approvals` entry to paste), then each stage's jobs once with their hosts as ranges and a count, why a job " +
		"not from the template is there, and the instances apply skips. Several operations follow one another. Once they " +
		"completed, the refresh keeps one line of what ran for each (`TITLE (TEMPLATE): completed, N job instances, G gates, " +
		"per-instance DAG sha256:…`), and `plan_summary` its header line with `: completed`, so the next change diffs against " +
		"that line; the executed DAG stays in `planned_instances`, `plan_digest` and `operation`.")
	attrs["planned_instances"] = plannedInstancesAttr()
	attrs["pause_after_stage"] = pauseAfterStageAttr()
	attrs["plan_digest"] = rStr("SHA-256 digest of the per-instance DAG (`planned_instances` without status), which `plan` " +
		"names in its header; with several operations, `ACTION=DIGEST` for each, comma-separated.")
}

// operationAttr is the last operation. Its timeline is marked sensitive
// only so that the diff of `tofu plan` shows it as one line: it holds no
// secret (the engine redacts secrets from every event).
func operationAttr() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for k, t := range operationType.AttrTypes {
		switch t := t.(type) {
		case types.ListType:
			attrs[k] = schema.ListAttribute{Computed: true, ElementType: t.ElemType}
		case basetypes.Int64Type:
			attrs[k] = schema.Int64Attribute{Computed: true}
		default:
			attrs[k] = schema.StringAttribute{Computed: true}
		}
	}
	attrs["timeline"] = schema.ListAttribute{Computed: true, ElementType: types.StringType, Sensitive: true,
		MarkdownDescription: "The operation's events, one line each. It holds no secret: it is marked sensitive only so that the diff " +
			"of `tofu plan` shows it as one line; read it with `nonsensitive(...)`."}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The last operation: id, action, template, status (Completed, Failed, WaitingForApproval...), phases done of total, " +
			"jobs run and satisfied (already done on the hosts), start and end times, and the timeline. A plan that runs an operation " +
			"knows its id, action, template, status (an apply that does not complete fails) and phases_total; the counts and times are " +
			"known after apply.",
		Computed:   true,
		Attributes: attrs,
	}
}

func artifactsAttr() schema.ListAttribute {
	return computedListOf("Artifacts the operations produced, each with the host of the job instance that produced it, in the order "+
		"they were first produced: an operation replaces the artifacts it produces again where they are and adds its new ones after "+
		"them, sorted by id then host, so a plan diffs them as what it produces. "+
		"Public and internal ones carry their value; secret ones only a reference (`host:path`), a SHA-256 fingerprint and an expiry. "+
		"Read a secret live with the `cp_artifact` ephemeral resource. A host that leaves (remove_node, a scenario's uninstall_node) "+
		"takes the node-scoped artifacts it produced out of the state at the refresh after its removal (the removal's plan and apply "+
		"leave them, so its diff does not list them); cluster-scoped ones stay. "+
		"A plan keeps known the artifacts apply leaves as they are; those its jobs produce are known after apply.", artifactType)
}

func evidenceAttr() schema.ListAttribute {
	a := computedListOf("Evidence of every job instance the resource's operations ran, the newest operation's for an instance that "+
		"several ran (a create's checks on the nodes a later add_node did not touch stay), and rechecked by refresh: each check with "+
		"what it observed, whether it held and when it was checked. A check of an earlier operation whose job instance the "+
		"resource's own plan no longer holds with the same idempotency key (after an upgrade, say) goes when the later operation "+
		"completes; a host that leaves (remove_node, a scenario's uninstall_node) takes its checks out of the state at the refresh after. The checks of one id on a job's instances that agree are one entry: instance `JOB[*]`, host "+
		"the hosts as ranges (e.g. `worker-1..7`) and the latest time one of them was checked; any other check, such as one that "+
		"failed on one host, is an entry of its own (instance id and host). The evidence thus grows with the jobs, not the hosts. "+
		"It holds no secret: it is marked sensitive only so that the diff of `tofu plan` shows it as one line, not the prior "+
		"operation's evidence in full; `tofu show -json` shows it, and an output that passes it on needs `nonsensitive(...)`.", evidenceType)
	a.Sensitive = true
	return a
}

func capabilitiesAttr() schema.ListAttribute {
	return computedListOf("Capabilities the resource provides, with attributes (e.g. `kubernetes.cluster` with `api_endpoint` and `ca_hash`).", capabilityType)
}
