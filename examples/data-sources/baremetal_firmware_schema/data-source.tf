# The BIOS settings a host has, with their types and limits: from Ironic's
# registry (bios interface "redfish", API 1.74+) when it has one, else from
# the BMC's Redfish AttributeRegistry (the BMC credentials are needed then:
# Ironic masks them; here the host's own bmc block).
data "baremetal_firmware_schema" "worker" {
  host_id = baremetal_host.worker.id
  bmc     = baremetal_host.worker.bmc
}

# The settings that can be changed, with the values each one accepts.
output "settable_bios_settings" {
  value = {
    for name, a in data.baremetal_firmware_schema.worker.attributes : name => (
      a.type == "Enumeration" ? join("|", a.allowable_values) : a.type
    ) if !a.read_only
  }
}
