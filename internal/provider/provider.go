// Package provider is the terraform-plugin-framework glue of the cp
// provider: schemas, conversions between framework values and the plain Go
// types of the other packages, and diagnostics. No planning or execution
// logic lives here.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var (
	_ provider.Provider                       = &CpProvider{}
	_ provider.ProviderWithEphemeralResources = &CpProvider{}
)

// CpProvider is the cp provider.
type CpProvider struct {
	version string
}

// New returns a constructor of the provider for providerserver.Serve.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &CpProvider{version: version}
	}
}

// Metadata sets the type name "cp".
func (p *CpProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "cp"
	resp.Version = p.version
}

// Schema is in provider_schema.go.
func (p *CpProvider) Schema(ctx context.Context, req provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerSchema()
}

// Configure validates the configuration, loads the scenario packs and hands
// the result to data sources and resources.
func (p *CpProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data, diags := model.settings(p.version)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.EphemeralResourceData = data
}

// Resources lists the resource constructors.
func (p *CpProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewKubernetesClusterResource,
		NewNodeResource,
		NewScenarioResource,
		NewTempoResource,
	}
}

// DataSources lists the data source constructors.
func (p *CpProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewCapabilityDataSource,
		NewHostDataSource,
		NewPlanDataSource,
		NewScenarioPackDataSource,
	}
}

// EphemeralResources lists the ephemeral resource constructors.
func (p *CpProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewArtifactEphemeral,
	}
}
