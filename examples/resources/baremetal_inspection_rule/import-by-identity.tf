# Import by identity (Terraform 1.12 and later): the rule's UUID.
import {
  to = baremetal_inspection_rule.big_mem
  identity = {
    id = "3f8a6c1e-2b7d-4e59-9c0a-5d1e8b7f4a21"
  }
}
