package provider

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Object-storage credentials on a binding: cp_tempo's object_storage and
// the candidates of cp_tempo and cp_scenario. The keys are given by
// reference (access_key_env and secret_key_env name environment variables
// of the process running OpenTofu/Terraform, read at plan and apply) or
// write-only (never in plan or state; credentials_wo_version is the plain
// argument whose change makes the resource run again with them).

const (
	s3Capability     = intent.S3Capability
	s3EndpointArt    = intent.S3EndpointArt
	s3BucketArt      = intent.S3BucketArt
	s3CredentialsArt = intent.S3CredentialsArt
)

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
	AccessKeyEnv         types.String      `tfsdk:"access_key_env"`
	SecretKeyEnv         types.String      `tfsdk:"secret_key_env"`
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
	attrs["access_key_env"] = schema.StringAttribute{
		MarkdownDescription: "Name of the environment variable, in the process running OpenTofu/Terraform, that holds the access key of an " +
			"`object_storage.s3` provider; read at plan (checked: set, and 3 to 128 letters, digits or `+ / = . _ ~ -`, never shown) and again " +
			"at apply, and handed to the jobs like `access_key_wo`. Only the name is in plan and state. With `secret_key_env`; not with the " +
			"write-only keys.",
		Optional: true,
	}
	attrs["secret_key_env"] = schema.StringAttribute{
		MarkdownDescription: "Name of the environment variable holding the secret key going with `access_key_env`.",
		Optional:            true,
	}
	attrs["credentials_wo_version"] = schema.Int64Attribute{
		MarkdownDescription: "Version of the keys. Terraform cannot see a change of a write-only value, nor of the value of a variable " +
			"`access_key_env`/`secret_key_env` name, so change this number when the keys change: the plan then shows the resource's action " +
			"again and apply runs it with the new keys. " +
			"Jobs whose evidence still holds are skipped; a job that stores the keys reruns when its evidence compares them. " +
			"Only with keys, of either form.",
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

func (c boundCandidateModel) hasCredentials() bool { return c.binding(nil).HasKeys() }

// binding is the candidate as an S3 binding at p.
func (c boundCandidateModel) binding(p intent.Path) intent.S3Binding {
	b := intent.S3Binding{
		Path: p, Capability: strOr(c.Capability, ""), Endpoint: c.Attributes["endpoint"],
		AccessKey: strOr(c.AccessKeyWO, ""), SecretKey: strOr(c.SecretKeyWO, ""),
		KeysUnknown:  c.AccessKeyWO.IsUnknown() || c.SecretKeyWO.IsUnknown(),
		AccessKeyEnv: strOr(c.AccessKeyEnv, ""), SecretKeyEnv: strOr(c.SecretKeyEnv, ""),
		VersionSet: !c.CredentialsWOVersion.IsNull() && !c.CredentialsWOVersion.IsUnknown(),
	}
	b.Bucket, b.HasBucket = c.Attributes["bucket"]
	return b
}

// checkStorageCredentials checks the credential arguments, endpoint and
// bucket of the binding at p (intent.CheckS3Binding), reading named keys
// from env (nil: not read). Values are never quoted.
func checkStorageCredentials(c boundCandidateModel, p path.Path, env intent.Env, diags *diag.Diagnostics) {
	addProblems(diags, intent.CheckS3Binding(c.binding(fromPath(p)), env))
}

// planEnv is the environment the bindings' named keys are read from: the
// provider process's at plan (data set), none in a static validation,
// which must not depend on secrets being exported.
func planEnv(data *providerData) intent.Env {
	if data == nil {
		return nil
	}
	return os.LookupEnv
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
// endpoint and bucket (internal) and the credentials (secret), its keys
// written or read from the environment (env). state lists them for the
// planner without the secret's value; secrets carry it to the engine,
// which registers it with the redactor and writes it only into the job's
// private input directory.
func storageInputs(cands []boundCandidateModel, env intent.Env) (state []protocol.Artifact, secrets []engine.InputArtifact) {
	for _, c := range cands {
		b := c.binding(nil)
		access, secret, ok := b.Keys(env)
		if !ok {
			continue
		}
		ep, bucket, cred, value := intent.S3Inputs(b, access, secret)
		state = append(state, ep, cred)
		secrets = append(secrets, engine.InputArtifact{Artifact: ep}, engine.InputArtifact{Artifact: cred, SecretValue: value})
		if bucket.ID != "" {
			state = append(state, bucket)
			secrets = append(secrets, engine.InputArtifact{Artifact: bucket})
		}
		return state, secrets
	}
	return nil, nil
}

// addStorageCredentials gives the plan the credentialed binding's
// artifacts.
func (ip *intentPlan) addStorageCredentials(cands []boundCandidateModel) {
	state, secrets := storageInputs(cands, os.LookupEnv)
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

// checkCredentials checks cp_tempo's credential arguments, and that
// object_storage's bucket and the bucket parameter, both set, agree.
func (t *tempoModel) checkCredentials(env intent.Env, diags *diag.Diagnostics) {
	all := t.scenario().Candidates
	for i, c := range all {
		checkStorageCredentials(c, t.bindingPath()(i), env, diags)
	}
	checkOneCredentialed(all, t.bindingPath(), diags)
	if t.ObjectStorage == nil {
		return
	}
	b, bound := t.ObjectStorage.Attributes["bucket"]
	if p, set := t.Parameters["bucket"]; bound && set && p != b {
		addAttrError(diags, path.Root("object_storage").AtName("attributes").AtMapKey("bucket"), "Two buckets",
			fmt.Sprintf("object_storage names bucket %s and parameters.bucket %s; Tempo keeps its traces in one bucket, so remove parameters.bucket (object_storage's bucket sets it).",
				paramtype.Quote(b), paramtype.Quote(p)))
	}
}

// readWriteOnly fills cp_scenario's candidates with their write-only keys
// from the configuration.
func (m *scenarioModel) readWriteOnly(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	readWriteOnly(ctx, cfg, path.Root("candidates"), m.Candidates, diags)
}

func scenarioBindingPath(i int) path.Path { return path.Root("candidates").AtListIndex(i) }

// checkCredentials checks cp_scenario's credential arguments.
func (m *scenarioModel) checkCredentials(env intent.Env, diags *diag.Diagnostics) {
	for i, c := range m.Candidates {
		checkStorageCredentials(c, scenarioBindingPath(i), env, diags)
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
	v.MarkdownDescription += " For Tempo bound to an existing S3 provider, `create-bucket-and-credentials` is skipped only while its evidence " +
		"holds with the current keys (the evidence object reads back with them, and the Secret `tempo-s3` holds exactly them), so after a " +
		"bump the job runs again when the keys changed and stores the new ones in `tempo-s3`."
	attrs["credentials_wo_version"] = v
	return attrs
}

// fromPath is toPath's inverse for the attribute, list-index and map-key
// steps binding paths are made of.
func fromPath(p path.Path) intent.Path {
	var out intent.Path
	for _, s := range p.Steps() {
		switch st := s.(type) {
		case path.PathStepAttributeName:
			if out == nil {
				out = intent.Root(string(st))
			} else {
				out = out.Attr(string(st))
			}
		case path.PathStepElementKeyInt:
			out = out.Index(int(st))
		case path.PathStepElementKeyString:
			out = out.Key(string(st))
		}
	}
	return out
}
