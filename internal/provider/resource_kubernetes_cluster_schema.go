package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

func rOptStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Optional: true}
}

func rOptList(desc string) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: desc, Optional: true, ElementType: stringType}
}

func rOptMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{MarkdownDescription: desc, Optional: true, ElementType: stringType}
}

func rDefaultStr(desc, def string, replace bool, oneOf ...string) schema.StringAttribute {
	a := schema.StringAttribute{MarkdownDescription: desc, Optional: true, Computed: true, Default: stringdefault.StaticString(def)}
	if replace {
		a.PlanModifiers = []planmodifier.String{stringplanmodifier.RequiresReplace()}
	}
	if len(oneOf) > 0 {
		a.Validators = []validator.String{stringvalidator.OneOf(oneOf...)}
	}
	return a
}

func nodeAttrs(role string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name":    schema.StringAttribute{MarkdownDescription: "Unique node name, e.g. `" + role + "-1`; job instances are named after it.", Required: true},
		"address": schema.StringAttribute{MarkdownDescription: "IP address or DNS name to connect to over SSH.", Required: true},
		"port":    schema.Int64Attribute{MarkdownDescription: "SSH port; defaults to the resource's or provider's.", Optional: true},
		"node_address": rOptStr("Internal IPv4 address of the node: the kubelet's node IP and, on a master, the API server's advertise address. " +
			"Defaults to `address` (which must then be an IP). Set it on NAT, floating-IP and multi-NIC hosts, where SSH reaches another address than the nodes use."),
		"wireguard_endpoint": rOptStr("IPv4 address the other nodes send this node's WireGuard traffic to; defaults to `address`."),
		"labels":             rOptMap("Kubernetes labels applied to the node."),
		"taints":             rOptList("Taints applied to the node, e.g. `dedicated=infra:NoSchedule`."),
		"ssh": schema.SingleNestedAttribute{
			MarkdownDescription: "SSH settings for this host only.",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"user":             rOptStr("Login user."),
				"private_key_file": rOptStr("Private key file."),
			},
		},
	}
}

func proxyAttr() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "HTTP(S) proxy of the nodes: written for apt (`/etc/apt/apt.conf.d/90cp-proxy`), containerd (the systemd drop-in " +
			"`/etc/systemd/system/containerd.service.d/http-proxy.conf`) and the jobs' curl, helm and kubectl, before anything is downloaded. " +
			"NO_PROXY always holds every node's addresses, the control-plane endpoint, `pod_cidr`, `service_cidr`, `.svc`, `.cluster.local`, " +
			"`localhost`, `127.0.0.1` and `::1`, besides `no_proxy`.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"http":     rOptStr("Proxy URL for http, e.g. `http://proxy.internal:3128` (no credentials)."),
			"https":    rOptStr("Proxy URL for https; defaults to `http`."),
			"no_proxy": rOptList("Further hosts, `.domains`, IP addresses and CIDRs reached directly, e.g. `.corp.internal`, `10.0.0.0/8`."),
		},
	}
}

func resourceSSHAttr() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "SSH settings for this resource's hosts, over the provider's `ssh` defaults.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"user":             rOptStr("Login user."),
			"port":             schema.Int64Attribute{MarkdownDescription: "SSH port.", Optional: true},
			"private_key_file": rOptStr("Private key file."),
			"known_hosts_file": rOptStr("known_hosts file the host keys are verified against."),
		},
	}
}

func resCustomizationsAttr() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The stored difference to the pack template (seed 000 §6): jobs inserted after others and jobs removed. " +
			"The plan then reads `kubernetes.create@1.0.0 customized` and lists the changes. " + notEditableDesc,
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"base_template": rOptStr("Template the customization was made against, e.g. `kubernetes.create@1.0.0`."),
			"changes": schema.ListNestedAttribute{
				MarkdownDescription: "Changes in order; each sets `inserted` with `after`, or `removed`.",
				Required:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"inserted": rOptStr("Job id from the pack's job library to insert."),
					"after":    rOptStr("Job id the inserted job runs after."),
					"removed":  rOptStr("Job id to remove; refused while another job requires its outputs."),
				}},
			},
		},
	}
}

func resPlanPatchesAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Plan patches (seed 001 §14), e.g. the one an apply error proposes: paste it here, set `approval.approved_by`, and the next plan shows the patched DAG. " + notEditableDesc,
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"id":     rOptStr("Patch id."),
			"author": schema.StringAttribute{MarkdownDescription: "Who proposed it.", Required: true},
			"reason": schema.StringAttribute{MarkdownDescription: "Why.", Required: true},
			"risk":   rOptStr(patchRiskDesc),
			"changes": schema.ListNestedAttribute{
				MarkdownDescription: "Changes; each sets one of `insert_after` (with `jobs`), `remove` or `retry`.",
				Required:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"insert_after": rOptStr("Job id after which `jobs` are inserted."),
					"jobs":         rOptList("Job ids from the pack's job library."),
					"parameters":   rOptMap("Parameters of the inserted jobs."),
					"remove":       rOptStr("Job id to remove."),
					"retry":        rOptStr("Job id to run again."),
				}},
			},
			"approval": schema.SingleNestedAttribute{
				MarkdownDescription: "Approval.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"required":    schema.BoolAttribute{MarkdownDescription: "Whether approval is required.", Optional: true},
					"roles":       rOptList("Roles that may approve."),
					"approved_by": rOptStr("Who approved."),
				},
			},
		}},
	}
}

func resApprovalsAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Decisions for gates, made by the provider's `actor` with its `actor_roles`; a decision passes only when the option is one of the gate's and the actor holds a required role.",
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"gate":   schema.StringAttribute{MarkdownDescription: "Gate id, as the plan shows it.", Required: true},
			"option": schema.StringAttribute{MarkdownDescription: "One of the gate's options.", Required: true},
		}},
	}
}

func resInterventionsAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Manual fixes (seed 000 §5): after fixing a failed job by hand, record it here; the next apply verifies the fix with the job's evidence (and the checks named) before the operation continues.",
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"job":          schema.StringAttribute{MarkdownDescription: "Job id that failed, e.g. `join-workers`.", Required: true},
			"node":         rOptStr("Node it failed on, e.g. `worker-3`."),
			"note":         rOptStr("What was done."),
			"verification": rOptList("Evidence ids to verify besides the job's own."),
		}},
	}
}

// Schema of cp_kubernetes_cluster.
func (r *KubernetesClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kubernetes cluster as an intent (seed scenario 1): masters and workers as host lists, CNI, runtime, storage and version. " +
			"`plan` shows the DAG apply will run; apply runs it over SSH with the embedded engine and stores artifacts (secrets by reference) and evidence. " +
			"Adding workers plans `add_node` for just those, adding masters `add_master`, removing either plans `remove_node`, a version change plans a rolling upgrade. " +
			"A failed apply leaves no tainted resource: fix or patch, and apply again resumes where it stopped.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{MarkdownDescription: "The cluster name.", Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{MarkdownDescription: "Cluster name.", Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"environment": schema.StringAttribute{MarkdownDescription: "Environment; defaults to the provider's.", Optional: true, Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()}},
			"region": rOptStr("Region, matched by `same-as-workload` constraints of workloads on the cluster."),
			"inventory_file": schema.StringAttribute{MarkdownDescription: "Path of a YAML (or JSON) file listing the hosts instead of `masters` and `workers`, " +
				"for large clusters: `masters:` and `workers:` lists whose entries have exactly the keys of those blocks (`name`, `address`, `port`, `node_address`, " +
				"`wireguard_endpoint`, `labels`, `taints`, `ssh` with `user` and `private_key_file`); an unknown key is refused. Give either this or `masters`/`workers`, not both. " +
				"A relative path is read from OpenTofu's working directory: write `\"${path.module}/hosts.yaml\"`. The hosts are checked at plan as the blocks' are " +
				"(errors name the file, the host's position and the key, e.g. `hosts.yaml: workers[3].address`) and changes plan the same operations " +
				"(a worker left out plans `remove_node`, one added `add_node`). The plan does not list the hosts: it shows `inventory_sha256`, and the `plan` attribute " +
				"the jobs with their hosts as ranges. State keeps the resolved hosts in private state, so refresh and destroy work after the file is changed or deleted.",
				Optional: true},
			"inventory_sha256": rStr("SHA-256 of `inventory_file`'s bytes, known at plan: an edit of the file shows as a change of this attribute, with the operations it causes. Null without `inventory_file`."),
			"masters": schema.ListNestedAttribute{MarkdownDescription: "Control-plane hosts (or `inventory_file`); the first one initializes the cluster. With more than one master, `parameters[\"control_plane_endpoint\"]` is required. " +
				"Changes in place: a master's labels and taints (`relabel`); masters added (`add_master`: a kubeadm control-plane join through the endpoint, " +
				"with the certificates uploaded by `kubeadm init phase upload-certs`); masters other than the first left out (`remove_node`: drain, an etcd snapshot, " +
				"their etcd members removed, reset, behind the `confirm-node-removal` gate). Any other change (the first master, a staying master's address or " +
				"settings, their order) replaces the cluster, with a plan warning saying why; adding masters while the endpoint changes is refused.",
				Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: nodeAttrs("master")},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(mastersReplaced,
					"Changing the first master, a staying master or the masters' order replaces the cluster; labels and taints, masters added and masters other than the first left out are changed in place.",
					"Changing the first master, a staying master or the masters' order replaces the cluster; labels and taints, masters added and masters other than the first left out are changed in place.")}},
			"workers": schema.ListNestedAttribute{MarkdownDescription: "Worker hosts; adding or removing one plans add_node / remove_node for just that host, changing a worker's labels or taints plans `relabel`.",
				Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: nodeAttrs("worker")}},
			"cni":                rDefaultStr("CNI plugin: `calico`, `cilium` or `flannel`. Changing it replaces the cluster.", "calico", true, "calico", "cilium", "flannel"),
			"container_runtime":  rDefaultStr("Container runtime: `containerd`.", "containerd", true, "containerd"),
			"storage":            rDefaultStr("Storage addon: `longhorn` or `none`.", "none", true, "longhorn", "none"),
			"kubernetes_version": rDefaultStr("Kubernetes version, e.g. `1.34.2`; changing it plans a rolling upgrade (one minor version at a time).", "1.34.2", false),
			"require_ha_control_plane": schema.BoolAttribute{MarkdownDescription: "Require an HA control plane: at least 3 masters, an odd number.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
			"pod_cidr":         rDefaultStr("Pod network CIDR.", "10.244.0.0/16", true),
			"service_cidr":     rDefaultStr("Service network CIDR.", "10.96.0.0/12", true),
			"registry_mirrors": rOptList("Registry mirrors configured in containerd, e.g. `https://mirror.internal:5000`."),
			"proxy":            proxyAttr(),
			"parameters": schema.MapAttribute{MarkdownDescription: "Further pack parameters; see the `kubernetes` pack's contract. " +
				"`control_plane_endpoint` is kubeadm's `controlPlaneEndpoint`: a load balancer or virtual IP in front of port 6443 of every master, as `host:port` " +
				"(a DNS name or an IP address; port 6443 when left out), e.g. `api.prod.internal:6443`. Required with more than one master; a single master " +
				"defaults to its node address on port 6443. It is written into the API server's certificate and every kubeconfig: changing it replaces " +
				"the cluster, and a single-master cluster created without it can add masters only when the endpoint given is that default.",
				Optional: true, ElementType: stringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(parametersReplaced,
					"Changing parameters[\"control_plane_endpoint\"] replaces the cluster.", "Changing `parameters[\"control_plane_endpoint\"]` replaces the cluster.")}},
			"customizations": resCustomizationsAttr(),
			"plan_patches":   resPlanPatchesAttr(),
			"approvals":      resApprovalsAttr(),
			"interventions":  resInterventionsAttr(),
			"ssh":            resourceSSHAttr(),
			"deletion_protection": schema.BoolAttribute{MarkdownDescription: "Refuse to destroy the cluster while true.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
			"refresh_health": schema.BoolAttribute{MarkdownDescription: "Refresh node health, labels and taints over SSH on every read (one node list through a master), so a node that disappeared, or whose labels or taints were changed on the API server, shows as drift in the next plan.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(true)},
			"expose_kubeconfig": schema.BoolAttribute{MarkdownDescription: "Store the admin kubeconfig in the sensitive `kubeconfig` attribute. Off by default: prefer the `cp_artifact` ephemeral resource.",
				Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
			"timeouts":     timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
			"operation":    operationAttr(),
			"artifacts":    artifactsAttr(),
			"evidence":     evidenceAttr(),
			"capabilities": capabilitiesAttr(),
			"nodes":        computedListOf("Nodes as last seen: name, role and whether Ready.", clusterNodeType),
			"health":       rStr("`healthy` when every node is Ready, `degraded` otherwise, `unknown` when not refreshed."),
			"api_endpoint": rStr("Kubernetes API endpoint, e.g. `https://10.0.0.11:6443`."),
			"handle":       rStr("What other cp resources need to act on the cluster, known at plan from the configuration: hosts and roles (with `inventory_file`, a reference to the file instead: its absolute path, SHA-256, and how many masters and workers it lists), API endpoint, exported capabilities, pack version and the ids of the cluster's artifacts (no secrets, no values), as one string (`cp.handle.v1` and the JSON) to pass on as it is. Apply reads the artifacts' references from the record the cluster keeps on its masters. Pass it to `cp_node`, `cp_tempo` and `cp_scenario`: they plan their full DAG before the cluster exists, and plan again when its hosts change. A resource on a handle with an inventory reference reads the file (its SHA-256 must be the handle's) and keeps the hosts in its private state, for refresh and destroy once the file is gone."),
			"kubeconfig": schema.StringAttribute{MarkdownDescription: "Admin kubeconfig, only when `expose_kubeconfig` is true.",
				Computed: true, Sensitive: true},
		},
	}
	planAttrs(resp.Schema.Attributes, "Simple view of what the next apply will do: stages with job counts. Empty when there is nothing to do.")
}
