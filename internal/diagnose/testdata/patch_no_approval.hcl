  plan_patches = [{
    author = "alice"
    reason = "drop storage"
    changes = [
      { remove = "install-storage" },
    ]
    approval = { required = false, roles = [], approved_by = "" }
  }]
