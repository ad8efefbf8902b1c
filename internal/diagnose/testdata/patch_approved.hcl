  plan_patches = [{
    id     = "p-2"
    author = "alice"
    reason = "retry after fixing DNS by hand"
    changes = [
      { retry = "join-worker" },
    ]
    approval = { required = true, roles = ["sre"], approved_by = "bob" }
  }]
