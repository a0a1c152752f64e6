# Everything spelled out; unset fields still fall back to OS_* variables.
provider "baremetal" {
  auth = "keystone"
  keystone = {
    auth_url            = "https://keystone.example.com:5000/v3"
    username            = "terraform"
    password            = var.keystone_password
    user_domain_name    = "infra"
    project_name        = "baremetal"
    project_domain_name = "infra"
    region              = "RegionOne"
  }
}

# Or an application credential (it carries its project):
provider "baremetal" {
  alias = "appcred"
  auth  = "keystone"
  keystone = {
    auth_url                      = "https://keystone.example.com:5000/v3"
    application_credential_id     = "21dced0fd20347869b93710d2b98aae0"
    application_credential_secret = var.app_cred_secret
  }
}

variable "keystone_password" {
  type      = string
  sensitive = true
}

variable "app_cred_secret" {
  type      = string
  sensitive = true
}
