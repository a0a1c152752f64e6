# A firmware baseline as a runbook: BIOS settings, then a BMC firmware
# update. A host runs it only when its traits include the runbook's name.
resource "baremetal_runbook" "firmware_baseline" {
  name = "CUSTOM_FIRMWARE_BASELINE"

  steps = [
    {
      interface = "bios"
      step      = "apply_configuration"
      args = jsonencode({
        settings = [{ name = "ProcVirtualization", value = "Enabled" }]
      })
    },
    {
      interface = "firmware"
      step      = "update"
      order     = 10
      args = jsonencode({
        settings = [{ component = "bmc", url = "http://images.example.com/bmc-5.10.bin" }]
      })
    },
  ]

  extra = { owner_team = "infra" }
}

# The hosts approved for it carry the trait of its name.
resource "baremetal_host" "web1" {
  name             = "web-1"
  boot_mac_address = "52:54:00:12:34:56"
  traits           = [baremetal_runbook.firmware_baseline.name]

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}

# Run it on web-1 (manual cleaning when the host is available):
#   terraform apply -invoke=action.baremetal_host_steps.baseline_web1
action "baremetal_host_steps" "baseline_web1" {
  config {
    host_id = baremetal_host.web1.id
    runbook = baremetal_runbook.firmware_baseline.name
  }
}
