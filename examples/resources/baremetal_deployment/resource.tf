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

# An image from a private OCI registry (Ironic 2025.1 or later), with a
# write-only pull secret: it is sent to Ironic for this deployment and never
# kept in the state or shown in the plan. Change pull_secret_wo_version to
# send a new secret (which redeploys the host).
variable "registry_pull_secret" {
  description = "Docker config JSON for registry.example.com, or user:token"
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "baremetal_deployment" "edge" {
  host_id = baremetal_host_claim.edge.host_id

  image = {
    url                    = "oci://registry.example.com/os/ubuntu:24.04"
    pull_secret_wo         = var.registry_pull_secret
    pull_secret_wo_version = "2026-12"
  }
}
