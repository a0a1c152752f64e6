# Reboot a host on demand, with no change to the configuration:
#   terraform apply -invoke=action.baremetal_host_reboot.web1
action "baremetal_host_reboot" "web1" {
  config {
    host_id = baremetal_host.web1.id
    mode    = "soft" # the default; "hard" cuts the power
  }
}

# Or reboot it whenever its BIOS settings change (Terraform 1.14.1+).
resource "baremetal_firmware_settings" "web1" {
  host_id = baremetal_host.web1.id
  settings = {
    ProcVirtualization = "Enabled"
  }

  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.baremetal_host_reboot.web1]
    }
  }
}
