resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

# Any pack action as a resource: here PostgreSQL from the embedded pack on a
# cluster; the same works for packs from the provider's pack_dirs.
resource "cp_scenario" "orders_db" {
  pack           = "postgresql"
  action         = "install"
  name           = "orders-db"
  cluster_handle = cp_kubernetes_cluster.prod.handle

  parameters = {
    namespace = "orders"
  }
}

output "orders_db_operation" {
  value = cp_scenario.orders_db.operation.status
}
