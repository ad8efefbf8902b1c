# [id@]address[:port] of a host that keeps the resource's intent record
tofu import cp_kubernetes_cluster.prod prod-k8s@10.0.0.11
