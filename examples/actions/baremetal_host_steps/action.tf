# Wipe the disks' metadata and the RAID configuration of an available host
# (manual clean steps):
#   terraform apply -invoke=action.baremetal_host_steps.wipe_web1
action "baremetal_host_steps" "wipe_web1" {
  config {
    host_id = baremetal_host.web1.id
    steps = [
      { interface = "raid", step = "delete_configuration" },
      { interface = "deploy", step = "erase_devices_metadata" },
    ]
  }
}

# On a deployed host the same action runs service steps (Ironic API 1.87+),
# here a BIOS change that keeps the host provisioned.
action "baremetal_host_steps" "bios_web2" {
  config {
    host_id = baremetal_deployment.web2.id
    steps = [{
      interface = "bios"
      step      = "apply_configuration"
      args = jsonencode({
        settings = [{ name = "ProcTurboMode", value = "Disabled" }]
      })
    }]
  }
}

# Or a runbook by name (a baremetal_runbook; the host's traits must include
# its name).
action "baremetal_host_steps" "baseline_web3" {
  config {
    host_id = baremetal_host.web3.id
    runbook = baremetal_runbook.firmware_baseline.name
  }
}
