# Import the deployment of a provisioned host by its node name or UUID. The
# image is read back from Ironic; user_data, meta_data and network_data are
# not (Ironic does not show the config drive).
terraform import baremetal_deployment.worker worker-0
