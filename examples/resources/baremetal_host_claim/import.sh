# Import by allocation UUID or name.
terraform import baremetal_host_claim.worker k8s-worker-0
