package resources_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// dataImageOnFake is a data image without bmc on node "vm-0" (redfish) of
// a fake Ironic whose API maximum is max.
func dataImageOnFake(t *testing.T, max string) (*ironictest.Server, string, func(url string) string) {
	srv := ironictest.New(t)
	srv.MaxMicroversion = max
	id := srv.AddNode(nodes.Node{Name: "vm-0", Driver: "redfish", ProvisionState: "active", PowerState: "power on"})
	return srv, id, func(url string) string {
		return fmt.Sprintf(`
resource "baremetal_data_image" "d" {
  host_id = "vm-0"
  url     = %q
}
`, url)
	}
}

func fakeMedia(srv *ironictest.Server, id, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		m := srv.VMedia(id)
		if got := map[bool]string{true: m.Image}[m.Inserted]; got != want {
			return fmt.Errorf("the fake's vmedia holds %q (inserted %t), want %q", m.Image, m.Inserted, want)
		}
		return nil
	}
}

// On an Ironic with the virtual media API a data image needs no bmc:
// Ironic attaches it (1.89), reads it back (1.93: an image detached out of
// band is drift), replaces it and detaches it on destroy.
func TestDataImageIronicVMedia_fake(t *testing.T) {
	srv, id, cfg := dataImageOnFake(t, "1.93")
	applyOnFake(t, fakeMedia(srv, id, ""), []resource.TestStep{
		{Config: onFake(srv, cfg(dataISO)), Check: resource.ComposeAggregateTestCheckFunc(
			fakeMedia(srv, id, dataISO),
			resource.TestCheckResourceAttr("baremetal_data_image.d", "device", "cdrom"),
			resource.TestCheckResourceAttr("baremetal_data_image.d", "id", id),
		)},
		{
			PreConfig: func() {
				req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/v1/nodes/"+id+"/vmedia", nil)
				req.Header.Set("X-OpenStack-Ironic-API-Version", "1.89")
				if resp, err := http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				} else {
					resp.Body.Close()
				}
			},
			Config: onFake(srv, cfg(dataISO)), PlanOnly: true, ExpectNonEmptyPlan: true,
		},
		{Config: onFake(srv, cfg(dataISO2)), Check: fakeMedia(srv, id, dataISO2)},
	})
}

// Between 1.89 and 1.92 Ironic attaches but cannot read: the state keeps
// the URL, and a second plan is empty.
func TestDataImageIronicVMediaNoRead_fake(t *testing.T) {
	srv, id, cfg := dataImageOnFake(t, "1.89")
	applyOnFake(t, fakeMedia(srv, id, ""), []resource.TestStep{{Config: onFake(srv, cfg(dataISO)), Check: resource.ComposeAggregateTestCheckFunc(
		fakeMedia(srv, id, dataISO),
		resource.TestCheckResourceAttr("baremetal_data_image.d", "url", dataISO),
	)}})
}

// applyOnFake runs steps against a fake Ironic (needs only Terraform).
func applyOnFake(t *testing.T, checkDestroy resource.TestCheckFunc, steps []resource.TestStep) {
	t.Helper()
	skipWithoutTerraform(t)
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, CheckDestroy: checkDestroy, Steps: steps})
}

// Without the virtual media API (Ironic 21.4's 1.82), a data image without
// bmc is refused at plan, naming bmc, the microversion it needs and the
// server's.
func TestDataImageNeedsBMC_fake(t *testing.T) {
	srv, _, cfg := dataImageOnFake(t, ironictest.DefaultMaxMicroversion)
	planOnFake(t, srv, cfg(dataISO), `(?s)BMC credentials needed on this Ironic.*a\s+data\s+image\s+without\s+bmc\s+\(through\s+Ironic's\s+virtual\s+media\s+API\)\s+needs\s+Ironic\s+API\s+microversion\s+1.89\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+1.82`)
}
