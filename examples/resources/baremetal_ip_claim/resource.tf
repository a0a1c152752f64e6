# One address per host of a map, keyed by the map key: adding or removing a
# host never moves another host's address.
variable "hosts" {
  type    = set(string)
  default = ["worker-0", "worker-1", "worker-2"]
}

resource "baremetal_ip_claim" "worker" {
  for_each = var.hosts
  pool     = "r01" # baremetal_ip_pool.r01.name, or a pool of another workspace
  owner    = "cluster-a/${each.key}"
}

output "addresses" {
  # { "worker-0" = "192.168.111.20/24", ... }
  value = { for k, c in baremetal_ip_claim.worker : k => c.cidr }
}
