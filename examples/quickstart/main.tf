# Quickstart: the scenario packs the provider embeds and the contract of the
# Kubernetes create template (seed scenario 1: ten stages, each job with its
# contract). `make demo` plans and applies this configuration.
terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  environment = "prod"
}

data "cp_scenario_pack" "kubernetes" {
  id = "kubernetes"
}

data "cp_scenario_pack" "tempo" {
  id = "tempo"
}

locals {
  create = [for t in data.cp_scenario_pack.kubernetes.templates : t if t.action == "create"][0]
}

output "kubernetes_create_template" {
  value = local.create.ref
}

output "kubernetes_create_stages" {
  value = [for s in local.create.stages : "${s.title}: ${join(", ", s.jobs)}"]
}

output "tempo_requires" {
  value = [for r in data.cp_scenario_pack.tempo.requires : r.capability]
}
