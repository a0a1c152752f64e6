# A reusable Metal3-style cluster: a pool of hosts registered by BMC
# address, claims by role, a static address per machine from an IP pool,
# network data rendered from inspected NICs, and deployments. Hosts stay in
# the pool when machines are removed; a removed machine's address goes
# back to the IP pool.

locals {
  # One entry per machine: "worker-0" => { role = "worker", index = 0 }.
  machines = merge([
    for role, r in var.roles : {
      for i in range(r.count) : "${role}-${i}" => { role = role, index = i, spec = r }
    }
  ]...)
  address = { for key, ip in baremetal_ip_claim.machine : key => ip.address }
}

# One address per machine from the IP pool, keyed by the machine's key: a
# machine keeps its address whatever other machines come and go, and other
# clusters (workspaces) drawing from the same pool never get it.
resource "baremetal_ip_claim" "machine" {
  for_each = local.machines

  pool  = var.network.pool
  owner = "${var.name}/${each.key}"
}

resource "baremetal_host" "pool" {
  for_each = var.hosts

  name             = each.key
  labels           = merge(each.value.labels, { role = each.value.role, pool = var.name })
  boot_mac_address = each.value.boot_mac_address
  driver           = var.driver
  interfaces       = var.interfaces

  bmc = {
    address  = each.value.bmc_address
    username = var.bmc_username
    password = var.bmc_password
  }
}

resource "baremetal_host_claim" "machine" {
  for_each = local.machines

  name = "${var.name}-${each.key}"
  labels = {
    match_labels = { role = each.value.role, pool = var.name }
  }
  min_cpus          = each.value.spec.min_cpus
  min_ram_mebibytes = each.value.spec.min_ram_mebibytes
  spread_label      = "rack"

  depends_on = [baremetal_host.pool]
}

data "baremetal_hardware" "machine" {
  for_each = local.machines

  host_id = baremetal_host_claim.machine[each.key].host_id
  bmc = {
    address  = var.hosts[baremetal_host_claim.machine[each.key].host_name].bmc_address
    username = var.bmc_username
    password = var.bmc_password
  }
}

data "baremetal_network_data" "machine" {
  for_each = local.machines

  host_id = baremetal_host_claim.machine[each.key].host_id
  nics    = data.baremetal_hardware.machine[each.key].nic_macs

  links = {
    ethernets = [{ id = var.network.link, from_host_interface = var.network.interface }]
  }
  networks = {
    ipv4 = [{
      id      = "${var.name}-net"
      link    = var.network.link
      address = baremetal_ip_claim.machine[each.key].cidr
      gateway = baremetal_ip_claim.machine[each.key].gateway
      dns     = baremetal_ip_claim.machine[each.key].dns_servers
    }]
  }
}

resource "baremetal_deployment" "machine" {
  for_each = local.machines

  host_id = baremetal_host_claim.machine[each.key].host_id
  image   = var.image
  user_data = replace(replace(
    lookup(var.user_data, each.value.role, "#cloud-config\nhostname: {{hostname}}\n"),
  "{{hostname}}", baremetal_host_claim.machine[each.key].host_name), "{{address}}", local.address[each.key])
  network_data = data.baremetal_network_data.machine[each.key].json
}
