package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
)

var _ ephemeral.EphemeralResourceWithConfigure = &ArtifactEphemeral{}

// ArtifactEphemeral reads a secret artifact live, never writing it to
// state or plan.
type ArtifactEphemeral struct {
	data *providerData
}

// NewArtifactEphemeral is the constructor listed by the provider.
func NewArtifactEphemeral() ephemeral.EphemeralResource { return &ArtifactEphemeral{} }

type artifactEphemeralModel struct {
	Handle      types.String `tfsdk:"handle"`
	Artifact    types.String `tfsdk:"artifact"`
	Value       types.String `tfsdk:"value"`
	Ref         types.String `tfsdk:"ref"`
	Fingerprint types.String `tfsdk:"fingerprint"`
	ExpiresAt   types.String `tfsdk:"expires_at"`
}

// Metadata sets the type name.
func (e *ArtifactEphemeral) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_artifact"
}

// Configure receives the provider data.
func (e *ArtifactEphemeral) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	e.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// Schema of cp_artifact.
func (e *ArtifactEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a secret artifact (the admin kubeconfig, a join token) live over SSH by the reference a resource recorded, " +
			"without writing it to plan or state. Use it in provider blocks (e.g. a kubernetes provider) or write-only arguments.",
		Attributes: map[string]schema.Attribute{
			"handle":      schema.StringAttribute{MarkdownDescription: "Handle of the resource that produced the artifact, e.g. `cp_kubernetes_cluster.prod.handle`.", Required: true},
			"artifact":    schema.StringAttribute{MarkdownDescription: "Artifact id, e.g. `kubeconfig.admin` or `kubeadm.join_token`.", Required: true},
			"value":       schema.StringAttribute{MarkdownDescription: "The artifact's value.", Computed: true, Sensitive: true},
			"ref":         schema.StringAttribute{MarkdownDescription: "Where it was read from (`host:path`).", Computed: true},
			"fingerprint": schema.StringAttribute{MarkdownDescription: "SHA-256 of the value, as `sha256:<hex>`.", Computed: true},
			"expires_at":  schema.StringAttribute{MarkdownDescription: "Expiry recorded for the artifact, when it has one.", Computed: true},
		},
	}
}

// Open reads the artifact.
func (e *ArtifactEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m artifactEphemeralModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || e.data == nil {
		return
	}
	ch, err := intent.DecodeClusterHandle(m.Handle.ValueString())
	if err != nil {
		addAttrError(&resp.Diagnostics, path.Root("handle"), "Invalid handle", err.Error())
		return
	}
	want := m.Artifact.ValueString()
	arts, err := handleArtifacts(ctx, e.data, ch)
	if err != nil {
		addAttrError(&resp.Diagnostics, path.Root("handle"), "Cannot read the cluster's artifacts", err.Error())
		return
	}
	for _, a := range arts {
		if a.ID != want {
			continue
		}
		if a.Ref == "" {
			addAttrError(&resp.Diagnostics, path.Root("artifact"), "Artifact is not stored by reference",
				fmt.Sprintf("%s has no reference to read; its value is in the resource's artifacts attribute.", want))
			return
		}
		if err := artifactVisible(e.data, ch, want); err != nil {
			addAttrError(&resp.Diagnostics, path.Root("artifact"), "Artifact not visible to the actor", err.Error()+".")
			return
		}
		access := resourceAccess(e.data, nil)
		var hosts []operation.HostAccess
		for _, h := range ch.ProtocolHosts() {
			hosts = append(hosts, operation.HostAccess{Host: h, Access: access})
		}
		b, err := operation.Fetch(ctx, hosts, a.Ref, nil)
		if err != nil {
			addAttrError(&resp.Diagnostics, path.Root("artifact"), "Cannot read the artifact", err.Error())
			return
		}
		sum := sha256.Sum256(b)
		m.Value, m.Ref = types.StringValue(string(b)), types.StringValue(a.Ref)
		m.Fingerprint, m.ExpiresAt = types.StringValue("sha256:"+hex.EncodeToString(sum[:])), types.StringValue(ts(a.ExpiresAt))
		resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
		return
	}
	addAttrError(&resp.Diagnostics, path.Root("artifact"), "Unknown artifact",
		fmt.Sprintf("the handle lists no artifact %q; see the resource's artifacts attribute for the ids.", want))
}

// artifactVisible checks the visible_to_roles that the pack of the
// handle's kind declares for the artifact against the provider's actor.
func artifactVisible(data *providerData, ch intent.Handle, artifactID string) error {
	pack := intent.PackOfKind(data.Catalog, ch.Kind)
	if pack == nil {
		return nil
	}
	roles, _ := intent.ArtifactRoles(pack, artifactID)
	return intent.CheckArtifactVisible("cp_artifact", artifactID, roles, actorOf(data))
}
