output "machines" {
  description = "Every deployed machine by key (`worker-0`): host name, role, address, boot MAC, Ironic node UUID and provider id."
  value = {
    for key, m in local.machines : key => {
      name        = baremetal_host_claim.machine[key].host_name
      role        = m.role
      address     = local.address[key]
      mac         = try([for nic in data.baremetal_hardware.machine[key].nics : nic.mac if nic.name == var.network.interface][0], null)
      node_id     = baremetal_deployment.machine[key].id
      provider_id = baremetal_deployment.machine[key].provider_id
    }
  }
}

output "kubernetes_nodes" {
  description = "For a Kubernetes module: per role, the nodes' names, addresses and provider ids (`spec.providerID`)."
  value = {
    for role in keys(var.roles) : role => [
      for key, m in local.machines : {
        name        = baremetal_host_claim.machine[key].host_name
        address     = local.address[key]
        provider_id = baremetal_deployment.machine[key].provider_id
      } if m.role == role
    ]
  }
}

output "dns_records" {
  description = "For a DNS module: host name => IPv4 address of every deployed machine (A records)."
  value       = { for key in keys(local.machines) : baremetal_host_claim.machine[key].host_name => local.address[key] }
}

output "pool" {
  description = "Every host of the pool: name => Ironic node UUID, deployed or not."
  value       = { for name, h in baremetal_host.pool : name => h.id }
}
