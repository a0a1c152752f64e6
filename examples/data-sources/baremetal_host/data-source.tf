data "baremetal_host" "db" {
  name = "db-0"
}

output "db_state" {
  value = data.baremetal_host.db.provisioning_state
}
