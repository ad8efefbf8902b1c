  plan_patches = [{
    author = "analyzer:gpt-4o"
    reason = "Quote \"x\", path C:\\tmp, tab\there\nnext line $${var.secret} %%{ if true }x%%{ endif } $$${already} 100% $HOME \u0001 é"
    changes = [
      {
        # job custom is defined inline, which plan_patches cannot express; it was left out
        # jobs set different values for registry_mirrors; the first one is kept
        insert_after = "install-container-runtime"
        jobs         = ["configure-containerd-registry-mirror", "custom"]
        parameters   = { "mirrored.registries" = "docker.io", registry_mirrors = "https://a.example/$${x}" }
      },
      { remove = "install-storage" },
      { retry = "join-workers" },
    ]
    approval = { required = true, roles = ["sre", "platform_admin"], approved_by = "" }   # fill approved_by to approve
  }]
