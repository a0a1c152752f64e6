data "baremetal_host" "db" {
  name = "db-0"
}

output "db_state" {
  value = data.baremetal_host.db.provisioning_state
}

# On an Ironic without node health (before API 1.109, such as 2025.1),
# read the health from the BMC: two Redfish GETs on every plan and apply.
variable "db_bmc_password" {
  type      = string
  sensitive = true
}

data "baremetal_host" "db_health" {
  name            = "db-0"
  health_from_bmc = true
  bmc = {
    address  = "redfish://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.db_bmc_password
  }
}

output "db_health" {
  value = data.baremetal_host.db_health.health # "OK", "Warning" or "Critical"
}
