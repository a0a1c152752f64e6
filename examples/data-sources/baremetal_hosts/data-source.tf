# Every unclaimed, available worker with at least 32 CPUs.
data "baremetal_hosts" "free_workers" {
  provisioning_state = "available"
  claimed            = false
  labels = {
    match_labels = { role = "worker" }
  }
  min_cpus = 32
}

output "free_worker_names" {
  value = data.baremetal_hosts.free_workers.names
}

# Hosts whose BMC reports a failed component (Ironic API 1.109 and later).
data "baremetal_hosts" "critical" {
  health = "Critical"
}

output "critical_hosts" {
  value = data.baremetal_hosts.critical.names
}
