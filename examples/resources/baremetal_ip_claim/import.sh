# Import by <pool>/<owner>.
terraform import 'baremetal_ip_claim.worker["worker-0"]' r01/cluster-a/worker-0
