# Calls the observability-platform module (examples/modules) once per
# environment: a cluster with Tempo, object storage for traces resolved
# under the provider policy. The provider block, with the environment and
# the policy, is the caller's.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  environment = "stage"
  actor       = "ci"
  actor_roles = ["sre"]

  ssh = {
    user             = "ubuntu"
    private_key_file = "~/.ssh/id_ed25519"
  }
}

module "stage" {
  source = "../modules/observability-platform"

  name    = "stage-k8s"
  region  = "eu-central"
  masters = [{ name = "master-1", address = "10.0.0.11" }]
  workers = [
    { name = "worker-1", address = "10.0.0.21" },
    { name = "worker-2", address = "10.0.0.22" },
  ]
}

output "s3_decision" {
  value = module.stage.s3_decision
}
