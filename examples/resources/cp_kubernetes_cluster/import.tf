import {
  to = cp_kubernetes_cluster.prod
  id = "prod-k8s@10.0.0.11"
}
