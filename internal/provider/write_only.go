package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Write-only object-storage credentials on a binding: cp_tempo's
// object_storage and the candidates of cp_tempo and cp_scenario. The keys
// are write-only (never in plan or state); credentials_wo_version is the
// plain argument whose change makes the resource run again with them.

const (
	s3Capability     = "object_storage.s3"
	s3EndpointArt    = "object_storage.s3.endpoint"
	s3CredentialsArt = "object_storage.s3.credentials"
)

// s3Key is what the packs' scripts accept as an access or secret key
// (create-bucket-and-credentials checks the same).
var s3Key = regexp.MustCompile(`^[A-Za-z0-9+/=._~-]{3,128}$`)

// boundCandidateModel is a capability provider an intent resource may
// bind, with the credentials that come with an object_storage.s3 one.
type boundCandidateModel struct {
	Name                 types.String      `tfsdk:"name"`
	Provider             types.String      `tfsdk:"provider"`
	Capability           types.String      `tfsdk:"capability"`
	Attributes           map[string]string `tfsdk:"attributes"`
	AccessKeyWO          types.String      `tfsdk:"access_key_wo"`
	SecretKeyWO          types.String      `tfsdk:"secret_key_wo"`
	CredentialsWOVersion types.Int64       `tfsdk:"credentials_wo_version"`
}

// storageCredentialAttrs adds the credential arguments to a binding's
// attributes.
func storageCredentialAttrs(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	attrs["access_key_wo"] = schema.StringAttribute{
		MarkdownDescription: "Access key of an `object_storage.s3` provider, handed to the jobs as the `object_storage.s3.credentials` artifact " +
			"(`AWS_ACCESS_KEY_ID=` line) together with `secret_key_wo`, and `attributes.endpoint` as `object_storage.s3.endpoint`. " +
			"Write-only (Terraform ≥ 1.11, OpenTofu ≥ 1.11): never stored in plan or state; may be an ephemeral value. " +
			"3 to 128 letters, digits or `+ / = . _ ~ -`; a value outside that is refused at plan without being shown.",
		Optional: true, Sensitive: true, WriteOnly: true,
	}
	attrs["secret_key_wo"] = schema.StringAttribute{
		MarkdownDescription: "Secret key going with `access_key_wo` (`AWS_SECRET_ACCESS_KEY=` line of the credentials artifact). Write-only, same form.",
		Optional:            true, Sensitive: true, WriteOnly: true,
	}
	attrs["credentials_wo_version"] = schema.Int64Attribute{
		MarkdownDescription: "Version of the write-only keys. Terraform cannot see a change of a write-only value, so change this number " +
			"when the keys change: the plan then shows the resource's action again and apply runs it with the new keys. " +
			"Jobs whose evidence still holds are skipped; a job that stores the keys reruns when its evidence compares them. " +
			"Only with `access_key_wo` and `secret_key_wo`.",
		Optional: true,
	}
	return attrs
}

func (c boundCandidateModel) candidate() candidateModel {
	return candidateModel{Name: c.Name, Provider: c.Provider, Capability: c.Capability, Attributes: c.Attributes}
}

func candidateModels(in []boundCandidateModel) []candidateModel {
	var out []candidateModel
	for _, c := range in {
		out = append(out, c.candidate())
	}
	return out
}

func (c boundCandidateModel) hasCredentials() bool {
	return known(c.AccessKeyWO) || known(c.SecretKeyWO)
}

// checkStorageCredentials checks the credential arguments of the binding
// at p: both keys or none, on an object_storage.s3 binding with an
// endpoint, in the form the scripts accept. Values are never quoted.
func checkStorageCredentials(c boundCandidateModel, p path.Path, diags *diag.Diagnostics) {
	if c.AccessKeyWO.IsUnknown() || c.SecretKeyWO.IsUnknown() {
		return // an ephemeral value known only later is checked then
	}
	if !c.hasCredentials() {
		if !c.CredentialsWOVersion.IsNull() && !c.CredentialsWOVersion.IsUnknown() {
			addAttrError(diags, p.AtName("credentials_wo_version"), "Version without credentials",
				"credentials_wo_version is set but access_key_wo and secret_key_wo are not; set both keys, or remove the version.")
		}
		return
	}
	for _, k := range []struct {
		name, other string
		v           types.String
	}{{"access_key_wo", "secret_key_wo", c.AccessKeyWO}, {"secret_key_wo", "access_key_wo", c.SecretKeyWO}} {
		switch {
		case !known(k.v):
			addAttrError(diags, p.AtName(k.name), "Incomplete credentials",
				fmt.Sprintf("%s is set but %s is not; an S3 provider takes both keys.", k.other, k.name))
		case !s3Key.MatchString(k.v.ValueString()):
			addAttrError(diags, p.AtName(k.name), "Invalid S3 key",
				fmt.Sprintf("the value (not shown, %d characters) is not an S3 key: use 3 to 128 letters, digits or + / = . _ ~ -.", len(k.v.ValueString())))
		}
	}
	if capKey := strOr(c.Capability, s3Capability); capKey != s3Capability {
		addAttrError(diags, p.AtName("access_key_wo"), "Credentials on a binding that is no S3 provider",
			fmt.Sprintf("credentials come with %s only, and this binding provides %s; move them to the object storage binding.", s3Capability, paramtype.Quote(capKey)))
		return
	}
	ep, ok := c.Attributes["endpoint"]
	if !ok {
		addAttrError(diags, p.AtName("attributes"), "Missing S3 endpoint",
			"access_key_wo and secret_key_wo are set but attributes has no endpoint; add endpoint = \"https://s3.example.com\", the S3 API the keys are for.")
		return
	}
	if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.URL}, ep); err != nil {
		addAttrError(diags, p.AtName("attributes").AtMapKey("endpoint"), "Invalid S3 endpoint",
			fmt.Sprintf("%v; give the S3 API's http(s) URL, e.g. \"https://s3.eu-west-1.amazonaws.com\".", err))
	}
}

// checkOneCredentialed refuses credentials on more than one binding: one
// operation has one object storage, so the others' would have no effect.
func checkOneCredentialed(cands []boundCandidateModel, pathOf func(int) path.Path, diags *diag.Diagnostics) {
	first := -1
	for i, c := range cands {
		if !c.hasCredentials() {
			continue
		}
		if first >= 0 {
			addAttrError(diags, pathOf(i).AtName("access_key_wo"), "Credentials on two bindings",
				fmt.Sprintf("%s carries credentials already; an operation binds one object storage, so give them on that binding only.", pathOf(first)))
			continue
		}
		first = i
	}
}

// storageInputs are the artifacts the credentialed binding brings: the
// endpoint (internal) and the credentials (secret). state lists them for
// the planner without the secret's value; secrets carry it to the engine,
// which registers it with the redactor and writes it only into the job's
// private input directory.
func storageInputs(cands []boundCandidateModel) (state []protocol.Artifact, secrets []engine.InputArtifact) {
	for _, c := range cands {
		if !known(c.AccessKeyWO) || !known(c.SecretKeyWO) {
			continue
		}
		creds := "AWS_ACCESS_KEY_ID=" + c.AccessKeyWO.ValueString() + "\nAWS_SECRET_ACCESS_KEY=" + c.SecretKeyWO.ValueString() + "\n"
		ep := protocol.Artifact{ID: s3EndpointArt, Type: "url", Sensitivity: protocol.SensitivityInternal, Value: c.Attributes["endpoint"]}
		cred := protocol.Artifact{ID: s3CredentialsArt, Type: "credentials", Sensitivity: protocol.SensitivitySecret}
		state = append(state, ep, cred)
		secrets = append(secrets, engine.InputArtifact{Artifact: ep}, engine.InputArtifact{Artifact: cred, SecretValue: creds})
		return state, secrets
	}
	return nil, nil
}

// addStorageCredentials gives the plan the credentialed binding's
// artifacts.
func (ip *intentPlan) addStorageCredentials(cands []boundCandidateModel) {
	state, secrets := storageInputs(cands)
	ip.spec.State.Artifacts = append(ip.spec.State.Artifacts, state...)
	ip.inputs.Secrets = append(ip.inputs.Secrets, secrets...)
}

// checkCredentialsBound refuses credentials on a binding the plan did not
// bind (another candidate was chosen, or a provider is created): they
// would be handed to jobs talking to another storage.
func checkCredentialsBound(op *intentOp, cands []boundCandidateModel, pathOf func(int) path.Path, diags *diag.Diagnostics) {
	if op == nil || op.Composed == nil {
		return
	}
	for i, c := range cands {
		if !c.hasCredentials() {
			continue
		}
		for _, b := range op.Composed.Plan.Bindings {
			if b.Requirement.Key != s3Capability || b.Decision == "gate" || b.Provider == strOr(c.Name, "") {
				continue
			}
			addAttrError(diags, pathOf(i).AtName("access_key_wo"), "Credentials on a binding that is not used",
				fmt.Sprintf("the credentials are given on %s, but the plan resolves %s by %s %s; give them on the binding the plan uses, or pass only that binding.",
					paramtype.Quote(strOr(c.Name, "")), s3Capability, b.Decision, paramtype.Quote(b.Provider)))
		}
	}
}

// readWriteOnly copies the write-only keys of the bindings at p in the
// configuration into dst (whose values came from the plan or state, where
// write-only values are always null). The framework nulls them again in
// every plan and state the provider returns.
func readWriteOnly(ctx context.Context, cfg tfsdk.Config, p path.Path, dst []boundCandidateModel, diags *diag.Diagnostics) {
	for i := range dst {
		for _, f := range []struct {
			name string
			v    *types.String
		}{{"access_key_wo", &dst[i].AccessKeyWO}, {"secret_key_wo", &dst[i].SecretKeyWO}} {
			diags.Append(cfg.GetAttribute(ctx, p.AtListIndex(i).AtName(f.name), f.v)...)
		}
	}
}

// readWriteOnlyOne is readWriteOnly for a single nested binding.
func readWriteOnlyOne(ctx context.Context, cfg tfsdk.Config, p path.Path, dst *boundCandidateModel, diags *diag.Diagnostics) {
	if dst == nil {
		return
	}
	diags.Append(cfg.GetAttribute(ctx, p.AtName("access_key_wo"), &dst.AccessKeyWO)...)
	diags.Append(cfg.GetAttribute(ctx, p.AtName("secret_key_wo"), &dst.SecretKeyWO)...)
}

// readWriteOnly fills the tempo model's bindings with their write-only
// keys from the configuration.
func (t *tempoModel) readWriteOnly(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	readWriteOnlyOne(ctx, cfg, path.Root("object_storage"), t.ObjectStorage, diags)
	readWriteOnly(ctx, cfg, path.Root("candidates"), t.Candidates, diags)
}

// bindingPath maps an index of the scenario's candidates (object_storage
// first, when set) back to where cp_tempo's configuration wrote it.
func (t *tempoModel) bindingPath() func(int) path.Path {
	return func(i int) path.Path {
		if t.ObjectStorage != nil {
			if i == 0 {
				return path.Root("object_storage")
			}
			i--
		}
		return path.Root("candidates").AtListIndex(i)
	}
}

// checkCredentials checks cp_tempo's credential arguments.
func (t *tempoModel) checkCredentials(diags *diag.Diagnostics) {
	all := t.scenario().Candidates
	for i, c := range all {
		checkStorageCredentials(c, t.bindingPath()(i), diags)
	}
	checkOneCredentialed(all, t.bindingPath(), diags)
}

// readWriteOnly fills cp_scenario's candidates with their write-only keys
// from the configuration.
func (m *scenarioModel) readWriteOnly(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	readWriteOnly(ctx, cfg, path.Root("candidates"), m.Candidates, diags)
}

func scenarioBindingPath(i int) path.Path { return path.Root("candidates").AtListIndex(i) }

// checkCredentials checks cp_scenario's credential arguments.
func (m *scenarioModel) checkCredentials(diags *diag.Diagnostics) {
	for i, c := range m.Candidates {
		checkStorageCredentials(c, scenarioBindingPath(i), diags)
	}
	checkOneCredentialed(m.Candidates, scenarioBindingPath, diags)
}

// clearWriteOnly nulls the write-only keys again before a plan is
// returned: the framework nulls them before ModifyPlan runs, not after.
func clearWriteOnly(cands []boundCandidateModel) {
	for i := range cands {
		cands[i].AccessKeyWO, cands[i].SecretKeyWO = types.StringNull(), types.StringNull()
	}
}

func (t *tempoModel) clearWriteOnly() {
	if t.ObjectStorage != nil {
		t.ObjectStorage.AccessKeyWO, t.ObjectStorage.SecretKeyWO = types.StringNull(), types.StringNull()
	}
	clearWriteOnly(t.Candidates)
}

func (m *scenarioModel) clearWriteOnly() { clearWriteOnly(m.Candidates) }

// tempoStorageAttrs are storageCredentialAttrs for cp_tempo's
// object_storage, whose version note says what a rotation reaches.
func tempoStorageAttrs(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	attrs = storageCredentialAttrs(attrs)
	v := attrs["credentials_wo_version"].(schema.Int64Attribute)
	v.MarkdownDescription += " For Tempo, `create-bucket-and-credentials` is skipped while its evidence (the bucket Job succeeded, " +
		"the Secret `tempo-s3` exists) holds, so with a storage that issues no user of its own the Secret keeps the keys it was created with; " +
		"delete `tempo-s3` in Tempo's namespace before bumping the version to have the new keys written."
	attrs["credentials_wo_version"] = v
	return attrs
}
