# network_data.json for a claimed host, with the MAC of the NIC that
# inspection named eno1, a bond, a VLAN, a static address from an IP pool
# (as Metal3DataTemplate's ipAddressFromIPPool) and one from a claim.
resource "baremetal_ip_claim" "worker" {
  pool  = "r10"
  owner = "worker-0"
}

data "baremetal_network_data" "worker" {
  host_id = baremetal_host_claim.worker.host_id
  nics    = data.baremetal_hardware.worker.nic_macs

  links = {
    ethernets = [
      { id = "eno1", from_host_interface = "eno1" },
      { id = "eno2", from_host_interface = "eno2" },
    ]
    bonds = [{
      id                  = "bond0"
      mode                = "802.3ad"
      xmit_hash_policy    = "layer3+4"
      miimon              = 100
      links               = ["eno1", "eno2"]
      from_host_interface = "eno1"
    }]
    vlans = [{ id = "bond0.100", vlan_id = 100, vlan_link = "bond0", from_host_interface = "eno1" }]
  }

  networks = {
    ipv4 = [
      {
        # The address pool r20 holds for pool_owner, with the pool's prefix,
        # gateway and DNS servers.
        id                   = "cluster"
        link                 = "bond0.100"
        ip_address_from_pool = "r20"
        pool_owner           = "worker-0"
        gateway_from_pool    = "r20"
        dns_from_pool        = "r20"
        routes               = [{ network = "10.30.0.0", prefix = 16, gateway = "10.20.0.254" }]
      },
      {
        # The same from a claim's attributes: rendered at plan time once the
        # claim exists.
        id      = "storage"
        link    = "eno2"
        address = baremetal_ip_claim.worker.cidr
        dns     = baremetal_ip_claim.worker.dns_servers
      },
    ]
  }

  services = {
    dns = ["10.20.0.53"]
  }
}
