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

# NIC name => MAC (nics lists a dual-stack NIC once per IP family).
output "nics" {
  value = data.baremetal_hardware.worker.nic_macs
}

# The switch port each NIC is cabled to, from the LLDP the host's in-band
# inspection heard (lldp is null on a NIC that heard no switch).
output "switch_ports" {
  value = {
    for name in keys(data.baremetal_hardware.worker.nic_macs) : name => one(distinct([
      for nic in data.baremetal_hardware.worker.nics : {
        switch = nic.lldp.switch_system_name
        port   = nic.lldp.switch_port_id
        vlans  = nic.lldp.vlan_ids
      } if nic.name == name && nic.lldp != null
    ]))
  }
}
