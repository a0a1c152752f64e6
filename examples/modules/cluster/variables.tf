variable "name" {
  description = "Cluster name: prefixes claim names and labels the pool's hosts (label `pool`)."
  type        = string
}

variable "hosts" {
  description = "The pool: host name => BMC address, role label and extra labels. Every host is registered, inspected and left available."
  type = map(object({
    bmc_address      = string
    role             = string
    labels           = optional(map(string), {})
    boot_mac_address = optional(string)
  }))
}

variable "bmc_username" {
  description = "BMC user name of every host."
  type        = string
}

variable "bmc_password" {
  description = "BMC password of every host."
  type        = string
  sensitive   = true
}

variable "driver" {
  description = "Raw Ironic driver for every host (e.g. `fake-hardware` for a test rig); null: the driver the BMC address implies."
  type        = string
  default     = null
}

variable "interfaces" {
  description = "Ironic interface overrides for every host (e.g. `{ deploy = \"ramdisk\" }`); null: none."
  type        = map(string)
  default     = null
}

variable "roles" {
  description = "Machines to deploy per role: how many hosts to claim from the pool hosts with that role label, and hardware minimums."
  type = map(object({
    count             = number
    min_cpus          = optional(number)
    min_ram_mebibytes = optional(number)
  }))
  default = {
    control-plane = { count = 1 }
    worker        = { count = 2 }
  }
}

variable "network" {
  description = "The machines' network: one static address per machine from the IP pool `pool` (a `baremetal_ip_pool` of this or another workspace, which gives the prefix, gateway and DNS servers), on the inspected NIC `interface` (named `link` in the OS)."
  type = object({
    pool      = string
    interface = optional(string, "eno1")
    link      = optional(string, "enp1s0")
  })
}

variable "image" {
  description = "The OS image every machine gets."
  type = object({
    url           = string
    checksum      = string
    checksum_type = optional(string, "auto")
    format        = optional(string)
  })
}

variable "user_data" {
  description = "cloud-init user data per role; `{{hostname}}` and `{{address}}` are replaced with each machine's name and address. Roles without an entry get a hostname-only cloud-config."
  type        = map(string)
  default     = {}
}
