package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

func cStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
}

func cBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{MarkdownDescription: desc, Computed: true}
}

func cInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{MarkdownDescription: desc, Computed: true}
}

func cList(desc string) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: stringType}
}

func cMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: desc, Computed: true, ElementType: stringType}
}

func cNested(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: desc,
		Computed:            true,
		NestedObject:        schema.NestedAttributeObject{Attributes: attrs},
	}
}

func capabilityRefAttrs() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"key":   cStr("Capability key, e.g. `container.runtime.containerd`."),
		"scope": cStr("`cluster` (one for the whole target) or `node` (matched per host)."),
	}
}

// Schema describes the pack contract as computed attributes.
func (d *ScenarioPackDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Exposes a scenario pack's contract — resource types, actions, required and provided capabilities, " +
			"plan templates with their stages, and every job of its library with requires, provides, artifacts, evidence and controls — " +
			"so HCL modules can compose packs. Packs are the embedded ones plus those in the provider's `pack_dirs`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Pack id, e.g. `kubernetes`, `tempo`, `minio`, `postgresql`.",
				Required:            true,
			},
			"version": schema.StringAttribute{
				MarkdownDescription: "Optional version constraint, e.g. `1.0.0`, `>= 1.0.0`, `~> 1.0`. The newest matching version is used; `ref` says which.",
				Optional:            true,
			},
			"ref":            cStr("The pack chosen, as `id@version`."),
			"title":          cStr("Human title."),
			"description":    cStr("What the pack does."),
			"source":         cStr("`builtin/<id>` for embedded packs, or the directory a user pack was loaded from."),
			"resource_types": cList("Resource types the pack manages, e.g. `tempo.instance`."),
			"actions":        cList("Actions the pack supports, e.g. `install`, `upgrade`, `uninstall`."),
			"risk_level":     cStr("Default risk level: `low`, `medium` or `high`."),
			"advanced_mode":  cBool("Whether intents of this pack take `customizations` and `plan_patches` (its `editable.advanced_mode`; `true` when the pack leaves it out)."),
			"requires": cNested("Capabilities the pack needs from elsewhere.", map[string]schema.Attribute{
				"capability":  cStr("Capability key."),
				"scope":       cStr("Capability scope."),
				"constraints": cMap("Constraints a provider must meet."),
				"optional":    cBool("Whether planning proceeds without it."),
			}),
			"provides": cNested("Capabilities the pack provides once an action completes.", map[string]schema.Attribute{
				"capability": cStr("Capability key."),
				"scope":      cStr("Capability scope."),
			}),
			"parameters": cNested("Pack parameters, sorted by name.", map[string]schema.Attribute{
				"name":        cStr("Parameter name."),
				"type":        cStr("`string`, `number`, `bool` or `list`."),
				"default":     cStr("Default value, empty when none."),
				"required":    cBool("Whether an intent must set it."),
				"description": cStr("What it controls."),
				"enum":        cList("Allowed values, when restricted."),
			}),
			"templates": cNested("Plan templates, one per action.", map[string]schema.Attribute{
				"id":         cStr("Template id, e.g. `kubernetes.create`."),
				"ref":        cStr("Template reference with version, e.g. `kubernetes.create@1.0.0`."),
				"action":     cStr("Action the template implements."),
				"title":      cStr("Human title."),
				"entrypoint": cStr("First job."),
				"stages": cNested("Stages in order.", map[string]schema.Attribute{
					"id":       cStr("Stage id."),
					"title":    cStr("Stage title."),
					"jobs":     cList("Job ids of the stage."),
					"requires": cList("What the stage requires (documentation of the stage contract)."),
					"produces": cList("What the stage produces."),
				}),
				"gates": cNested("Gates of the template.", map[string]schema.Attribute{
					"id":             cStr("Gate id."),
					"type":           cStr("approval, provider_selection, destructive, policy_exception, missing_input or cost_confirmation."),
					"reason":         cStr("Why the gate stops the plan."),
					"options":        cList("Options a decision may choose."),
					"required_roles": cList("Roles allowed to decide."),
				}),
			}),
			"jobs": cNested("The pack's job library, sorted by id: template jobs and jobs the planner may insert.", jobAttrs()),
		},
	}
}

func jobAttrs() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":                     cStr("Job id."),
		"title":                  cStr("Human title."),
		"description":            cStr("What the job does."),
		"type":                   cStr("`automation` or `verification`."),
		"expand":                 cStr("How the job expands over hosts: once, first_master, other_masters, each_master, each_worker, each_node, target_nodes."),
		"parameters":             cList("Parameters the job reads."),
		"parameter_descriptions": cMap("What each parameter means to the job, by name, for the parameters whose job declaration describes them (the pack's own description is under `parameters`)."),
		"requires_capabilities":  cNested("Capabilities the job requires.", capabilityRefAttrs()),
		"requires_artifacts":     cList("Artifacts the job requires."),
		"provides_capabilities":  cNested("Capabilities the job provides.", capabilityRefAttrs()),
		"artifacts": cNested("Artifacts the job produces.", map[string]schema.Attribute{
			"id":          cStr("Artifact id."),
			"type":        cStr("Artifact type, e.g. `kubeconfig`, `kubeadm.token`, `url`: the engine checks every value the job produces against it and fails the job on a mismatch. Empty when the artifact is untyped."),
			"description": cStr("What the artifact holds."),
			"sensitivity": cStr("`public`, `internal` or `secret`."),
			"scope":       cStr("Artifact scope."),
			"ttl":         cStr("How long the artifact stays valid, when it expires."),
		}),
		"evidence": cNested("Checks that prove the job's outputs.", map[string]schema.Attribute{
			"id":                 cStr("Evidence id."),
			"source":             cStr("What is checked: systemd, command, kubernetes, file."),
			"command":            cStr("Command run on the host."),
			"expected":           cStr("Expected stdout (per `match`)."),
			"match":              cStr("equals, contains, regex or json."),
			"expected_exit_code": cInt("Expected exit code."),
		}),
		"max_attempts":                cInt("Attempts for retryable failures."),
		"idempotency_key":             cStr("Idempotency key template, e.g. `install-containerd:{node_id}:{version}`."),
		"timeout":                     cStr("Per-instance timeout."),
		"manual_intervention_allowed": cBool("Whether a person may fix a failure by hand and record an intervention."),
		"become":                      cBool("Whether the script runs through sudo."),
		"script":                      cStr("Script path inside the pack."),
		"after":                       cList("Explicit ordering-only edges."),
	}
}
