# Update the BIOS and the BMC of one host from image URLs. With Ironic's
# firmware API (API 1.86+) this runs Ironic's firmware.update step; with an
# older Ironic (21.4 offers 1.82) it goes through the BMC's Redfish
# UpdateService, with the node in maintenance for the duration, so the BMC
# credentials are needed.
resource "baremetal_firmware_update" "worker" {
  host_id = baremetal_host.worker.id

  updates = [
    {
      component = "bios"
      url       = "https://firmware.example.com/worker/bios-2.19.1.bin"
      # Checked by the provider (it downloads the image) before the update.
      checksum = "sha256:8d2b4c5e3f1a09b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3"
    },
    {
      component = "bmc"
      url       = "https://firmware.example.com/worker/bmc-7.10.30.bin"
    },
  ]

  bmc = {
    address  = "redfish://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}

# The versions afterwards, as Ironic or the BMC reports them.
output "worker_bios_version" {
  value = baremetal_firmware_update.worker.versions["bios"]
}
