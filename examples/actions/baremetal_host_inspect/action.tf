# Inspect an available host again after a hardware change:
#   terraform apply -invoke=action.baremetal_host_inspect.web1
action "baremetal_host_inspect" "web1" {
  config {
    host_id = baremetal_host.web1.id
    timeout = "45m"
  }
}
