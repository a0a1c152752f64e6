# The deployments of the active nodes whose name starts with "db-", for
# `terraform query` (Terraform 1.14 and later).
list "baremetal_deployment" "db" {
  provider = baremetal

  config {
    name_prefix = "db-"
  }
}
