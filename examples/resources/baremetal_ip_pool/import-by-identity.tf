# Import by identity (Terraform 1.12 and later): the pool's name.
import {
  to = baremetal_ip_pool.r01
  identity = {
    name = "r01"
  }
}
