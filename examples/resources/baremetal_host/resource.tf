# A host registered by its BMC address, inspected, cleaned and left powered
# off in the pool, with labels that claims can select on.
resource "baremetal_host" "worker" {
  name             = "worker-0"
  boot_mac_address = "52:54:00:12:34:56"
  labels           = { role = "worker", rack = "r1" }

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }

  root_device_hints = {
    min_size_gigabytes = 200
    rotational         = false
  }

  timeouts = {
    create = "45m"
  }
}

# A host that already runs an OS: adopted, not inspected or cleaned.
resource "baremetal_host" "legacy" {
  name                   = "legacy-db"
  externally_provisioned = true
  online                 = true

  bmc = {
    address  = "ipmi://10.0.0.6"
    username = "admin"
    password = var.bmc_password
  }
  boot_mac_address = "52:54:00:12:34:57"
}

# Hardware RAID built while the host is prepared: a mirrored root volume on
# two named disks, and a RAID-5 of three SSDs with the rest of the space.
resource "baremetal_host" "storage" {
  name = "storage-0"

  bmc = {
    address  = "idrac-virtualmedia://10.0.0.8/redfish/v1/Systems/System.Embedded.1"
    username = "root"
    password = var.bmc_password
  }

  raid = {
    hardware_volumes = [
      {
        name           = "root"
        level          = "1"
        size_gigabytes = 200
        controller     = "RAID.Integrated.1-1"
        physical_disks = ["Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1", "Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1"]
      },
      {
        name                     = "data"
        level                    = "5"
        rotational               = false
        number_of_physical_disks = 3
      },
    ]
  }
}

# A host for a network-aware Ironic: each port's switch port
# (local_link_connection) comes from the LLDP the host's inspection heard
# on that NIC, so a re-cabled NIC shows in the plan once the host has been
# inspected again.
resource "baremetal_host" "tenant" {
  name = "tenant-0"

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.9/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }

  ports = [
    {
      mac                             = "52:54:00:12:34:60"
      pxe_enabled                     = true
      physical_network                = "provisioning"
      local_link_connection_from_lldp = true
    },
    {
      mac                             = "52:54:00:12:34:61"
      physical_network                = "tenant"
      local_link_connection_from_lldp = true
    },
  ]
}

# A host whose two 25G NICs are bonded (LACP): the bond is an Ironic port
# group of the two ports. Render the same bond in the instance's
# network_data.json with baremetal_network_data's links.bonds.
resource "baremetal_host" "bonded" {
  name = "storage-0"

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.10/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }

  ports = [
    { mac = "52:54:00:12:34:70", pxe_enabled = true },
    { mac = "52:54:00:12:34:71" },
  ]

  port_groups = [{
    name       = "bond0"
    address    = "52:54:00:12:34:70"
    mode       = "802.3ad"
    properties = { miimon = "100", xmit_hash_policy = "layer3+4" }
    ports      = ["52:54:00:12:34:70", "52:54:00:12:34:71"]
  }]
}

variable "bmc_password" {
  type      = string
  sensitive = true
}
