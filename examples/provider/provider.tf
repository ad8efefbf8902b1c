terraform {
  required_providers {
    cp = {
      source = "intentops/cp"
    }
  }
}

provider "cp" {
  environment = "prod"
  actor       = "ci"
  actor_roles = ["sre"]
  parallelism = 20

  # User scenario packs, added to the embedded ones.
  # pack_dirs = ["${path.module}/packs"]

  ssh = {
    user              = "ubuntu"
    private_key_file  = "~/.ssh/id_ed25519"
    known_hosts_file  = "~/.ssh/known_hosts"
    host_key_checking = "strict"
  }

  # Seed 001 §6: which providers may satisfy object_storage.s3, per environment.
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        dev = {
          allowed_providers = ["shared_minio"]
        }
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
