# Ironic without authentication on loopback (the default).
provider "baremetal" {
  endpoint = "http://127.0.0.1:6385"
}

# Ironic behind HTTP basic auth, with its own CA, and waiting for an Ironic
# that the same apply brings up.
provider "baremetal" {
  alias            = "secured"
  endpoint         = "https://ironic.example.com:6385"
  auth             = "http_basic"
  username         = "ironic"
  password         = var.ironic_password
  ca_cert_file     = "/etc/ironic/ca.pem"
  api_wait_timeout = "10m"

  max_concurrent_provisioning = 40
}

variable "ironic_password" {
  type      = string
  sensitive = true
}

# A fleet of mixed architectures: hosts with `architecture = "aarch64"` and
# no deploy_image of their own boot this agent ramdisk.
provider "baremetal" {
  alias = "mixed"

  deploy_images = {
    aarch64 = {
      kernel        = "https://images.example.com/ipa/aarch64/ipa.kernel"
      ramdisk       = "https://images.example.com/ipa/aarch64/ipa.initramfs"
      kernel_params = "%default% console=ttyAMA0"
    }
  }
}
