package datasources_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// inventoryCount is how many members the BMC's FirmwareInventory has, as
// the BMC itself says.
func inventoryCount(srv *sim.Server) (int, error) {
	req, err := http.NewRequest(http.MethodGet, srv.URL()+"/redfish/v1/UpdateService/FirmwareInventory", nil)
	if err != nil {
		return 0, err
	}
	req.SetBasicAuth("admin", "password")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var c struct {
		Count int `json:"Members@odata.count"`
	}
	return c.Count, json.NewDecoder(resp.Body).Decode(&c)
}

// TestAccFirmware_bmcProfiles: on each vendor profile of the simulator
// (iLO-, iDRAC- and Supermicro-like), baremetal_firmware lists as many
// components as the BMC's FirmwareInventory has members (iLO's drive items
// relate to the drives of a storage enclosure, Chassis/<id>-DE00A000, which
// the system's chassis contains: both are listed), its bios_version is the running
// ROM's, baremetal_hardware names NICs from the best field the BMC fills
// with unknown speeds and vendors null, and an error answer (credentials
// refused) is shown with its MessageId and text: iLO's body has only the
// id, resolved from the standard Base messages.
func TestAccFirmware_bmcProfiles(t *testing.T) {
	for _, tc := range []struct {
		dialect  string
		running  string // the running ROM's version
		nic      string // NIC 0's name, %s the MAC
		noSpeed  string // a NIC without a known speed, "" when none
		noVendor bool   // drives without a manufacturer
		refused  string // the 401's message
	}{
		{sim.DialectILO, "U46 v1.64 (08/11/2022)", "1 (%s)", "nics.1.speed_gbps", true,
			"Base.1.8.NoValidSession: There is no valid session established with the implementation."},
		{sim.DialectIDRAC, "1.8.2", "NIC.Embedded.1-1-1 (%s)", "nics.0.speed_gbps", false,
			"Base.1.8.NoValidSession: authentication required or credentials rejected"},
		{sim.DialectSupermicro, "1.4a", "1", "", false,
			"Base.v1_4_0.NoValidSession: authentication required or credentials rejected"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			name := acctest.Name("tfacc-prof-ds")
			srv, profiles := acctest.StartSimDialect(t, tc.dialect, 1, "admin", "password")
			simHost := acctest.SimHost{Resource: "h", Name: name, Address: acctest.SimAddress(srv, "sys-0"), Username: "admin", Password: "password"}
			bmc := func(password string) string {
				h := simHost
				h.Password = password
				return h.BMC()
			}
			host := simHost.HCL()
			config := host + `
data "baremetal_firmware" "fw" {
  host_id = baremetal_host.h.id
` + bmc("password") + `}

data "baremetal_hardware" "hw" {
  host_id = baremetal_host.h.id
` + bmc("password") + `}
`
			const fw, hw = "data.baremetal_firmware.fw", "data.baremetal_hardware.hw"
			nics := map[string]string{}
			for _, n := range profiles[0].NICs {
				nics[n.Name] = n.MAC
			}
			nic0 := tc.nic
			if strings.Contains(nic0, "%s") {
				id, _, _ := strings.Cut(nic0, " ")
				nic0 = fmt.Sprintf(nic0, nics[id])
			}
			checks := []resource.TestCheckFunc{
				resource.TestCheckResourceAttr(fw, "source", "redfish"),
				resource.TestCheckResourceAttr(fw, "bios_version", tc.running),
				func(s *terraform.State) error {
					want, err := inventoryCount(srv)
					if err != nil {
						return err
					}
					return resource.TestCheckResourceAttr(fw, "components.#", fmt.Sprint(want))(s)
				},
				resource.TestCheckResourceAttr(hw, "source", "redfish"),
				resource.TestCheckResourceAttr(hw, "nics.0.name", nic0),
				resource.TestCheckNoResourceAttr(hw, "firmware.bios.vendor"),
			}
			if tc.noSpeed != "" {
				checks = append(checks, resource.TestCheckNoResourceAttr(hw, tc.noSpeed))
			}
			if tc.noVendor {
				checks = append(checks, resource.TestCheckNoResourceAttr(hw, "storage.0.vendor"))
			} else {
				checks = append(checks, resource.TestCheckResourceAttr(hw, "storage.0.vendor", profiles[0].Disks[0].Vendor))
			}
			if tc.dialect == sim.DialectILO {
				checks = append(checks,
					resource.TestCheckTypeSetElemNestedAttrs(fw, "components.*", map[string]string{
						"id": "21", "name": "Drive", "related_to.0": "/redfish/v1/chassis/sys-0-de00a000/drives/0/",
					}),
					resource.TestCheckTypeSetElemNestedAttrs(fw, "components.*", map[string]string{
						"id": "22", "name": "Drive", "version": "HPD4", "related_to.0": "/redfish/v1/chassis/sys-0-de00a000/drives/1/",
					}),
					resource.TestCheckTypeSetElemNestedAttrs(fw, "components.*", map[string]string{
						"id": "2", "name": "System ROM", "related_to.0": "/redfish/v1/systems/sys-0/",
					}),
				)
			}
			acctest.ParallelTest(t, nil, []resource.TestStep{
				{Config: config, Check: resource.ComposeAggregateTestCheckFunc(checks...)},
				{
					Config: host + `
data "baremetal_firmware" "fw" {
  host_id = baremetal_host.h.id
` + bmc("wrong-password") + `}
`,
					ExpectError: regexp.MustCompile(`(?s)` +
						strings.Join(strings.Fields(regexp.QuoteMeta("credentials rejected (HTTP 401): "+tc.refused)), `\s+`)),
				},
				{Config: host},
			})
		})
	}
}
