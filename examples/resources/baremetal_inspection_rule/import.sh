# Import by the rule's UUID.
terraform import baremetal_inspection_rule.big_mem 3f8a6c1e-2b7d-4e59-9c0a-5d1e8b7f4a21
