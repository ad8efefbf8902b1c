resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

# Read the admin kubeconfig live, without writing it to plan or state, and
# hand it to another provider's configuration.
ephemeral "cp_artifact" "kubeconfig" {
  handle   = cp_kubernetes_cluster.prod.handle
  artifact = "kubeconfig.admin"
}

locals {
  kubeconfig = yamldecode(ephemeral.cp_artifact.kubeconfig.value)
}
