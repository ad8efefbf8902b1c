# A scenario composition as an HCL module: a Kubernetes cluster, the
# resolution of object storage for traces under the provider policy, and
# Tempo on the cluster bound to what resolution chose. Teams call it once
# per environment; the provider block (environment, policy, actor) comes
# from the caller.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

variable "name" {
  description = "Cluster name."
  type        = string
}

variable "region" {
  type = string
}

variable "masters" {
  type = list(object({ name = string, address = string }))
}

variable "control_plane_endpoint" {
  description = "host:port of a load balancer or virtual IP in front of the masters' port 6443; required with more than one master."
  type        = string
  default     = null
}

variable "workers" {
  type    = list(object({ name = string, address = string }))
  default = []
}

variable "s3_candidates" {
  description = "Existing S3 providers Tempo may bind; empty lets the policy create one or gate."
  type = list(object({
    name       = string
    provider   = string
    attributes = map(string)
  }))
  default = []
}

variable "approvals" {
  description = "Gate decisions, e.g. [{ gate = \"approve-dedicated-minio\", option = \"create dedicated_minio\" }]."
  type        = list(object({ gate = string, option = string }))
  default     = []
}

resource "cp_kubernetes_cluster" "this" {
  name                     = var.name
  region                   = var.region
  require_ha_control_plane = length(var.masters) >= 3
  masters                  = var.masters
  workers                  = var.workers
  parameters               = var.control_plane_endpoint == null ? null : { control_plane_endpoint = var.control_plane_endpoint }
}

# The decision for object storage, with a reason for every candidate.
data "cp_capability" "traces_s3" {
  capability  = "object_storage.s3"
  constraints = { region = "same-as-workload" }
  workload    = { region = var.region }
  candidates  = [for c in var.s3_candidates : merge(c, { capability = "object_storage.s3" })]
}

resource "cp_tempo" "this" {
  name           = "${var.name}-tracing"
  cluster_handle = cp_kubernetes_cluster.this.handle
  candidates     = [for c in var.s3_candidates : merge(c, { capability = "object_storage.s3" })]
  approvals      = var.approvals
}

output "cluster_handle" {
  value = cp_kubernetes_cluster.this.handle
}

output "s3_decision" {
  value = {
    decision = data.cp_capability.traces_s3.decision
    provider = data.cp_capability.traces_s3.selected_provider
    reason   = data.cp_capability.traces_s3.reason
  }
}

output "tracing_plan" {
  value = cp_tempo.this.plan_summary
}
