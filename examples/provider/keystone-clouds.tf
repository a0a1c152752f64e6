# A cloud of clouds.yaml (./clouds.yaml, ~/.config/openstack/clouds.yaml,
# /etc/openstack/clouds.yaml, or OS_CLIENT_CONFIG_FILE), as with
# `openstack --os-cloud prod`. `keystone` is an attribute: note the `=`.
provider "baremetal" {
  auth = "keystone"
  keystone = {
    cloud     = "prod"
    region    = "RegionTwo" # overrides the cloud's region_name
    interface = "internal"
  }
}
