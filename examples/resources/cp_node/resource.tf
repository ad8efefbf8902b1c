resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

# Seed scenario 2: add worker-6 to an existing cluster. When the cluster's
# join token is absent or expired, the plan shows the inserted
# generate-join-token job and why.
resource "cp_node" "worker_6" {
  cluster_handle = cp_kubernetes_cluster.prod.handle
  node = {
    name    = "worker-6"
    address = "10.0.0.26"
    role    = "worker"
    labels  = { "node.kubernetes.io/pool" = "batch" }
  }
}

output "add_node_plan" {
  value = cp_node.worker_6.plan
}
