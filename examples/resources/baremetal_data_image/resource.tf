# A configuration ISO (Ignition, cloud-init) in a host's virtual CD. With
# Ironic up to API 1.82 it goes in through the BMC's Redfish VirtualMedia,
# so the BMC credentials are needed (Ironic masks them).
resource "baremetal_data_image" "worker_config" {
  host_id = baremetal_host.worker.id
  url     = "http://images.example.com/worker-0/config.iso"

  bmc = {
    address  = "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"
    username = "admin"
    password = var.bmc_password
  }
}
