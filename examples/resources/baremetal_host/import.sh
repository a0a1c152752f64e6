# Import by Ironic node name or UUID.
terraform import baremetal_host.worker worker-0
