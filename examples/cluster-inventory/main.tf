# A cluster whose hosts are kept in a file, the way large host lists are
# kept for Ansible, kubespray or k0sctl: hosts.yaml lists the masters and
# workers with the keys of the resource's masters and workers blocks.
#
# The plan does not list the hosts: an edit of the file shows as the change
# of inventory_sha256 and the operations it causes (a worker left out
# plans remove_node, one added add_node), with the jobs' hosts as ranges in
# the plan attribute. The resolved hosts are kept in private state, so
# refresh and destroy work after the file is changed or deleted.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  environment = "prod"
  actor       = "ci"
  actor_roles = ["sre", "platform_admin"]
  ssh = {
    user             = "ubuntu"
    private_key_file = "~/.ssh/id_ed25519"
  }
}

resource "cp_kubernetes_cluster" "fleet" {
  name    = "fleet-k8s"
  storage = "none"

  # Relative to the module, not to where tofu is run.
  inventory_file = "${path.module}/hosts.yaml"

  approvals = [
    { gate = "confirm-node-removal", option = "remove node" },
  ]
}

output "plan" {
  value = cp_kubernetes_cluster.fleet.plan
}
