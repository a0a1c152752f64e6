# network_data.json for a claimed host, with the MAC of the NIC that
# inspection named eno1, a bond, a VLAN and a static address.
data "baremetal_network_data" "worker" {
  host_id = baremetal_host_claim.worker.host_id
  nics    = { for nic in data.baremetal_hardware.worker.nics : nic.name => nic.mac }

  links = {
    ethernets = [
      { id = "eno1", from_host_interface = "eno1" },
      { id = "eno2", from_host_interface = "eno2" },
    ]
    bonds = [{ id = "bond0", mode = "802.3ad", links = ["eno1", "eno2"], from_host_interface = "eno1" }]
    vlans = [{ id = "bond0.100", vlan_id = 100, vlan_link = "bond0", from_host_interface = "eno1" }]
  }

  networks = {
    ipv4 = [{
      id      = "cluster"
      link    = "bond0.100"
      address = cidrhost("10.20.0.0/24", 11)
      prefix  = 24
      gateway = "10.20.0.1"
      routes  = [{ network = "10.30.0.0", prefix = 16, gateway = "10.20.0.254" }]
    }]
  }

  services = {
    dns = ["10.20.0.53"]
  }
}
