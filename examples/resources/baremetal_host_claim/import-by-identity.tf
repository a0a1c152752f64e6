# Import by identity (Terraform 1.12 and later): the Ironic allocation UUID.
import {
  to = baremetal_host_claim.worker
  identity = {
    id = "5e3a1f0c-7c1b-4a8e-9d0f-2b6f4c1d9e77"
  }
}
