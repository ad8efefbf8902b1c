resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

variable "backup_s3_access_key" {
  type      = string
  ephemeral = true
}

variable "backup_s3_secret_key" {
  type      = string
  ephemeral = true
}

# Any pack action as a resource: here PostgreSQL from the embedded pack on a
# cluster; the same works for packs from the provider's pack_dirs. Its
# optional object_storage.s3 requirement binds an existing S3 provider for
# the nightly backups: endpoint and bucket as attributes (the bucket reaches
# the jobs as the object_storage.s3.bucket artifact), the keys write-only
# from ephemeral variables, never in plan or state. Bump
# credentials_wo_version when the keys change.
resource "cp_scenario" "orders_db" {
  pack           = "postgresql"
  action         = "install"
  name           = "orders-db"
  cluster_handle = cp_kubernetes_cluster.prod.handle

  parameters = {
    namespace     = "orders"
    backup_bucket = "orders-db-backups"
  }

  candidates = [{
    name                   = "backups"
    provider               = "aws_s3"
    capability             = "object_storage.s3"
    attributes             = { endpoint = "https://s3.eu-central-1.amazonaws.com", bucket = "orders-db-backups", region = "eu-central" }
    access_key_wo          = var.backup_s3_access_key
    secret_key_wo          = var.backup_s3_secret_key
    credentials_wo_version = 1
  }]
}

output "orders_db_operation" {
  value = cp_scenario.orders_db.operation.status
}
