# Restart a hung BMC (the machine keeps running):
#   terraform apply -invoke=action.baremetal_bmc_reset.web1
variable "bmc_password" {
  type      = string
  sensitive = true
}

action "baremetal_bmc_reset" "web1" {
  config {
    host_id = baremetal_host.web1.id
    bmc = {
      address  = "idrac-redfish://10.0.0.21/redfish/v1/Systems/System.Embedded.1"
      username = "root"
      password = var.bmc_password
    }
    reset_type = "GracefulRestart" # or "ForceRestart"
  }
}
