# Claim one available worker with an SSD-era amount of memory, spreading
# claims over racks. Ironic allocations make the claim atomic: two claims
# never get the same host, even from different workspaces.
resource "baremetal_host_claim" "worker" {
  name = "k8s-worker-0"

  labels = {
    match_labels = { role = "worker" }
    match_expressions = [
      { key = "rack", operator = "In", values = ["r1", "r2"] },
      { key = "decommissioning", operator = "DoesNotExist" },
    ]
  }
  resource_class    = "baremetal"
  min_cpus          = 16
  min_ram_mebibytes = 65536
  spread_label      = "rack"
}

output "claimed_host" {
  value = baremetal_host_claim.worker.host_name
}
