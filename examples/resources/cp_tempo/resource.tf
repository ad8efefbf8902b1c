resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

# Seed scenario 3: Tempo requires object_storage.s3. Bind an existing S3
# bucket, or leave it out and let the provider policy decide: a stage
# environment creates a MinIO sub-operation; prod stops at an approval gate
# until an `approvals` entry with a role from the gate approves it.
resource "cp_tempo" "tracing" {
  name           = "tracing"
  cluster_handle = cp_kubernetes_cluster.prod.handle

  object_storage = {
    name       = "traces-bucket"
    provider   = "aws_s3"
    attributes = { region = "eu-central", encryption = "true", capacity_gb = "1000" }
  }

  parameters = {
    retention = "336h"
  }
}

output "tracing" {
  value = [for c in cp_tempo.tracing.capabilities : c.attributes if c.key == "observability.tracing"]
}
