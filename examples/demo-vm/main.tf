# One machine from its BMC address to a booted OS: a host registered by its
# Redfish virtual media address, inspected and cleaned by the real Ironic
# Python Agent, given an address from an IP pool, and deployed with an OS
# whose cloud-init configures that address from network_data.
#
# `DEMO_VM=1 scripts/demo.sh` runs it against a local Ironic and a qemu
# machine behind the project's Redfish BMC simulator (bmcsim -vm-dir); point
# bmc_address and the URLs at a real machine to use it for real.

terraform {
  required_providers {
    baremetal = {
      source = "baremetal-tf/baremetal"
    }
  }
}

provider "baremetal" {}

variable "bmc_address" {
  description = "The machine's BMC, with the virtual media scheme."
  type        = string
  default     = "redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/sys-0"
}

variable "bmc_password" {
  type      = string
  sensitive = true
  default   = "password"
}

variable "deploy_kernel" {
  description = "The agent ramdisk's kernel (scripts/ipa.sh builds one)."
  type        = string
  default     = "http://127.0.0.1:8450/ipa.kernel"
}

variable "deploy_ramdisk" {
  description = "The agent ramdisk's initramfs."
  type        = string
  default     = "http://127.0.0.1:8450/ipa.initramfs"
}

variable "kernel_params" {
  description = "The agent's kernel command line; the demo's machine needs its serial console and the port its agent answers on."
  type        = string
  default     = "%default% console=ttyS0,115200 ipa-advertise-host=127.0.0.1 ipa-advertise-port=41000"
}

variable "image_url" {
  description = "The OS image (scripts/osimage.sh builds a small Debian with cloud-init), which the agent downloads: on the demo's rig, baremetal-rig is the host as both Ironic and the agent's ramdisk see it."
  type        = string
  default     = "http://baremetal-rig:8450/os.qcow2"
}

variable "image_sha256" {
  description = "The image's sha256, which the agent checks after the download."
  type        = string
}

resource "baremetal_ip_pool" "demo" {
  name    = "demo-vm"
  prefix  = 24
  gateway = "10.96.0.1"
  ranges  = [{ start = "10.96.0.10", end = "10.96.0.19" }]
}

resource "baremetal_host" "vm" {
  name = "demo-vm-0"
  bmc = {
    address  = var.bmc_address
    username = "admin"
    password = var.bmc_password
  }
  # SeaBIOS: Ironic builds an isolinux ISO of the agent.
  boot_mode = "legacy"
  deploy_image = {
    kernel        = var.deploy_kernel
    ramdisk       = var.deploy_ramdisk
    kernel_params = var.kernel_params
  }
}

data "baremetal_hardware" "vm" {
  host_id = baremetal_host.vm.id
}

resource "baremetal_ip_claim" "vm" {
  pool  = baremetal_ip_pool.demo.name
  owner = baremetal_host.vm.name
}

data "baremetal_network_data" "vm" {
  host_id = baremetal_host.vm.id
  nics    = data.baremetal_hardware.vm.nic_macs
  links = {
    ethernets = [for name, mac in data.baremetal_hardware.vm.nic_macs : { id = name, from_host_interface = name }]
  }
  networks = {
    ipv4 = [for name, mac in data.baremetal_hardware.vm.nic_macs : {
      id      = "ipv4-${name}"
      link    = name
      address = baremetal_ip_claim.vm.address
      prefix  = baremetal_ip_claim.vm.prefix
      gateway = baremetal_ip_claim.vm.gateway
    }]
  }
}

resource "baremetal_deployment" "vm" {
  host_id = baremetal_host.vm.id
  image = {
    url           = var.image_url
    checksum      = var.image_sha256
    checksum_type = "sha256"
    format        = "qcow2"
  }
  user_data    = "#cloud-config\nhostname: ${baremetal_host.vm.name}\n"
  network_data = data.baremetal_network_data.vm.json
}

output "inventory" {
  value = {
    cpu    = data.baremetal_hardware.vm.cpu.model
    ram    = data.baremetal_hardware.vm.ram_mebibytes
    disks  = [for d in data.baremetal_hardware.vm.storage : "${d.name} ${d.size_bytes}"]
    nics   = data.baremetal_hardware.vm.nic_macs
    vendor = data.baremetal_hardware.vm.system_vendor.manufacturer
  }
}

output "address" {
  value = baremetal_ip_claim.vm.cidr
}
