# Inspected hardware of a host. Give the BMC credentials to read it over
# Redfish when Ironic holds no inventory (Ironic masks stored passwords).
data "baremetal_hardware" "worker" {
  host_id = baremetal_host_claim.worker.host_id

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}

output "nics" {
  value = { for nic in data.baremetal_hardware.worker.nics : nic.name => nic.mac }
}

# The switch port each NIC is cabled to, from the LLDP the host's in-band
# inspection heard (lldp is null on a NIC that heard no switch).
output "switch_ports" {
  value = {
    for nic in data.baremetal_hardware.worker.nics : nic.name => {
      switch = nic.lldp.switch_system_name
      port   = nic.lldp.switch_port_id
      vlans  = nic.lldp.vlan_ids
    } if nic.lldp != null
  }
}
