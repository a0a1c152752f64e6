# BIOS settings of one host, checked against the host's BIOS schema at plan
# time and applied by Ironic's bios.apply_configuration clean step (only the
# values that differ are sent).
resource "baremetal_firmware_settings" "worker" {
  host_id = baremetal_host.worker.id

  settings = {
    BootMode      = "Uefi"
    NumLock       = "Off"
    PxeRetryCount = "5"
  }

  # Reset the BIOS to factory defaults when this resource is destroyed.
  reset_on_destroy = true
}

# BMO's vendor-neutral switches, mapped to the vendor's attribute names
# (here an iDRAC: ProcVirtualization, LogicalProc, SriovGlobalEnable).
resource "baremetal_firmware_settings" "dell" {
  host_id = baremetal_host.dell.id

  firmware = {
    virtualization_enabled              = true
    simultaneous_multithreading_enabled = false
    sriov_enabled                       = true
  }
}

# Where Ironic's BIOS interface reports no schema, the BMC's Redfish
# attribute registry can be read instead.
resource "baremetal_firmware_settings" "redfish" {
  host_id  = baremetal_host.redfish.id
  settings = { ProcVirtualization = "Enabled" }

  bmc = {
    address  = "redfish://10.0.0.7/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}
