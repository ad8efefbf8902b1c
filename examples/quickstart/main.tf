# Quickstart: seed scenario 1 — a production Kubernetes cluster with 3
# masters and 5 workers, calico, containerd and longhorn, HA control plane,
# in eu-central.
#
# `make demo` starts eight local test hosts (real OpenSSH servers on
# loopback addresses, with the tools that cannot run here emulated), writes
# their addresses and SSH settings into terraform.tfvars.json, and runs
# `tofu plan` (the DAG of job instances per host, derived from the jobs'
# contracts) and `tofu apply` (the engine runs it over SSH).
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

variable "masters" {
  description = "Control-plane hosts: name and address."
  type        = list(object({ name = string, address = string }))
  default = [
    { name = "master-1", address = "10.0.0.11" },
    { name = "master-2", address = "10.0.0.12" },
    { name = "master-3", address = "10.0.0.13" },
  ]
}

variable "control_plane_endpoint" {
  description = "host:port of a load balancer or virtual IP in front of port 6443 of every master; required with more than one master. `make demo` sets the first test host's address."
  type        = string
  default     = "api.prod-k8s.internal.example:6443"
}

variable "workers" {
  description = "Worker hosts: name and address."
  type        = list(object({ name = string, address = string }))
  default = [
    { name = "worker-1", address = "10.0.0.21" },
    { name = "worker-2", address = "10.0.0.22" },
    { name = "worker-3", address = "10.0.0.23" },
    { name = "worker-4", address = "10.0.0.24" },
    { name = "worker-5", address = "10.0.0.25" },
  ]
}

variable "ssh_user" {
  type    = string
  default = "ubuntu"
}

variable "ssh_private_key_file" {
  type    = string
  default = "~/.ssh/id_ed25519"
}

variable "ssh_port" {
  description = "SSH port of every host."
  type        = number
  default     = 22
}

variable "ssh_known_hosts_file" {
  type    = string
  default = "~/.ssh/known_hosts"
}

provider "cp" {
  environment = "prod"
  ssh = {
    user             = var.ssh_user
    port             = var.ssh_port
    private_key_file = var.ssh_private_key_file
    known_hosts_file = var.ssh_known_hosts_file
  }
}

resource "cp_kubernetes_cluster" "prod" {
  name                     = "prod-k8s"
  region                   = "eu-central"
  require_ha_control_plane = true
  cni                      = "calico"
  container_runtime        = "containerd"
  storage                  = "longhorn"
  kubernetes_version       = "1.34.2"

  parameters = { control_plane_endpoint = var.control_plane_endpoint }
  masters    = var.masters
  workers    = var.workers
}

output "plan" {
  description = "What the last apply ran: stages with their job counts."
  value       = cp_kubernetes_cluster.prod.plan_summary
}

output "api_endpoint" {
  value = cp_kubernetes_cluster.prod.api_endpoint
}

output "operation" {
  value = {
    status   = cp_kubernetes_cluster.prod.operation.status
    template = cp_kubernetes_cluster.prod.operation.template
    phases   = "${cp_kubernetes_cluster.prod.operation.phases_done} of ${cp_kubernetes_cluster.prod.operation.phases_total}"
    jobs_run = cp_kubernetes_cluster.prod.operation.jobs_run
  }
}

output "evidence" {
  description = "Checks that prove the cluster's outputs, per job instance."
  value       = [for e in nonsensitive(cp_kubernetes_cluster.prod.evidence) : "${e.instance} ${e.id}: ${e.passed ? "holds" : "FAILED"}" if startswith(e.instance, "verify")]
}

output "health" {
  value = cp_kubernetes_cluster.prod.health
}
