# Seed scenario 3: Tempo requires object_storage.s3 and does not care that
# it may be MinIO. The same intent resolves differently per environment:
#   stage - no existing provider matches, policy allows creating a dedicated
#           MinIO: the plan nests the MinIO install as a sub-operation ahead
#           of "create bucket and credentials" and "deploy Tempo";
#   prod  - creating a provider requires approval: the plan stops at an
#           approval gate whose options and roles it shows.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        stage = {
          allowed_providers = ["shared_minio", "dedicated_minio"]
          default_provider  = "shared_minio"
        }
        prod = {
          allowed_providers  = ["aws_s3", "dedicated_minio"]
          require_encryption = true
          require_approval   = true
          approval_roles     = ["sre", "platform_admin"]
        }
      }
    }
  }
}

locals {
  # Capabilities the Kubernetes cluster exports (a cp_kubernetes_cluster
  # resource hands these over through its handle).
  cluster_candidates = [
    { name = "prod-k8s", provider = "cp_kubernetes_cluster", capability = "kubernetes.cluster", attributes = { region = "eu-central" } },
    { name = "prod-k8s-secrets", provider = "kubernetes_secrets", capability = "secret.store" },
  ]
}

data "cp_plan" "tempo" {
  for_each = toset(["stage", "prod"])

  pack            = "tempo"
  action          = "install"
  name            = "tracing-${each.key}"
  environment     = each.key
  hosts           = [{ name = "master-1", address = "10.0.0.11", role = "master" }]
  constraints     = { region = "eu-central" }
  candidates      = local.cluster_candidates
  state_artifacts = [{ id = "kubeconfig.admin" }]
}

output "stage_simple_view" {
  value = data.cp_plan.tempo["stage"].summary
}

output "stage_sub_operations" {
  value = [for s in data.cp_plan.tempo["stage"].sub_operations : "${s.template}: ${s.reason}"]
}

output "prod_gate" {
  value = [for g in data.cp_plan.tempo["prod"].gates : "${g.id} (${g.type}): ${g.reason}; options: ${join(" | ", g.options)}; roles: ${join(", ", g.required_roles)}"]
}
