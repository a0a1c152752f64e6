# Firmware components and versions of a host. Ironic's firmware API (1.86+)
# is used when it lists components; otherwise the BMC's Redfish firmware
# inventory, for which the BMC credentials are needed (Ironic masks them):
# here the host's own bmc block, a Redfish address with its password.
data "baremetal_firmware" "worker" {
  host_id = baremetal_host.worker.id
  bmc     = baremetal_host.worker.bmc
}

output "bios_version" {
  value = data.baremetal_firmware.worker.bios_version
}
