# Import by identity (Terraform 1.12 and later): the UUID of the deployed
# host's Ironic node.
import {
  to = baremetal_deployment.worker
  identity = {
    id = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
  }
}
