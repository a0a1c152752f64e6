package datasources_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccFirmware_redfish: with bmc credentials (the host's own bmc block,
// as the example gives them) the components come from the simulator's
// Redfish FirmwareInventory (its BIOS and BMC with the profile's
// versions). Without them, Ironic 21.4 (API 1.82) has no firmware API and
// there are none; Ironic 2025.1's firmware API has them.
func TestAccFirmware_redfish(t *testing.T) {
	_, prof, host := acctest.StartSimHost(t, "tfacc-fwinv", "admin", "password")
	host.Resource = "h"
	config := host.HCL() + `
data "baremetal_firmware" "rf" {
  host_id = baremetal_host.h.id
  bmc     = baremetal_host.h.bmc
}

data "baremetal_firmware" "ironic" {
  host_id = baremetal_host.h.name
}
`
	const fw = "data.baremetal_firmware.rf"
	ironicChecks := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr("data.baremetal_firmware.ironic", "source", "none"),
		resource.TestCheckResourceAttr("data.baremetal_firmware.ironic", "components.#", "0"),
	)
	if acctest.IronicAtLeast(t, "1.86") {
		// Ironic 2025.1's firmware interface cached the BMC's components
		// when the host was registered: its API answers without bmc.
		ironicChecks = resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("data.baremetal_firmware.ironic", "source", "ironic"),
			resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_firmware.ironic", "components.*", map[string]string{
				"version": prof.BIOSVersion,
			}),
		)
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(fw, "source", "redfish"),
			resource.TestCheckResourceAttr(fw, "bios_version", prof.BIOSVersion),
			resource.TestCheckResourceAttrPair(fw, "id", "baremetal_host.h", "id"),
			resource.TestCheckTypeSetElemNestedAttrs(fw, "components.*", map[string]string{
				"id": "sys-0-BIOS", "name": "System BIOS", "version": prof.BIOSVersion, "updateable": "true",
			}),
			resource.TestCheckTypeSetElemNestedAttrs(fw, "components.*", map[string]string{
				"id": "sys-0-BMC", "version": prof.BMCVersion,
			}),
			ironicChecks,
		),
	}})
}
