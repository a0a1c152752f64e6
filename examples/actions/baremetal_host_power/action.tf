# Power cycle a host whose power no baremetal_host keeps (for example a
# deployed host whose baremetal_host leaves online unset):
#   terraform apply -invoke=action.baremetal_host_power.cycle_web1
action "baremetal_host_power" "cycle_web1" {
  config {
    host_id = "web1" # node name or UUID
    power   = "cycle"
  }
}

action "baremetal_host_power" "off_web1" {
  config {
    host_id = "web1"
    power   = "off"
    mode    = "soft" # Ironic's soft power off, hard when it fails
    timeout = "10m"
  }
}
