package resources_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

const (
	dataISO  = "http://images.example.test/config-1.iso"
	dataISO2 = "http://images.example.test/config-2.iso"
)

func dataImageConfig(host acctest.SimHost, url string) string {
	return dataImageWith(host, url, host.BMC())
}

// dataImageWith is dataImageConfig with bmc ("" for none: through Ironic's
// virtual media API).
func dataImageWith(host acctest.SimHost, url, bmc string) string {
	return host.HCL() + fmt.Sprintf(`
resource "baremetal_data_image" "d" {
  host_id = baremetal_host.h.id
  url     = %q
%s}
`, url, bmc)
}

// redfishSimDriver registers a simulator host with the redfish hardware
// type (which has no fake interfaces) and no cleaning, which would need an
// agent.
const redfishSimDriver = `  driver = "redfish"
  interfaces = {
    boot       = "ipxe"
    deploy     = "direct"
    power      = "redfish"
    management = "redfish"
    inspect    = "redfish"
    bios       = "redfish"
    raid       = "no-raid"
  }
  automated_cleaning_mode = "disabled"`

// viaIronic tells whether the test Ironic attaches data images itself
// (virtual media API, 1.89+; read back from 1.93), and the device the
// data image then shows.
func viaIronic(t *testing.T) (bool, string) {
	if acctest.IronicHas(t, lifecycle.FeatureVirtualMediaGet) {
		return true, lifecycle.MediaDeviceIronic
	}
	return false, "Cd"
}

// simMedia checks what the simulator's Cd virtual media device of system
// id holds ("" for nothing inserted).
func simMedia(srv *sim.Server, id, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := srv.State(id)
		if err != nil {
			return err
		}
		cd := st.VirtualMedia["Cd"]
		got := map[bool]string{true: cd.Image}[cd.Inserted]
		if got != want && want != "" && ironicCopy.MatchString(got) {
			// Ironic 2025.1 serves its own copy of the image it attached:
			// it must be the same bytes.
			return sameContent(got, want)
		}
		if got != want {
			return fmt.Errorf("simulator %s Cd holds %q (inserted %t), want %q", id, cd.Image, cd.Inserted, want)
		}
		return nil
	}
}

// ironicCopy is the URL of Ironic's own copy of an image attached through
// its virtual media API.
var ironicCopy = regexp.MustCompile(`/redfish/cdrom-[0-9a-f-]{36}\.iso$`)

// sameContent fails unless the two URLs serve the same bytes.
func sameContent(copyURL, origURL string) error {
	sum := func(u string) (string, error) {
		resp, err := http.Get(u) //nolint:gosec,noctx // the test's own servers on loopback
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		h := sha256.New()
		_, err = io.Copy(h, resp.Body)
		return hex.EncodeToString(h.Sum(nil)), err
	}
	a, err := sum(copyURL)
	if err != nil {
		return err
	}
	b, err := sum(origURL)
	if err != nil {
		return err
	}
	if a != b {
		return fmt.Errorf("Ironic's copy %s (sha256 %s) differs from the image %s (sha256 %s)", copyURL, a, origURL, b)
	}
	return nil
}

// maintenanceAround checks that the node is out of maintenance again, and
// that Ironic's log shows the maintenance set and cleared around the insert
// (through the BMC; through Ironic's API there is none to see).
func maintenanceAround(t *testing.T, name string, mark **acctest.LogMark) resource.TestCheckFunc {
	ironic, _ := viaIronic(t)
	return resource.ComposeTestCheckFunc(
		acctest.NodeCheck(t, name, func(n *nodes.Node) error {
			if n.Maintenance {
				return fmt.Errorf("node %s still in maintenance (%q)", name, n.MaintenanceReason)
			}
			return nil
		}),
		func(s *terraform.State) error {
			if *mark == nil || ironic {
				return nil
			}
			id := ""
			if h, ok := s.RootModule().Resources["baremetal_host.h"]; ok {
				id = h.Primary.ID
			}
			writes, err := (*mark).WritesTo(id, name)
			if err != nil {
				return err
			}
			var m []string
			for _, w := range writes {
				if strings.Contains(w, "/maintenance") {
					m = append(m, w)
				}
			}
			if len(m) < 2 || !strings.HasPrefix(m[0], "PUT ") || !strings.HasPrefix(m[len(m)-1], "DELETE ") {
				return fmt.Errorf("Ironic's log since the mark: maintenance requests %q, want a PUT then a DELETE", m)
			}
			t.Logf("maintenance around the insert: %q", m)
			return nil
		},
	)
}

// TestAccDataImage_sim: an ISO attached to a simulator host's virtual
// media, seen on the simulator's Cd: on an Ironic with the virtual media
// API by Ironic, without bmc, else through the BMC (node in maintenance
// for the duration only); ejected out of band it is drift and the next
// apply inserts it again; a new URL replaces it in place; destroy ejects
// it.
func TestAccDataImage_sim(t *testing.T) {
	srv, _, host := acctest.StartSimHost(t, "tfacc-dataimg", "admin", "password")
	host.Resource = "h"
	var mark *acctest.LogMark
	ironic, device := viaIronic(t)
	dataISO, dataISO2 := dataISO, dataISO2
	if ironic { // Ironic publishes virtual media for the redfish hardware type, not fake-hardware
		host.Driver = redfishSimDriver
		img := acctest.ImageServer(t) // Ironic checks that the URL answers
		dataISO, dataISO2 = img.URL, img.URL+"?copy=2"
	}
	dataImageConfig := func(host acctest.SimHost, url string) string {
		if ironic {
			return dataImageWith(host, url, "")
		}
		return dataImageConfig(host, url)
	}
	acctest.ParallelTest(t, simMedia(srv, "sys-0", ""), []resource.TestStep{
		{Config: host.HCL(), Check: func(*terraform.State) error { mark = acctest.MarkIronicLog(t); return nil }},
		{
			Config: dataImageConfig(host, dataISO),
			Check: resource.ComposeAggregateTestCheckFunc(
				simMedia(srv, "sys-0", dataISO),
				resource.TestCheckResourceAttr("baremetal_data_image.d", "device", device),
				resource.TestCheckResourceAttrPair("baremetal_data_image.d", "id", "baremetal_host.h", "id"),
				maintenanceAround(t, host.Name, &mark),
				func(st *terraform.State) error {
					cd, err := srv.State("sys-0")
					if err != nil {
						return err
					}
					t.Logf("%s: baremetal_data_image device %s (Ironic's virtual media API: %v); the simulator's Cd: %+v; configuration:\n%s",
						host.Name, device, ironic, cd.VirtualMedia["Cd"], dataImageConfig(host, dataISO))
					return nil
				},
			),
		},
		{ // Ejected at the BMC: the plan shows it.
			PreConfig: func() {
				if err := srv.EjectMedia("sys-0", "Cd"); err != nil {
					t.Fatal(err)
				}
			},
			Config: dataImageConfig(host, dataISO), PlanOnly: true, ExpectNonEmptyPlan: true,
		},
		{ // ... and the apply inserts it again.
			Config: dataImageConfig(host, dataISO),
			Check:  simMedia(srv, "sys-0", dataISO),
		},
		{
			Config: dataImageConfig(host, dataISO2),
			Check: resource.ComposeAggregateTestCheckFunc(
				simMedia(srv, "sys-0", dataISO2),
				resource.TestCheckResourceAttr("baremetal_data_image.d", "url", dataISO2),
			),
		},
		{ // Destroying the data image alone ejects it; the host stays.
			Config: host.HCL(),
			Check:  simMedia(srv, "sys-0", ""),
		},
	})
}

// TestAccDataImage_refused: a host whose BMC has no virtual media is
// refused at plan; an insert the BMC fails is an error with the BMC's
// message, and the node leaves maintenance all the same; a detached host
// is refused.
func TestAccDataImage_refused(t *testing.T) {
	srv, _, host := acctest.StartSimHost(t, "tfacc-dataimg-nvm", "admin", "password")
	p := sim.DefaultProfile(7)
	p.NoVirtualMedia = true
	p.NICs[0].MAC = acctest.MAC()
	p.NICs = p.NICs[:1]
	if err := srv.AddSystem(sim.SystemConfig{ID: "nomedia", Username: "admin", Password: "password", Profile: p}); err != nil {
		t.Fatal(err)
	}
	noMedia := host
	noMedia.Address = acctest.SimAddress(srv, "nomedia")
	noMedia.Name = acctest.Name("tfacc-dataimg-nvm")
	noMedia.Resource = "h"
	host.Resource = "h"
	var mark *acctest.LogMark
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{Config: noMedia.HCL()},
		{
			Config: dataImageConfig(noMedia, dataISO), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Host has no virtual media.*` + regexp.QuoteMeta(noMedia.Name) +
				`.*cannot take a data image.*no virtual media device for CD or DVD images`),
		},
		{
			Config: host.HCL(),
			Check: func(*terraform.State) error {
				mark = acctest.MarkIronicLog(t)
				return srv.SetFaults("sys-0", sim.Faults{MediaFailure: "simulated: image server unreachable"})
			},
		},
		{
			Config:      dataImageConfig(host, dataISO),
			ExpectError: regexp.MustCompile(`(?s)Attaching the data image.*simulated: image server unreachable`),
		},
		{
			Config: host.HCL(),
			Check: resource.ComposeAggregateTestCheckFunc(
				simMedia(srv, "sys-0", ""),
				maintenanceAround(t, host.Name, &mark),
			),
		},
		{ // Detached: refused at plan, nothing inserted.
			Config: host.WithExtra("  detached = true").HCL(),
			Check: func(*terraform.State) error {
				return srv.SetFaults("sys-0", sim.Faults{})
			},
		},
		{
			Config:      dataImageConfig(host.WithExtra("  detached = true"), dataISO),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)is detached.*attach a data image`),
		},
		{Config: host.HCL(), Check: simMedia(srv, "sys-0", "")},
	})
}
