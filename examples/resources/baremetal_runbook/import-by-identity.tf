# Import by identity (Terraform 1.12 and later): the runbook's UUID.
import {
  to = baremetal_runbook.firmware_baseline
  identity = {
    id = "9a4bb1c6-65f4-4c8a-8f0b-8d7b6f3c2a10"
  }
}
