package datasources_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// seedInventory stores testdata/ipa_inventory.json as the inspection
// inventory of node (UUID or name) with `scripts/ironic.sh seed-inventory`:
// fake and redfish inspection store none, and Ironic 21.4 keeps them in its
// database. It needs the rig's Ironic on this machine; the script finds its
// database from the endpoint's port.
func seedInventory(t *testing.T, node string) {
	t.Helper()
	u, err := url.Parse(acctest.Endpoint())
	if err != nil {
		t.Fatalf("BAREMETAL_ENDPOINT: %v", err)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "ironic.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, "seed-inventory", node, filepath.Join("testdata", "ipa_inventory.json"))
	cmd.Env = append(os.Environ(), "IRONIC_PORT="+port)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("seed the inventory of %s: %v\n%s", node, err, out)
	}
}

// localIronic skips the test unless Ironic runs on this machine (its
// database is needed to seed an inventory).
func localIronic(t *testing.T) {
	t.Helper()
	acctest.LocalIronic(t, "seeding an inventory")
}

// TestAccHardware_inventory: a host whose inspection inventory Ironic holds
// (seeded as IPA would report it) reads with source "inventory": NIC names,
// MACs, IPs, PXE, LLDP switch port and VLANs (from the plugin data's
// parsed LLDP), disks by path with their types, CPU,
// memory, system vendor, BIOS and hostname. The inventory wins over a BMC
// given for the Redfish path, which is never contacted (nothing listens at
// its address).
func TestAccHardware_inventory(t *testing.T) {
	name := acctest.Name("tfacc-hwinv")
	host := fmt.Sprintf(`
resource "baremetal_host" "h" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = {}
  online      = false
}
`, name)
	hardware := host + `
data "baremetal_hardware" "inv" {
  host_id = baremetal_host.h.id
}

data "baremetal_hardware" "with_bmc" {
  host_id = baremetal_host.h.name
  bmc = {
    address  = "redfish+http://127.0.0.1:9/redfish/v1/Systems/1"
    username = "admin"
    password = "never-used"
  }
}
`
	const hw = "data.baremetal_hardware.inv"
	resource.ParallelTest(t, resource.TestCase{
		PreCheck: func() {
			acctest.PreCheck(t)
			localIronic(t)
		},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: host,
			},
			{
				PreConfig: func() { seedInventory(t, name) },
				Config:    hardware,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(hw, "source", "inventory"),
					resource.TestCheckResourceAttrPair(hw, "id", "baremetal_host.h", "id"),
					resource.TestCheckResourceAttr(hw, "host_name", name),
					resource.TestCheckResourceAttr(hw, "hostname", "worker-r650-21"),
					resource.TestCheckResourceAttr(hw, "ram_mebibytes", "262144"),

					resource.TestCheckResourceAttr(hw, "cpu.arch", "x86_64"),
					resource.TestCheckResourceAttr(hw, "cpu.model", "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"),
					resource.TestCheckResourceAttr(hw, "cpu.count", "64"),
					resource.TestCheckResourceAttr(hw, "cpu.clock_megahertz", "2000"),
					resource.TestCheckResourceAttr(hw, "cpu.flags.#", "5"),
					resource.TestCheckResourceAttr(hw, "cpu.flags.0", "aes"),
					resource.TestCheckResourceAttr(hw, "cpu.flags.4", "vmx"),

					resource.TestCheckResourceAttr(hw, "nics.#", "3"),
					resource.TestCheckResourceAttr(hw, "nics.0.name", "eno1"),
					resource.TestCheckResourceAttr(hw, "nics.0.mac", "b4:96:91:4e:7a:10"),
					resource.TestCheckResourceAttr(hw, "nics.0.ip", "192.0.2.21"),
					resource.TestCheckResourceAttr(hw, "nics.0.model", "0x8086 0x1572"),
					resource.TestCheckResourceAttr(hw, "nics.0.speed_gbps", "10"),
					resource.TestCheckResourceAttr(hw, "nics.0.pxe", "true"),
					resource.TestCheckResourceAttr(hw, "nics.0.vlan_ids.#", "3"),
					resource.TestCheckResourceAttr(hw, "nics.0.vlan_ids.0", "100"),
					resource.TestCheckResourceAttr(hw, "nics.0.vlan_ids.1", "200"),
					resource.TestCheckResourceAttr(hw, "nics.0.vlan_ids.2", "10"),
					// LLDP from the plugin data's parsed_lldp (the
					// inventory's raw TLVs are empty lists).
					resource.TestCheckResourceAttr(hw, "nics.0.lldp.switch_chassis_id", "64:64:9b:31:12:00"),
					resource.TestCheckResourceAttr(hw, "nics.0.lldp.switch_port_id", "ge-0/0/10"),
					resource.TestCheckNoResourceAttr(hw, "nics.0.lldp.switch_system_name"),
					resource.TestCheckResourceAttr(hw, "nics.0.lldp.vlan_ids.#", "3"),
					resource.TestCheckNoResourceAttr(hw, "nics.1.lldp.switch_chassis_id"),
					resource.TestCheckResourceAttr(hw, "nics.1.name", "eno2"),
					resource.TestCheckResourceAttr(hw, "nics.1.mac", "b4:96:91:4e:7a:11"),
					resource.TestCheckResourceAttr(hw, "nics.1.ip", ""),
					resource.TestCheckResourceAttr(hw, "nics.1.pxe", "false"),
					resource.TestCheckResourceAttr(hw, "nics.1.vlan_ids.#", "0"),
					resource.TestCheckResourceAttr(hw, "nics.2.name", "ens3f0"),
					resource.TestCheckResourceAttr(hw, "nics.2.mac", "0c:42:a1:5d:30:e0"),
					resource.TestCheckResourceAttr(hw, "nics.2.ip", "2001:db8:10::21"),
					resource.TestCheckResourceAttr(hw, "nics.2.speed_gbps", "25"),

					resource.TestCheckResourceAttr(hw, "storage.#", "3"),
					resource.TestCheckResourceAttr(hw, "storage.0.name", "/dev/disk/by-path/pci-0000:65:00.0-scsi-0:3:111:0"),
					resource.TestCheckResourceAttr(hw, "storage.0.type", "SSD"),
					resource.TestCheckResourceAttr(hw, "storage.0.size_bytes", "479559942144"),
					resource.TestCheckResourceAttr(hw, "storage.0.vendor", "DELL"),
					resource.TestCheckResourceAttr(hw, "storage.0.model", "PERC H755 Front"),
					resource.TestCheckResourceAttr(hw, "storage.0.hctl", "0:3:111:0"),
					resource.TestCheckResourceAttr(hw, "storage.0.wwn", "0x6f4ee0806a1a7e002a3b4c5d6e7f8091"),
					resource.TestCheckResourceAttr(hw, "storage.0.rotational", "false"),
					resource.TestCheckResourceAttr(hw, "storage.1.name", "/dev/disk/by-path/pci-0000:b1:00.0-nvme-1"),
					resource.TestCheckResourceAttr(hw, "storage.1.type", "NVME"),
					resource.TestCheckResourceAttr(hw, "storage.1.serial_number", "PHAB123400AB1P6AGN"),
					resource.TestCheckResourceAttr(hw, "storage.2.name", "/dev/sdb"),
					resource.TestCheckResourceAttr(hw, "storage.2.type", "HDD"),
					resource.TestCheckResourceAttr(hw, "storage.2.rotational", "true"),
					resource.TestCheckResourceAttr(hw, "storage.2.size_bytes", "4000787030016"),

					resource.TestCheckResourceAttr(hw, "system_vendor.manufacturer", "Dell Inc."),
					resource.TestCheckResourceAttr(hw, "system_vendor.product_name", "PowerEdge R650 (SKU=0A5E;ModelName=PowerEdge R650)"),
					resource.TestCheckResourceAttr(hw, "system_vendor.serial_number", "7XJ2KL3"),
					resource.TestCheckResourceAttr(hw, "firmware.bios.vendor", "Dell Inc."),
					resource.TestCheckResourceAttr(hw, "firmware.bios.version", "1.6.5"),
					resource.TestCheckResourceAttr(hw, "firmware.bios.date", "04/11/2022"),

					resource.TestCheckResourceAttr("data.baremetal_hardware.with_bmc", "source", "inventory"),
					resource.TestCheckResourceAttr("data.baremetal_hardware.with_bmc", "nics.0.name", "eno1"),
				),
			},
		},
	})
}

// TestAccHardware_redfish: a host registered against a simulated Redfish
// BMC (fake boot and deploy, Redfish power, management and inspection, as
// in examples/demo) reads its hardware from the BMC when given bmc
// credentials: NIC names and MACs, disks, CPU and vendor from the
// simulator's profile. Without credentials it falls back to what Redfish
// inspection left in the node's properties and ports.
func TestAccHardware_redfish(t *testing.T) {
	_, prof, host := acctest.StartSimHost(t, "tfacc-hwrf", "admin", "password")
	name := host.Name
	host.Resource = "h"
	config := host.HCL() + `
data "baremetal_hardware" "rf" {
  host_id = baremetal_host.h.id
` + host.BMC() + `}

data "baremetal_hardware" "props" {
  host_id = baremetal_host.h.id
}
`
	const hw = "data.baremetal_hardware.rf"
	propsSource := "properties"
	if acctest.IronicAtLeast(t, "1.87") {
		propsSource = "inventory"
	}
	threads := prof.CPU.Count * prof.CPU.CoresPerSocket * prof.CPU.ThreadsPerCore
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.h", "provisioning_state", "available"),
			resource.TestCheckResourceAttr(hw, "source", "redfish"),
			resource.TestCheckResourceAttr(hw, "host_name", name),
			resource.TestCheckResourceAttr(hw, "nics.#", fmt.Sprint(len(prof.NICs))),
			resource.TestCheckResourceAttr(hw, "nics.0.name", "eno1"),
			resource.TestCheckResourceAttr(hw, "nics.0.mac", prof.NICs[0].MAC),
			resource.TestCheckResourceAttr(hw, "nics.0.speed_gbps", "25"),
			resource.TestCheckResourceAttr(hw, "nics.1.name", "eno2"),
			resource.TestCheckResourceAttr(hw, "nics.1.mac", prof.NICs[1].MAC),
			resource.TestCheckResourceAttr(hw, "nics.2.name", "eno3"),
			resource.TestCheckResourceAttr(hw, "nics.2.mac", prof.NICs[2].MAC),
			resource.TestCheckResourceAttr(hw, "storage.#", fmt.Sprint(len(prof.Disks))),
			resource.TestCheckResourceAttr(hw, "storage.0.size_bytes", fmt.Sprint(prof.Disks[0].SizeBytes)),
			resource.TestCheckResourceAttr(hw, "storage.0.model", prof.Disks[0].Model),
			resource.TestCheckResourceAttr(hw, "storage.2.rotational", "true"),
			resource.TestCheckResourceAttr(hw, "storage.2.type", "HDD"),
			resource.TestCheckResourceAttr(hw, "cpu.arch", "x86_64"),
			resource.TestCheckResourceAttr(hw, "cpu.model", prof.CPU.Model),
			resource.TestCheckResourceAttr(hw, "cpu.count", fmt.Sprint(threads)),
			resource.TestCheckResourceAttr(hw, "ram_mebibytes", fmt.Sprint(prof.RAMGiB*1024)),
			resource.TestCheckResourceAttr(hw, "system_vendor.manufacturer", prof.Manufacturer),
			resource.TestCheckResourceAttr(hw, "system_vendor.product_name", prof.Model),
			resource.TestCheckResourceAttr(hw, "system_vendor.serial_number", prof.SerialNumber),
			resource.TestCheckResourceAttr(hw, "firmware.bios.version", prof.BIOSVersion),
			resource.TestCheckResourceAttr(hw, "hostname", prof.HostName),

			// Without BMC access: Redfish inspection's properties and ports
			// (MACs, no names); from Ironic 2024.1 (API 1.87 here) out-of-band
			// inspection stores an inventory, with unnamed NICs too.
			resource.TestCheckResourceAttr("data.baremetal_hardware.props", "source", propsSource),
			resource.TestCheckResourceAttr("data.baremetal_hardware.props", "cpu.arch", "x86_64"),
			resource.TestCheckResourceAttr("data.baremetal_hardware.props", "nics.0.name", ""),
			resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_hardware.props", "nics.*",
				map[string]string{"mac": strings.ToLower(prof.NICs[0].MAC)}),
		),
	}})
}
