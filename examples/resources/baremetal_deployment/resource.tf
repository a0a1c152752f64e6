# Write an image with cloud-init data to a claimed host. Destroying the
# deployment cleans the host and returns it to the pool, powered off.
resource "baremetal_deployment" "worker" {
  host_id = baremetal_host_claim.worker.host_id

  image = {
    url           = "https://images.example.com/ubuntu-24.04.qcow2"
    checksum      = "https://images.example.com/ubuntu-24.04.qcow2.sha256"
    checksum_type = "sha256"
    format        = "qcow2"
  }

  user_data    = file("${path.module}/cloud-init.yaml")
  meta_data    = { role = "worker" }
  network_data = data.baremetal_network_data.worker.json

  root_device_hints = {
    rotational = false
  }

  timeouts = {
    create = "60m"
  }
}

output "provider_id" {
  value = baremetal_deployment.worker.provider_id
}
