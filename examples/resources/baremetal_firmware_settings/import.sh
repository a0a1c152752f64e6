# Import the firmware settings of a host by its node name or UUID. The
# settings map starts empty (every current value shows in `current`); add
# the settings to manage to the configuration.
terraform import baremetal_firmware_settings.worker worker-0
