package datasources_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccFirmwareSchema_sim: the simulator's BIOS attribute registry, read
// three ways: from Ironic (redfish BIOS interface, /bios?detail=True), from
// the BMC (fake BIOS interface, bmc credentials given), and not at all (fake
// BIOS, no credentials: source none, no types).
func TestAccFirmwareSchema_sim(t *testing.T) {
	_, _, ironicHost := acctest.StartSimHost(t, "tfacc-fwsch-i", "admin", "password")
	ironicHost.Resource, ironicHost.Driver = "i", acctest.SimHostDriverWith("bios", "redfish")
	_, _, bmcHost := acctest.StartSimHost(t, "tfacc-fwsch-r", "admin", "password")
	bmcHost.Resource = "r"
	config := ironicHost.HCL() + bmcHost.HCL() + `
data "baremetal_firmware_schema" "ironic" {
  host_id = baremetal_host.i.id
}

data "baremetal_firmware_schema" "redfish" {
  host_id = baremetal_host.r.name
` + bmcHost.BMC() + `}

data "baremetal_firmware_schema" "none" {
  host_id = baremetal_host.r.id
}
`
	registry := func(ds string) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(ds, "attributes.%", "8"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.type", "Enumeration"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.allowable_values.#", "2"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.allowable_values.0", "Uefi"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.allowable_values.1", "Bios"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.reset_required", "true"),
			resource.TestCheckResourceAttr(ds, "attributes.BootMode.value", "Uefi"),
			resource.TestCheckResourceAttr(ds, "attributes.PxeRetryCount.type", "Integer"),
			resource.TestCheckResourceAttr(ds, "attributes.PxeRetryCount.lower_bound", "0"),
			resource.TestCheckResourceAttr(ds, "attributes.PxeRetryCount.upper_bound", "10"),
			resource.TestCheckResourceAttr(ds, "attributes.PxeRetryCount.reset_required", "false"),
			resource.TestCheckResourceAttr(ds, "attributes.AssetTag.type", "String"),
			resource.TestCheckResourceAttr(ds, "attributes.AssetTag.max_length", "32"),
			resource.TestCheckResourceAttr(ds, "attributes.SystemServiceTag.read_only", "true"),
			resource.TestCheckResourceAttr(ds, "attributes.SystemServiceTag.value", "SIMTAG"),
			resource.TestCheckResourceAttr(ds, "attributes.NumLock.read_only", "false"),
			resource.TestCheckResourceAttr(ds, "attributes.SriovGlobalEnable.type", "Boolean"),
		)
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("data.baremetal_firmware_schema.ironic", "source", "ironic"),
			resource.TestCheckResourceAttrPair("data.baremetal_firmware_schema.ironic", "id", "baremetal_host.i", "id"),
			registry("data.baremetal_firmware_schema.ironic"),
			resource.TestCheckResourceAttr("data.baremetal_firmware_schema.redfish", "source", "redfish"),
			resource.TestCheckResourceAttrPair("data.baremetal_firmware_schema.redfish", "id", "baremetal_host.r", "id"),
			registry("data.baremetal_firmware_schema.redfish"),
			resource.TestCheckResourceAttr("data.baremetal_firmware_schema.none", "source", "none"),
			resource.TestCheckNoResourceAttr("data.baremetal_firmware_schema.none", "attributes.BootMode.type"),
			logSchemaAttributes(t, "data.baremetal_firmware_schema.redfish", "BootMode", "PxeRetryCount", "SystemServiceTag"),
		),
	}})
}

// TestAccFirmwareSchema_fake: Ironic's fake BIOS interface keeps no
// registry, so a fake-hardware host has source none; an unknown host is
// "Host not found".
func TestAccFirmwareSchema_fake(t *testing.T) {
	name := acctest.Name("acc-fwsch")
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: fmt.Sprintf(`
resource "baremetal_host" "f" {
  name   = %q
  driver = "fake-hardware"
}

data "baremetal_firmware_schema" "f" {
  host_id = baremetal_host.f.id
}
`, name),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("data.baremetal_firmware_schema.f", "source", "none"),
			resource.TestCheckResourceAttrPair("data.baremetal_firmware_schema.f", "id", "baremetal_host.f", "id"),
		),
	}})
}

// logSchemaAttributes logs the state of the named attributes of ds (the
// evidence the issue asks for).
func logSchemaAttributes(t *testing.T, ds string, names ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[ds]
		if !ok {
			return fmt.Errorf("%s not in state", ds)
		}
		var lines []string
		for k, v := range rs.Primary.Attributes {
			for _, n := range names {
				if strings.HasPrefix(k, "attributes."+n+".") {
					lines = append(lines, k+" = "+v)
				}
			}
		}
		sort.Strings(lines)
		t.Logf("%s (source %s):\n%s", ds, rs.Primary.Attributes["source"], strings.Join(lines, "\n"))
		return nil
	}
}
