# Quickstart: seed scenario 1 — a production Kubernetes cluster with 3
# masters and 5 workers, calico, containerd and longhorn, HA control plane,
# in eu-central. `make demo` plans and applies this configuration; the plan
# shows the DAG of job instances per host, derived from the jobs' contracts.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  environment = "prod"
}

variable "address_base" {
  description = "First three octets of the host addresses; the demo's local test hosts live on 127.0.0.0/8."
  type        = string
  default     = "127.0.0"
}

locals {
  masters = [for i in range(1, 4) : { name = "master-${i}", address = "${var.address_base}.${i + 1}", role = "master" }]
  workers = [for i in range(1, 6) : { name = "worker-${i}", address = "${var.address_base}.${i + 4}", role = "worker" }]
}

data "cp_plan" "cluster" {
  pack   = "kubernetes"
  action = "create"
  name   = "prod-k8s"
  hosts  = concat(local.masters, local.workers)
  parameters = {
    cni               = "calico"
    container_runtime = "containerd"
    storage           = "longhorn"
  }
  constraints = {
    region                   = "eu-central"
    require_ha_control_plane = "true"
  }
}

output "plan" {
  description = "Stages with their job counts."
  value       = data.cp_plan.cluster.summary
}

output "template" {
  value = data.cp_plan.cluster.display
}

output "job_instances" {
  value = length(data.cp_plan.cluster.instances)
}

output "dag_mermaid" {
  description = "Paste into any mermaid renderer to see the DAG."
  value       = data.cp_plan.cluster.mermaid
}
