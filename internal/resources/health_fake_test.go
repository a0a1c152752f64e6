package resources_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// healthDataSources are baremetal_host "h" of the host named name and
// baremetal_hosts "critical" of the hosts whose health is Critical.
func healthDataSources(name string) string {
	return fmt.Sprintf(`
data "baremetal_host" "h" {
  name       = %q
  depends_on = [baremetal_host.h]
}

data "baremetal_hosts" "critical" {
  health     = "Critical"
  depends_on = [baremetal_host.h]
}
`, name)
}

// TestAccHostHealth_fake: on a fake Ironic with node health (API 1.109),
// baremetal_host.health and the host data sources carry the node's
// health, a refresh shows it change, baremetal_hosts filters on it, and
// the health source is Ironic.
func TestAccHostHealth_fake(t *testing.T) {
	srv := ironictest.New(t)
	srv.MaxMicroversion = "1.109"
	config := fakeHostConfig(srv, "health-0", "") + healthDataSources("health-0")
	setHealth := func(h string) func() {
		return func() { srv.UpdateNode("health-0", func(n *nodes.Node) { n.Health = h }) }
	}
	const h, dh, ds = "baremetal_host.h", "data.baremetal_host.h", "data.baremetal_hosts.critical"
	acctest.Test(t, nil, []resource.TestStep{
		{
			// Ironic has read no health yet: null.
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(h, "health"),
				resource.TestCheckNoResourceAttr(dh, "health"),
				resource.TestCheckNoResourceAttr(dh, "health_source"),
				resource.TestCheckResourceAttr(ds, "names.#", "0"),
			),
		},
		{
			PreConfig: setHealth("OK"),
			Config:    config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "health", "OK"),
				resource.TestCheckResourceAttr(dh, "health", "OK"),
				resource.TestCheckResourceAttr(dh, "health_source", "ironic"),
				resource.TestCheckResourceAttr(ds, "names.#", "0"),
			),
		},
		{
			// A drive fails: Ironic's conductor reads Critical.
			PreConfig: setHealth("Critical"),
			Config:    config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "health", "Critical"),
				resource.TestCheckResourceAttr(dh, "health", "Critical"),
				resource.TestCheckResourceAttr(ds, "names.#", "1"),
				resource.TestCheckResourceAttr(ds, "names.0", "health-0"),
				resource.TestCheckResourceAttr(ds, "hosts.0.health", "Critical"),
				resource.TestCheckResourceAttr(ds, "hosts.0.health_source", "ironic"),
			),
		},
	})
}

// TestAccHostHealthFromBMC_fake: on a fake Ironic without node health
// (2025.1's API 1.96) baremetal_host.health is null whatever the node
// holds, the health filter is refused naming the microversion, and
// health_from_bmc reads the simulator's HealthRollup (Critical once a
// drive fails) through the bmc block, for baremetal_host and
// baremetal_hardware; without the bmc block it is refused at validate.
func TestAccHostHealthFromBMC_fake(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	srv := ironictest.New(t)
	srv.MaxMicroversion = "1.96"
	bmcSrv, _ := acctest.StartSim(t, 1, user, pass)
	bmc := fmt.Sprintf(`
  bmc = {
    address  = %q
    username = %q
    password = %q
  }
`, acctest.SimAddress(bmcSrv, "sys-0"), user, pass)
	host := fakeHostConfig(srv, "bmchealth-0", "")
	fromBMC := host + `
data "baremetal_host" "h" {
  name            = baremetal_host.h.name
  health_from_bmc = true
` + bmc + `}

data "baremetal_hardware" "h" {
  host_id         = baremetal_host.h.id
  health_from_bmc = true
` + bmc + `}
`
	const h, dh, hw = "baremetal_host.h", "data.baremetal_host.h", "data.baremetal_hardware.h"
	acctest.Test(t, nil, []resource.TestStep{
		{
			// The node then holds a health this Ironic's API does not
			// show.
			Config: host,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(h, "health"),
				func(*terraform.State) error {
					srv.UpdateNode("bmchealth-0", func(n *nodes.Node) { n.Health = "OK" })
					return nil
				},
			),
		},
		{
			Config:      host + healthDataSources("bmchealth-0"),
			ExpectError: regexp.MustCompile(`health needs Ironic API microversion 1.109 or later, but this Ironic's\s+maximum\s+API\s+microversion\s+is\s+1.96`),
		},
		{
			Config:      host + "\ndata \"baremetal_host\" \"h\" {\n  name = baremetal_host.h.name\n  health_from_bmc = true\n}\n",
			ExpectError: regexp.MustCompile(`health_from_bmc needs the bmc block`),
		},
		{
			Config: fromBMC,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(h, "health"),
				resource.TestCheckResourceAttr(dh, "health", "OK"),
				resource.TestCheckResourceAttr(dh, "health_source", "bmc"),
				resource.TestCheckResourceAttr(hw, "health", "OK"),
			),
		},
		{
			PreConfig: func() {
				if err := bmcSrv.SetFaults("sys-0", sim.Faults{DriveHealth: map[string]string{"Disk.1": "Critical"}}); err != nil {
					t.Fatal(err)
				}
			},
			Config: fromBMC,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(dh, "health", "Critical"),
				resource.TestCheckResourceAttr(dh, "health_source", "bmc"),
				resource.TestCheckResourceAttr(hw, "health", "Critical"),
				resource.TestCheckResourceAttr(hw, "health_source", "bmc"),
			),
		},
	})
}
