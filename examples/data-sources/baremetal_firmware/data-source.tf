# Firmware components and versions of a host. Ironic's firmware API (1.86+)
# is used when it lists components; otherwise the BMC's Redfish firmware
# inventory, for which the BMC credentials are needed (Ironic masks them).
data "baremetal_firmware" "worker" {
  host_id = baremetal_host.worker.id

  bmc = {
    address  = "redfish://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}

output "bios_version" {
  value = data.baremetal_firmware.worker.bios_version
}
