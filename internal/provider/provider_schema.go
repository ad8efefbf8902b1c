package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
)

func providerSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The `cp` provider turns an intent (create a Kubernetes cluster, add a node, install Tempo) " +
			"into a resolved capability graph and a DAG plan shown in `plan`, and runs that plan against Linux hosts over SSH on `apply`. " +
			"Provider settings hold what every intent shares: the environment, the capability policy, where scenario packs live, SSH defaults, " +
			"parallelism and who is acting.",
		Attributes: map[string]schema.Attribute{
			"environment": schema.StringAttribute{
				MarkdownDescription: "Environment the intents run in, e.g. `dev`, `stage` or `prod`. It selects the capability policy rules. " +
					"Lower-case letters, digits and `-`. Defaults to `dev`.",
				Optional: true,
			},
			"pack_dirs": schema.ListAttribute{
				MarkdownDescription: "Directories with user scenario packs, added to the embedded packs. Each directory is a pack " +
					"(it holds `pack.yaml`) or holds pack directories. Every problem in a pack is reported with file, line and field.",
				ElementType: stringType,
				Optional:    true,
			},
			"parallelism": schema.Int64Attribute{
				MarkdownDescription: "How many job instances run at once across all hosts. Defaults to `10`.",
				Optional:            true,
			},
			"per_host_parallelism": schema.Int64Attribute{
				MarkdownDescription: "How many job instances run at once on one host. Defaults to `4`.",
				Optional:            true,
			},
			"refresh_evidence": schema.BoolAttribute{
				MarkdownDescription: "Whether refresh checks the recorded evidence of every intent resource's completed jobs again on its hosts (one SSH command per host), so that `plan` shows the jobs whose evidence no longer holds, and those that follow them, as a `repair`, and the others as `satisfied`. The plan of a create also reads, on the host that keeps it (the first master, else the first host by name), the record of an earlier create of the same intent that failed, and warns that apply continues that operation rather than starting afresh. Set `false` for a reviewer without access to the hosts: refresh and plan then run no SSH command, no plan is a repair and none says it continues a failed create. Defaults to `true`.",
				Optional:            true,
			},
			"actor": schema.StringAttribute{
				MarkdownDescription: "Who is acting, recorded in operation timelines and checked against gate roles. Defaults to `terraform`.",
				Optional:            true,
			},
			"actor_roles": schema.ListAttribute{
				MarkdownDescription: "Roles of the actor, e.g. `[\"sre\"]`. An approval in HCL passes a gate only when the actor holds one of the gate's required roles.",
				ElementType:         stringType,
				Optional:            true,
			},
			"ssh":               sshSchema(),
			"capability_policy": policySchema(),
			"policy_rules":      policyRulesSchema(),
			"organization": schema.StringAttribute{
				MarkdownDescription: "Organization the intents belong to, e.g. `acme`; `policy_rules` match on it.",
				Optional:            true,
			},
			"diagnosis":         diagnosisSchema(),
			"destroy_approvals": destroyApprovalsSchema(),
		},
	}
}

// providerSecretNote says how the provider's `_wo` arguments are kept.
// Provider schemas cannot declare write-only attributes (the framework
// allows them only on managed resources); provider configuration is never
// written to state or to a saved plan in any case, so these are sensitive
// arguments that are never persisted, and a changed value takes effect on
// the next run without a version argument.
const providerSecretNote = "Like every provider argument it is never written to state or to a saved plan; Terraform and OpenTofu do not let " +
	"provider arguments be declared write-only, so it is a sensitive argument: hidden in output, able to take an ephemeral value, " +
	"and read anew on every run, so it has no `_version` argument."

func sshSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "SSH defaults for every host; hosts may override them.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"user": schema.StringAttribute{
				MarkdownDescription: "Login user. Defaults to `root`.",
				Optional:            true,
			},
			"port": schema.Int64Attribute{
				MarkdownDescription: "SSH port. Defaults to `22`.",
				Optional:            true,
			},
			"private_key_file": schema.StringAttribute{
				MarkdownDescription: "Path of the private key used to log in. Conflicts with `private_key_wo`.",
				Optional:            true,
			},
			"private_key_wo": schema.StringAttribute{
				MarkdownDescription: "The private key itself (PEM or OpenSSH format, unencrypted), e.g. `file(\"~/.ssh/id_ed25519\")` or an ephemeral value. " +
					"Conflicts with `private_key_file`; refused at plan, without being shown, when it is not a key. " + providerSecretNote,
				Optional:  true,
				Sensitive: true,
			},
			"known_hosts_file": schema.StringAttribute{
				MarkdownDescription: "Path of the known_hosts file host keys are verified against. Defaults to `~/.ssh/known_hosts`.",
				Optional:            true,
			},
			"host_key_checking": schema.StringAttribute{
				MarkdownDescription: "`strict` (default) refuses unknown and changed host keys; `accept-new` records unknown keys in " +
					"`known_hosts_file` and still refuses changed ones.",
				Optional: true,
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "Dial timeout, e.g. `30s`. Defaults to `30s`.",
				Optional:            true,
			},
			"become_password_env": schema.StringAttribute{
				MarkdownDescription: "Name of an environment variable holding the sudo password, for hosts where sudo asks for one. " +
					"The password itself never goes into configuration or state. Conflicts with `become_password_wo`.",
				Optional: true,
			},
			"become_password_wo": schema.StringAttribute{
				MarkdownDescription: "The sudo password itself, for hosts where sudo asks for one; may be an ephemeral value. " +
					"Conflicts with `become_password_env`; an empty password or one with a line break is refused at plan. " + providerSecretNote,
				Optional:  true,
				Sensitive: true,
			},
			"bastion": schema.SingleNestedAttribute{
				MarkdownDescription: "Jump host every connection goes through.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"address": schema.StringAttribute{
						MarkdownDescription: "Address of the bastion.",
						Required:            true,
					},
					"port": schema.Int64Attribute{
						MarkdownDescription: "SSH port of the bastion. Defaults to `22`.",
						Optional:            true,
					},
					"user": schema.StringAttribute{
						MarkdownDescription: "Login user on the bastion. Defaults to the host user.",
						Optional:            true,
					},
					"private_key_file": schema.StringAttribute{
						MarkdownDescription: "Private key for the bastion. Defaults to the host key (`private_key_file` or `private_key_wo`). Conflicts with `private_key_wo`.",
						Optional:            true,
					},
					"private_key_wo": schema.StringAttribute{
						MarkdownDescription: "The bastion's private key itself (PEM or OpenSSH format, unencrypted). Conflicts with `private_key_file`. " + providerSecretNote,
						Optional:            true,
						Sensitive:           true,
					},
				},
			},
		},
	}
}

func policySchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Capability policy keyed by capability (e.g. `object_storage.s3`): per environment, which providers may " +
			"satisfy a requirement, which is the default, whether encryption and approval are required.",
		Optional: true,
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"environments": schema.MapNestedAttribute{
					MarkdownDescription: "Rules keyed by environment name.",
					Required:            true,
					NestedObject: schema.NestedAttributeObject{
						Attributes: map[string]schema.Attribute{
							"allowed_providers": schema.ListAttribute{
								MarkdownDescription: "Provider kinds allowed to satisfy the capability, e.g. `[\"shared_minio\", \"dedicated_minio\"]`.",
								ElementType:         stringType,
								Required:            true,
							},
							"default_provider": schema.StringAttribute{
								MarkdownDescription: "Provider chosen when several match; must be one of `allowed_providers`.",
								Optional:            true,
							},
							"require_encryption": schema.BoolAttribute{
								MarkdownDescription: "Only providers with encryption enabled match.",
								Optional:            true,
							},
							"require_approval": schema.BoolAttribute{
								MarkdownDescription: "Binding or creating a provider stops at an approval gate.",
								Optional:            true,
							},
							"approval_roles": schema.ListAttribute{
								MarkdownDescription: "Roles that may approve; defaults to `[\"sre\", \"platform_admin\"]` when approval is required.",
								ElementType:         stringType,
								Optional:            true,
							},
							"exception_roles": schema.ListAttribute{
								MarkdownDescription: "Roles that may grant a policy exception: when no allowed provider satisfies a requirement but one outside `allowed_providers` would, " +
									"the plan stops at a `policy_exception` gate offering it, and only an approval by an actor holding one of these roles (provider `actor_roles`) binds or creates it. " +
									"Unset, no exception is possible and such a requirement fails at plan. These roles count as known roles for `actor_roles`.",
								ElementType: stringType,
								Optional:    true,
							},
							"max_monthly_cost_without_confirmation": schema.Float64Attribute{
								MarkdownDescription: "Monthly cost in USD up to which a provider is created without asking. Creating one whose pack declares a higher monthly cost " +
									"stops at a `cost_confirmation` gate until it is approved. Unset, there is no threshold; at least 0.",
								Optional: true,
							},
						},
					},
				},
			},
		},
	}
}

func diagnosisSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "External analyzers asked before the built-in rules when a job fails. Their answers are validated like any plan patch; " +
			"an unreachable or invalid analyzer falls back to the built-in rules with a warning. Secrets are redacted from what they receive.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"command": schema.SingleNestedAttribute{
				MarkdownDescription: "An executable that reads the failure as JSON on stdin and writes `{\"diagnosis\": {...}, \"plan_patch\": {...}}` on stdout.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"path":    schema.StringAttribute{MarkdownDescription: "Path of the executable.", Required: true},
					"args":    schema.ListAttribute{MarkdownDescription: "Arguments.", Optional: true, ElementType: stringType},
					"timeout": schema.StringAttribute{MarkdownDescription: "How long to wait, e.g. `30s` (default).", Optional: true},
				},
			},
			"http": schema.SingleNestedAttribute{
				MarkdownDescription: "A server speaking the OpenAI-compatible chat-completions API (a local model server or a hosted one), asked for a JSON answer against the plan patch schema.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"endpoint":    schema.StringAttribute{MarkdownDescription: "Base URL, e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` is appended.", Required: true},
					"model":       schema.StringAttribute{MarkdownDescription: "Model name.", Required: true},
					"api_key_env": schema.StringAttribute{MarkdownDescription: "Name of the environment variable holding the API key, if the server needs one.", Optional: true},
					"timeout":     schema.StringAttribute{MarkdownDescription: "How long to wait, e.g. `60s` (default).", Optional: true},
				},
			},
		},
	}
}
