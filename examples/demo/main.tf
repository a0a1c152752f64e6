# The Metal3 composition in Terraform: a pool of hosts registered by BMC
# address, with their BIOS settings applied and BIOS firmware updated, two of them claimed by label, their network data rendered from
# the NICs inspection found, and an image deployed with cloud-init.
#
# scripts/demo.sh runs it against a local Ironic and the project's Redfish
# BMC simulator; point bmc_base at real BMCs to use it for real.

terraform {
  required_providers {
    baremetal = {
      source = "baremetal-tf/baremetal"
    }
  }
}

provider "baremetal" {}

variable "bmc_base" {
  description = "Redfish service of the BMCs; system N is <bmc_base>/redfish/v1/Systems/sys-N."
  type        = string
  default     = "redfish+http://127.0.0.1:8000"
}

variable "bmc_password" {
  type      = string
  sensitive = true
  default   = "password"
}

variable "image_url" {
  description = "The image every worker gets (scripts/demo.sh serves a qcow2 it makes with qemu-img)."
  type        = string
  default     = "http://127.0.0.1:8450/demo.qcow2"
}

variable "image_sha256" {
  description = "The image's sha256, which the agent checks after the download."
  type        = string
  default     = "0000000000000000000000000000000000000000000000000000000000000000"
}

variable "bios_image_url" {
  description = "The BIOS image every pool host is updated to (the simulator does not fetch it)."
  type        = string
  default     = "http://127.0.0.1:8450/bios-2.20.0.bin"
}

variable "pool_size" {
  type    = number
  default = 3
}

variable "workers" {
  type    = number
  default = 2
}

locals {
  bmc = { for i in range(var.pool_size) : "demo-${i}" => "${var.bmc_base}/redfish/v1/Systems/sys-${i}" }
}

resource "baremetal_host" "pool" {
  for_each = local.bmc

  name   = each.key
  labels = { role = "worker", rack = "r1" }

  bmc = {
    address  = each.value
    username = "admin"
    password = var.bmc_password
  }

  # Redfish power, management, inspection and BIOS talk to the BMC; deploy
  # "direct" runs cleaning and the image write on the agent ramdisk (on the
  # simulator, each system boots a simulated agent when it powers on; boot
  # stays "fake" since nothing needs to be PXE- or media-booted there).
  driver = "fake-hardware"
  interfaces = {
    boot       = "fake"
    deploy     = "direct"
    power      = "redfish"
    management = "redfish"
    inspect    = "redfish"
    bios       = "redfish"
    raid       = "agent"
    vendor     = "fake"
  }
}

# BIOS settings of every pool host (BMO's HostFirmwareSettings), applied by
# Ironic's bios.apply_configuration in a manual clean before the hosts can be
# claimed: checked against the BMC's attribute registry at plan time, set
# through Redfish, and applied when the host reboots into the agent.
resource "baremetal_firmware_settings" "pool" {
  for_each = baremetal_host.pool

  host_id = each.value.id
  settings = {
    BootMode           = "Uefi"
    ProcVirtualization = "Enabled"
  }
}

# A firmware update of every pool host (BMO's HostFirmwareComponents
# updates): the BIOS from an image URL. Ironic 21.4 has no firmware API
# (1.86+), so it goes through each BMC's Redfish UpdateService, with the
# node in maintenance meanwhile; the simulator installs the version the URL
# names.
resource "baremetal_firmware_update" "pool" {
  for_each = baremetal_host.pool

  host_id = each.value.id
  bmc = {
    address  = local.bmc[each.key]
    username = "admin"
    password = var.bmc_password
  }
  updates = [{ component = "bios", url = var.bios_image_url }]

  depends_on = [baremetal_firmware_settings.pool]
}

resource "baremetal_host_claim" "worker" {
  count = var.workers

  name = "demo-worker-${count.index}"
  labels = {
    match_labels = { role = "worker" }
  }
  min_cpus = 8

  depends_on = [baremetal_firmware_settings.pool, baremetal_firmware_update.pool]
}

data "baremetal_hardware" "worker" {
  count = var.workers

  host_id = baremetal_host_claim.worker[count.index].host_id
  bmc = {
    address  = local.bmc[baremetal_host_claim.worker[count.index].host_name]
    username = "admin"
    password = var.bmc_password
  }
}

data "baremetal_network_data" "worker" {
  count = var.workers

  host_id = baremetal_host_claim.worker[count.index].host_id
  nics    = data.baremetal_hardware.worker[count.index].nic_macs

  links = {
    ethernets = [{ id = "enp1s0", from_host_interface = "eno1" }]
  }
  networks = {
    ipv4 = [{
      id      = "provisioning"
      link    = "enp1s0"
      address = cidrhost("192.0.2.0/24", 10 + count.index)
      prefix  = 24
      gateway = "192.0.2.1"
    }]
  }
  services = {
    dns = ["192.0.2.53"]
  }
}

resource "baremetal_deployment" "worker" {
  count = var.workers

  host_id = baremetal_host_claim.worker[count.index].host_id
  image = {
    url           = var.image_url
    checksum      = var.image_sha256
    checksum_type = "sha256"
    format        = "qcow2"
  }
  user_data    = "#cloud-config\nhostname: ${baremetal_host_claim.worker[count.index].host_name}\n"
  network_data = data.baremetal_network_data.worker[count.index].json
}

output "workers" {
  description = "What other modules consume: name, boot MAC, provider id and network data of each deployed worker."
  value = [for i in range(var.workers) : {
    name         = baremetal_host_claim.worker[i].host_name
    mac          = [for nic in data.baremetal_hardware.worker[i].nics : nic.mac if nic.name == "eno1"][0]
    provider_id  = baremetal_deployment.worker[i].provider_id
    network_data = data.baremetal_network_data.worker[i].json
  }]
}

output "pool" {
  description = "Every host of the pool: name and Ironic node UUID."
  value       = [for name, h in baremetal_host.pool : { name = name, id = h.id }]
}
