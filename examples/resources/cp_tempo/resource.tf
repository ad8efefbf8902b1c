resource "cp_kubernetes_cluster" "prod" {
  name    = "prod-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [{ name = "worker-1", address = "10.0.0.21" }]
}

# Seed scenario 3: Tempo requires object_storage.s3. Bind an existing S3
# provider, or leave object_storage out and let the provider policy decide:
# a stage environment creates a MinIO sub-operation; prod stops at an
# approval gate until an `approvals` entry with a role from the gate
# approves it.
#
# A bound provider gives its endpoint and bucket, and its keys by
# reference: the names of environment variables exported where
# OpenTofu/Terraform runs (only the names reach plan and state), or
# access_key_wo and secret_key_wo from ephemeral values. On apply the first
# master proves the keys with the aws CLI (the bucket is created when
# absent, an object written and read back) before Tempo gets them in the
# Secret tempo-s3.
resource "cp_tempo" "tracing" {
  name           = "tracing"
  cluster_handle = cp_kubernetes_cluster.prod.handle

  object_storage = {
    name     = "traces-bucket"
    provider = "aws_s3"
    attributes = {
      endpoint    = "https://s3.eu-central-1.amazonaws.com"
      bucket      = "prod-traces"
      region      = "eu-central"
      encryption  = "true"
      capacity_gb = "1000"
    }
    access_key_env = "TRACES_S3_ACCESS_KEY"
    secret_key_env = "TRACES_S3_SECRET_KEY"
  }

  parameters = {
    retention = "336h"
  }
}

output "tracing" {
  value = [for c in cp_tempo.tracing.capabilities : c.attributes if c.key == "observability.tracing"]
}
