import {
  to = cp_node.worker_6
  id = "prod-k8s/worker-6@10.0.0.26"
}
