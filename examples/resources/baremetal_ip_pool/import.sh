# Import by the pool's name.
terraform import baremetal_ip_pool.r01 r01
