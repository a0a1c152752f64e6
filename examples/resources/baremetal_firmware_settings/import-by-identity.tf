# Import by identity (Terraform 1.12 and later): the host's Ironic node UUID.
import {
  to = baremetal_firmware_settings.worker
  identity = {
    id = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
  }
}
