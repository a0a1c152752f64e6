# Network-boot a host once (a rescue or diagnostics image on the PXE
# server), then let it boot from disk again on the boot after:
#   terraform apply -invoke=action.baremetal_host_boot_once.web1_pxe
action "baremetal_host_boot_once" "web1_pxe" {
  config {
    host_id = baremetal_host.web1.id
    device  = "pxe" # or "cd", "disk"
  }
}
