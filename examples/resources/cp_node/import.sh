# [id@]address[:port] of a host that keeps the resource's intent record
tofu import cp_node.worker_6 prod-k8s/worker-6@10.0.0.26
