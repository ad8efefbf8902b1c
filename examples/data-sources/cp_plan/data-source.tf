# Seed scenario 3: Tempo requires object_storage.s3. With no existing S3
# provider, a stage policy creates a dedicated MinIO as a sub-operation
# shown in the plan ahead of the Tempo deployment.
data "cp_plan" "tempo_stage" {
  pack        = "tempo"
  action      = "install"
  name        = "tracing"
  environment = "stage"
  hosts       = [{ name = "master-1", address = "10.0.0.11", role = "master" }]
  constraints = { region = "eu-central" }

  candidates = [
    { name = "prod-k8s", provider = "cp_kubernetes_cluster", capability = "kubernetes.cluster", attributes = { region = "eu-central" } },
    { name = "k8s-secrets", provider = "kubernetes_secrets", capability = "secret.store" },
  ]
  # What the bound cluster's state hands over (a cp_kubernetes_cluster
  # resource passes it through its handle).
  state_artifacts = [{ id = "kubeconfig.admin" }]
}

# Seed scenario 2: adding a worker when the cluster's join token expired
# inserts generate-join-token, and the plan says why.
data "cp_plan" "add_worker" {
  pack    = "kubernetes"
  action  = "add_node"
  name    = "prod-k8s"
  targets = ["worker-6"]
  hosts = [
    { name = "master-1", address = "10.0.0.11", role = "master" },
    { name = "worker-6", address = "10.0.0.26", role = "worker" },
  ]
  state_capabilities = ["kubernetes.api"]
  state_artifacts = [
    { id = "kubeconfig.admin" },
    { id = "kubeadm.join_token", expires_at = "2026-01-01T00:00:00Z" },
  ]
}

output "tempo_stage_plan" {
  value = data.cp_plan.tempo_stage.advanced
}

output "add_worker_inserted" {
  value = [for i in data.cp_plan.add_worker.instances : "${i.id}: ${i.because}" if i.origin == "inserted"]
}
