# Rack r01's provisioning network: two ranges, the gateway and DNS servers
# every claim gets, and one address kept for the bastion. The pool lives
# in Ironic, so other workspaces (other clusters) claim from it by name.
resource "baremetal_ip_pool" "r01" {
  name        = "r01"
  prefix      = 24
  gateway     = "192.168.111.1"
  dns_servers = ["192.168.111.53", "192.168.111.54"]

  ranges = [
    { start = "192.168.111.20", end = "192.168.111.99" },
    { subnet = "192.168.111.128/26", exclude = ["192.168.111.150", "192.168.111.160/30"] },
  ]

  pre_allocations = {
    "bastion" = "192.168.111.10"
  }
}

# An IPv6 pool: a /64's first addresses.
resource "baremetal_ip_pool" "r01_v6" {
  name    = "r01-v6"
  prefix  = 64
  gateway = "fd00:111::1"
  ranges  = [{ subnet = "fd00:111::/120" }]
}
