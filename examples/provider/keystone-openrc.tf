# After `source openrc.sh` (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD,
# OS_PROJECT_NAME, OS_USER_DOMAIN_NAME, OS_PROJECT_DOMAIN_NAME,
# OS_REGION_NAME), as for the openstack CLI: Ironic's endpoint comes from the
# catalog (service type baremetal).
provider "baremetal" {
  auth = "keystone"
}
