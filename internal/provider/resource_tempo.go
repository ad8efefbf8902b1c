package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var (
	_ resource.ResourceWithConfigure      = &TempoResource{}
	_ resource.ResourceWithModifyPlan     = &TempoResource{}
	_ resource.ResourceWithValidateConfig = &TempoResource{}
	_ resource.ResourceWithImportState    = &TempoResource{}
)

// TempoResource is cp_tempo: the tempo pack's install on a cluster, with
// object storage bound or resolved by policy (seed scenario 3).
type TempoResource struct{ intentResource[tempoModel] }

// NewTempoResource is the constructor listed by the provider.
func NewTempoResource() resource.Resource {
	r := &TempoResource{}
	r.init(tempoHooks{r: r})
	return r
}

type tempoModel struct {
	ID             types.String          `tfsdk:"id"`
	Name           types.String          `tfsdk:"name"`
	Version        types.String          `tfsdk:"version"`
	Environment    types.String          `tfsdk:"environment"`
	ClusterHandle  types.String          `tfsdk:"cluster_handle"`
	ObjectStorage  *boundCandidateModel  `tfsdk:"object_storage"`
	Candidates     []boundCandidateModel `tfsdk:"candidates"`
	Parameters     map[string]string     `tfsdk:"parameters"`
	Customizations *customizationModel   `tfsdk:"customizations"`
	PlanPatches    []planPatchModel      `tfsdk:"plan_patches"`
	Approvals      []approvalModel       `tfsdk:"approvals"`
	Interventions  []interventionModel   `tfsdk:"interventions"`
	SSH            *resourceSSHModel     `tfsdk:"ssh"`
	Timeouts       timeouts.Value        `tfsdk:"timeouts"`
	IntentConstraints

	// Computed.
	IntentComputed
}

func (t *tempoModel) scenario() *scenarioModel {
	s := &scenarioModel{
		ID: t.ID, Pack: types.StringValue("tempo"), Version: t.Version, Name: t.Name, Environment: t.Environment, ClusterHandle: t.ClusterHandle,
		Parameters: t.Parameters, Candidates: t.Candidates, Customizations: t.Customizations, PlanPatches: t.PlanPatches,
		Approvals: t.Approvals, Interventions: t.Interventions, SSH: t.SSH, Timeouts: t.Timeouts,
		IntentComputed: t.IntentComputed, IntentConstraints: t.IntentConstraints,
	}
	if t.ObjectStorage != nil {
		os := *t.ObjectStorage
		if os.Capability.IsNull() || os.Capability.IsUnknown() || os.Capability.ValueString() == "" {
			os.Capability = types.StringValue("object_storage.s3")
		}
		s.Candidates = append([]boundCandidateModel{os}, s.Candidates...)
		if b, ok := os.Attributes["bucket"]; ok {
			if _, set := t.Parameters["bucket"]; !set {
				s.Parameters = clone(t.Parameters)
				if s.Parameters == nil {
					s.Parameters = map[string]string{}
				}
				s.Parameters["bucket"] = b
			}
		}
	}
	return s
}

func (t *tempoModel) from(s *scenarioModel) {
	t.ID, t.Environment, t.IntentComputed = s.ID, s.Environment, s.IntentComputed
}

// Metadata sets the type name.
func (r *TempoResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tempo"
}

// Schema of cp_tempo.
func (r *TempoResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{MarkdownDescription: "`tempo/<name>`.", Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{MarkdownDescription: "Name of the Tempo instance.", Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"version": rOptStr("Version constraint of the `tempo` pack."),
		"environment": schema.StringAttribute{MarkdownDescription: "Environment whose capability policy applies; defaults to the provider's.",
			Optional: true, Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"cluster_handle": schema.StringAttribute{MarkdownDescription: "Handle of the `cp_kubernetes_cluster` Tempo runs on; binds `kubernetes.cluster` and `secret.store`.",
			Required: true},
		"object_storage": schema.SingleNestedAttribute{
			MarkdownDescription: "An existing S3 provider to bind (e.g. from `cp_capability`). Without it, `object_storage.s3` is resolved under the provider policy: " +
				"created as a MinIO sub-operation where allowed, or stopped at an approval gate where the policy requires approval.",
			Optional: true,
			Attributes: tempoStorageAttrs(map[string]schema.Attribute{
				"name":       schema.StringAttribute{MarkdownDescription: "Provider name.", Required: true},
				"provider":   schema.StringAttribute{MarkdownDescription: "Provider kind, e.g. `aws_s3`.", Required: true},
				"capability": rOptStr("Capability key; defaults to `object_storage.s3`."),
				"attributes": rOptMap("Attributes the requirement's constraints are matched against (region, encryption, capacity_gb...), and where the storage is: " +
					"`endpoint`, the S3 API URL the host's S3 client and Tempo use (the `object_storage.s3.endpoint` artifact), and `bucket`, the bucket " +
					"Tempo keeps its traces in (sets the `bucket` parameter; created when absent). A bound provider needs its keys: " +
					"`access_key_env` and `secret_key_env`, or `access_key_wo` and `secret_key_wo`."),
			}),
		},
		"candidates":     resCandidatesAttr(),
		"parameters":     rOptMap("Parameters of the `tempo` pack, e.g. `retention`."),
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
		MarkdownDescription: "Installs Grafana Tempo on a cluster (seed scenario 3). Tempo requires `kubernetes.cluster`, `object_storage.s3` and `secret.store`; " +
			"it provides `observability.tracing` with its endpoints. The plan shows how each requirement was resolved — bound, created as a " +
			"sub-operation (MinIO), or waiting at a gate with its options and roles — and apply proceeds once the gate is approved in `approvals`.",
		Attributes: attrs,
	}
}

// ImportState takes the address of one of the cluster's masters,
// optionally with Tempo's name and SSH port: 10.0.0.11,
// traces@10.0.0.11:2222. The state is the record cp keeps on the
// cluster's masters after every apply.
func (r *TempoResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importIntent(ctx, &r.intentBase, tempoHooks{r: r}, "tempo", "<name>", func(id string) string { return "tempo/" + strings.TrimPrefix(id, "tempo/") }, req, resp)
}

// tempoHooks are cp_tempo's part of the intent-resource skeleton: a
// cp_scenario of the tempo pack whose create action runs on apply and
// whose destroy action runs on delete.
type tempoHooks struct {
	commonHooks[tempoModel, *tempoModel]
	r *TempoResource
}

// action is the tempo pack's action of a kind (create, destroy).
func (h tempoHooks) action(m *tempoModel, kind string) string {
	if h.r.data != nil {
		if p, err := h.r.data.Catalog.Get("tempo", strOr(m.Version, "")); err == nil {
			return p.ActionOfKind(kind)
		}
	}
	return ""
}

func (tempoHooks) validate(ctx context.Context, m *tempoModel, data *providerData, diags *diag.Diagnostics) {
	validateTempo(ctx, m, data, diags)
}

func (tempoHooks) prepare(m *tempoModel, data *providerData) {
	if m.Environment.IsUnknown() || m.Environment.IsNull() {
		m.Environment = types.StringValue(data.Environment)
	}
	m.ID = types.StringValue("tempo/" + m.Name.ValueString())
}

func (tempoHooks) intentAttrs() []string { return scenarioOwnAttrs }

func (tempoHooks) readConfig(ctx context.Context, m *tempoModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	m.readWriteOnly(ctx, cfg, diags)
}

func (tempoHooks) clearWriteOnly(m *tempoModel) { m.clearWriteOnly() }

func (tempoHooks) checkPlanned(m *tempoModel, ops []intentOp, diags *diag.Diagnostics) {
	s := m.scenario()
	for i := range ops {
		checkCredentialsBound(&ops[i], s.Candidates, m.bindingPath(), diags)
	}
}

// changes: the install, again when the intent changed or the last
// operation did not complete; a change of the cluster handle alone runs
// it again only when it has something new to run (sameOnHandle).
func (h tempoHooks) changes(plan, prior *tempoModel, same bool) []intent.Change {
	completed := prior != nil && operationCompleted(prior.Operation)
	if prior != nil && same {
		var b *intentBase
		if h.r != nil {
			b = &h.r.intentBase
		}
		same = sameOnHandle(b, h, plan, prior, plan.ClusterHandle, prior.ClusterHandle, completed)
	}
	return singleAction(h.action(plan, protocol.KindCreate), prior != nil, completed, same, "tempo")
}

func (h tempoHooks) spec(m, _ *tempoModel, data *providerData, diags *diag.Diagnostics) intentPlan {
	ip := scenarioPlanOf(data, m.scenario(), diags)
	ip.paths = tempoPaths(m)
	return ip
}

func (h tempoHooks) recorded(_ context.Context, m, _ *tempoModel, results []opResult, _ *diag.Diagnostics) {
	s := m.scenario()
	if s.Environment.IsNull() || s.Environment.IsUnknown() {
		s.Environment = types.StringValue(h.r.data.Environment)
	}
	s.computed().record(results, nil, scenarioCaps(s, s.Environment.ValueString()), scenarioHandle("tempo", m.Name.ValueString()))
	m.from(s)
}

// record: kept on the cluster's masters.
func (tempoHooks) record(m *tempoModel, hosts []operation.HostAccess) (string, string, []operation.HostAccess) {
	return "tempo", "tempo/" + m.Name.ValueString(), masters(hosts)
}

func (h tempoHooks) destroy(m *tempoModel, _ *diag.Diagnostics) *intent.Change {
	action := h.action(m, protocol.KindDestroy)
	if action == "" {
		return nil
	}
	return &intent.Change{Action: action, IDParts: []string{"tempo"}}
}

func (m *tempoModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (m *tempoModel) decisionsOf() ([]approvalModel, []interventionModel) {
	return m.Approvals, m.Interventions
}
