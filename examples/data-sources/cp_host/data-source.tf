# Facts of a host before it joins a cluster.
data "cp_host" "candidate" {
  address = "10.0.0.26"
}

output "candidate" {
  value = "${data.cp_host.candidate.os_name} ${data.cp_host.candidate.arch}, ${data.cp_host.candidate.cpus} CPUs, ${data.cp_host.candidate.memory_mb} MiB"
}
