# What a BMC address implies for Ironic, for composing raw settings.
locals {
  bmc = provider::baremetal::bmc_driver("idrac-virtualmedia://10.0.0.7/redfish/v1/Systems/System.Embedded.1")
}

output "driver" {
  value = local.bmc.driver # "idrac"
}

output "boot_interface" {
  value = local.bmc.interfaces["boot_interface"] # "idrac-redfish-virtual-media"
}

output "driver_info_keys" {
  value = local.bmc.driver_info_keys # ["redfish_address", "redfish_password", "redfish_system_id", "redfish_username"]
}
