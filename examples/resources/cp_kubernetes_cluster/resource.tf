resource "cp_kubernetes_cluster" "prod" {
  name                     = "prod-k8s"
  environment              = "prod"
  region                   = "eu-central"
  require_ha_control_plane = true
  cni                      = "calico"
  container_runtime        = "containerd"
  storage                  = "longhorn"
  kubernetes_version       = "1.34.2"
  registry_mirrors         = ["https://mirror.internal.example:5000"]
  deletion_protection      = true

  # Several masters need a stable API endpoint: a load balancer or virtual
  # IP forwarding to port 6443 of every master (kubeadm's
  # controlPlaneEndpoint). Adding a master later plans add_master; changing
  # the endpoint replaces the cluster.
  parameters = {
    control_plane_endpoint = "api.prod-k8s.internal.example:6443"
  }

  masters = [
    { name = "master-1", address = "10.0.0.11" },
    { name = "master-2", address = "10.0.0.12" },
    { name = "master-3", address = "10.0.0.13" },
  ]
  workers = [
    { name = "worker-1", address = "10.0.0.21", labels = { "node.kubernetes.io/pool" = "general" } },
    { name = "worker-2", address = "10.0.0.22" },
    { name = "worker-3", address = "10.0.0.23", taints = ["dedicated=infra:NoSchedule"] },
  ]

  # Seed 000 §6: a fork of the template, stored as its difference.
  customizations = {
    base_template = "kubernetes.create@1.0.0"
    changes = [
      { inserted = "configure-registry-mirror", after = "install-container-runtime" },
      { inserted = "pre-pull-images", after = "configure-registry-mirror" },
    ]
  }

  timeouts = {
    create = "90m"
  }
}

output "cluster_plan" {
  value = cp_kubernetes_cluster.prod.plan_summary
}
