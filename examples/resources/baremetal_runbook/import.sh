# Import by the runbook's UUID or name.
terraform import baremetal_runbook.firmware_baseline CUSTOM_FIRMWARE_BASELINE
