package resources_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// inspection = "out-of-band" on a host registered by its BMC address
// alone (Ironic's redfish driver, no interfaces but RAID, which the rig
// does not enable): the provider sets the redfish inspect interface, and
// Ironic's Redfish inspection reads the simulator.
func TestAccHost_inspectionOutOfBand(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.Name("acc-oob")
	srv, profiles := acctest.StartSim(t, 1, bmcUser, "oob-pass")
	// The driver comes from the address: no driver line, one interface.
	config := acctest.SimHost{Name: name, Address: "redfish-virtualmedia+" + srv.SystemURL("sys-0"), Username: bmcUser, Password: "oob-pass",
		Driver: `  interfaces              = { raid = "no-raid" }`,
		Extra:  "  inspection              = \"out-of-band\"\n  automated_cleaning_mode = \"disabled\""}.HCL()
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			resource.TestCheckResourceAttr("baremetal_host.test", "inspection", "out-of-band"),
			acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if n.Driver != "redfish" || n.InspectInterface != "redfish" {
					return fmt.Errorf("driver %s inspect_interface %s, want redfish and redfish", n.Driver, n.InspectInterface)
				}
				return nil
			}),
			inspectedFrom(t, name, profiles[0]),
			acctest.SimPower(srv, "sys-0", sim.PowerOff),
		),
	}})
}

// A mode the driver cannot do fails terraform validate, naming the value.
func TestAccHost_inspectionPlanErrors(t *testing.T) {
	for _, c := range []struct{ config, want string }{
		{`resource "baremetal_host" "x" {
  name       = "x"
  bmc        = { address = "ipmi://10.0.0.1", username = "u", password = "p" }
  inspection = "out-of-band"
}`, `(?s)inspection.*inspection = "out-of-band": Ironic driver "ipmi" cannot inspect out of band`},
		{`resource "baremetal_host" "x" {
  name       = "x"
  driver     = "fake-hardware"
  inspection = "sometimes"
}`, `(?s)inspection.*"sometimes"`},
	} {
		resource.UnitTest(t, resource.TestCase{
			PreCheck:                 func() { acctest.TerraformPath(t) },
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps:                    []resource.TestStep{{Config: c.config, PlanOnly: true, ExpectError: regexp.MustCompile(c.want)}},
		})
	}
}
