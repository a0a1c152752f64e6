# The nodes of rack r01 that no baremetal_host created, for
# `terraform query` (Terraform 1.14 and later); with
# `terraform query -generate-config-out=hosts.tf` Terraform writes a
# baremetal_host and an import block by identity for each.
list "baremetal_host" "r01" {
  provider = baremetal
  limit    = 500

  config {
    labels         = { rack = "r01" }
    resource_class = "baremetal"
    unmanaged      = true
  }
}
