terraform {
  required_version = ">= 1.8"
  required_providers {
    baremetal = {
      source = "baremetal-tf/baremetal"
    }
  }
}
