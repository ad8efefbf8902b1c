# Resolve object_storage.s3 for a workload in eu-central under the provider
# policy: each candidate comes back accepted or rejected with reasons.
data "cp_capability" "s3" {
  capability = "object_storage.s3"
  constraints = {
    region          = "same-as-workload"
    encryption      = "required"
    min_capacity_gb = "500"
  }
  workload = { region = "eu-central" }

  candidates = [
    { name = "archive", provider = "aws_s3", capability = "object_storage.s3", attributes = { region = "eu-west", encryption = "true", capacity_gb = "2000" } },
    { name = "traces", provider = "aws_s3", capability = "object_storage.s3", attributes = { region = "eu-central", encryption = "true", capacity_gb = "1000" } },
  ]
}

output "s3_decision" {
  value = "${data.cp_capability.s3.decision} ${data.cp_capability.s3.selected_provider}: ${data.cp_capability.s3.reason}"
}

output "s3_considered" {
  value = { for c in data.cp_capability.s3.considered : c.name => c.reasons }
}
