package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// clusterModel is cp_kubernetes_cluster's configuration and state.
type clusterModel struct {
	ID                    types.String      `tfsdk:"id"`
	Name                  types.String      `tfsdk:"name"`
	Environment           types.String      `tfsdk:"environment"`
	Region                types.String      `tfsdk:"region"`
	InventoryFile         types.String      `tfsdk:"inventory_file"`
	Masters               []nodeModel       `tfsdk:"masters"`
	Workers               []nodeModel       `tfsdk:"workers"`
	CNI                   types.String      `tfsdk:"cni"`
	ContainerRuntime      types.String      `tfsdk:"container_runtime"`
	Storage               types.String      `tfsdk:"storage"`
	KubernetesVersion     types.String      `tfsdk:"kubernetes_version"`
	RequireHAControlPlane types.Bool        `tfsdk:"require_ha_control_plane"`
	PodCIDR               types.String      `tfsdk:"pod_cidr"`
	ServiceCIDR           types.String      `tfsdk:"service_cidr"`
	RegistryMirrors       []string          `tfsdk:"registry_mirrors"`
	Proxy                 *proxyModel       `tfsdk:"proxy"`
	Parameters            map[string]string `tfsdk:"parameters"`

	Customizations *customizationModel `tfsdk:"customizations"`
	PlanPatches    []planPatchModel    `tfsdk:"plan_patches"`
	Approvals      []approvalModel     `tfsdk:"approvals"`
	Interventions  []interventionModel `tfsdk:"interventions"`

	SSH                *resourceSSHModel `tfsdk:"ssh"`
	DeletionProtection types.Bool        `tfsdk:"deletion_protection"`
	RefreshHealth      types.Bool        `tfsdk:"refresh_health"`
	ExposeKubeconfig   types.Bool        `tfsdk:"expose_kubeconfig"`
	Timeouts           timeouts.Value    `tfsdk:"timeouts"`

	// Computed.
	IntentComputed
	InventorySHA256 types.String `tfsdk:"inventory_sha256"`
	// firstMaster is the first master of hosts from inventory_file once
	// clearWriteOnly took them out, for the resource identity.
	firstMaster *nodeModel   `tfsdk:"-"`
	Nodes       types.List   `tfsdk:"nodes"`
	Health      types.String `tfsdk:"health"`
	APIEndpoint types.String `tfsdk:"api_endpoint"`
	Kubeconfig  types.String `tfsdk:"kubeconfig"`
}

// nodeModel is one master or worker.
type nodeModel struct {
	Name    types.String `tfsdk:"name"`
	Address types.String `tfsdk:"address"`
	Port    types.Int64  `tfsdk:"port"`
	// NodeAddress and WireGuardEndpoint default to Address.
	NodeAddress       types.String      `tfsdk:"node_address"`
	WireGuardEndpoint types.String      `tfsdk:"wireguard_endpoint"`
	Labels            map[string]string `tfsdk:"labels"`
	Taints            []string          `tfsdk:"taints"`
	SSH               *hostSSHModel     `tfsdk:"ssh"`
}

// proxyModel is a cluster's proxy block.
type proxyModel struct {
	HTTP    types.String `tfsdk:"http"`
	HTTPS   types.String `tfsdk:"https"`
	NoProxy []string     `tfsdk:"no_proxy"`
}

type hostSSHModel struct {
	User           types.String `tfsdk:"user"`
	PrivateKeyFile types.String `tfsdk:"private_key_file"`
}

type resourceSSHModel struct {
	User           types.String `tfsdk:"user"`
	Port           types.Int64  `tfsdk:"port"`
	PrivateKeyFile types.String `tfsdk:"private_key_file"`
	KnownHostsFile types.String `tfsdk:"known_hosts_file"`
}

type approvalModel struct {
	Gate   types.String `tfsdk:"gate"`
	Option types.String `tfsdk:"option"`
}

type interventionModel struct {
	Job          types.String `tfsdk:"job"`
	Node         types.String `tfsdk:"node"`
	Note         types.String `tfsdk:"note"`
	Verification []string     `tfsdk:"verification"`
}
