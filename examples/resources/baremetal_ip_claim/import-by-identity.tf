# Import by identity (Terraform 1.12 and later): the pool and the owner.
import {
  to = baremetal_ip_claim.worker["worker-0"]
  identity = {
    pool  = "r01"
    owner = "cluster-a/worker-0"
  }
}
