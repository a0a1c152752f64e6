# A fleet of fake-hardware hosts in one configuration, for measuring wall
# time and Ironic requests at scale (scripts/bench.sh).
terraform {
  required_providers {
    baremetal = {
      source = "baremetal-tf/baremetal"
    }
  }
}

provider "baremetal" {}

variable "hosts" {
  type    = number
  default = 20
}

# The host whose labels the bench's "plan with one change" changes (-1:
# none).
variable "changed" {
  type    = number
  default = -1
}

resource "baremetal_host" "fleet" {
  count = var.hosts

  name        = "fleet-${count.index}"
  driver      = "fake-hardware"
  driver_info = {}
  labels      = count.index == var.changed ? { pool = "fleet", changed = "yes" } : { pool = "fleet" }
  # Powered on at apply and off at destroy, like the floor (bench/floor).
  online = true
}
