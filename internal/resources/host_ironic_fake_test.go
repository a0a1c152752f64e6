package resources_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

func skipWithoutTerraform(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Skip("TF_ACC_TERRAFORM_PATH is not set")
	}
}

// onFake is config with a provider block for the fake Ironic srv.
func onFake(srv *ironictest.Server, config string) string {
	return fmt.Sprintf("provider \"baremetal\" {\n  endpoint = %q\n}\n", srv.URL) + config
}

// planOnFake plans config against srv and expects wantErr ("" for none).
// It needs only Terraform (TF_ACC_TERRAFORM_PATH), not a real Ironic.
func planOnFake(t *testing.T, srv *ironictest.Server, config, wantErr string) {
	t.Helper()
	skipWithoutTerraform(t)
	step := resource.TestStep{Config: onFake(srv, config), PlanOnly: true, ExpectNonEmptyPlan: true}
	if wantErr != "" {
		step.ExpectError = regexp.MustCompile(wantErr)
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, Steps: []resource.TestStep{step}})
}

// fakeWith is a fake Ironic changed by setup.
func fakeWith(t *testing.T, setup func(*ironictest.Server)) *ironictest.Server {
	srv := ironictest.New(t)
	setup(srv)
	return srv
}

// A BMC address whose hardware type Ironic does not enable is refused at
// plan, naming the scheme, the driver, Ironic's enabled hardware types and
// the scheme to use instead; an enabled one plans.
func TestHostHardwareTypeMissing_fake(t *testing.T) {
	host := func(addr string) string {
		return fmt.Sprintf(`
resource "baremetal_host" "h" {
  name = "h"
  bmc  = { address = %q, username = "u", password = "p", check_credentials = false }
}
`, addr)
	}
	noIDRAC := func(s *ironictest.Server) { s.Drivers = []string{"fake-hardware", "ipmi", "redfish"} }
	t.Run("idrac missing", func(t *testing.T) {
		planOnFake(t, fakeWith(t, noIDRAC), host("idrac-virtualmedia://192.0.2.10/redfish/v1/Systems/1"),
			`(?s)Ironic lacks the BMC's hardware type.*bmc.address: the\s+idrac-virtualmedia://\s+scheme\s+needs\s+Ironic's\s+"idrac"\s+hardware\s+type.*`+
				`enabled\s+hardware\s+types:\s+fake-hardware,\s+ipmi,\s+redfish\).*Use\s+redfish-virtualmedia://\s+instead`)
	})
	t.Run("redfish enabled", func(t *testing.T) {
		planOnFake(t, fakeWith(t, noIDRAC), host("redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1"), "")
	})
}

// disable_power_off on an Ironic older than 1.95 is refused at plan,
// naming the attribute, the microversion it needs and the server's.
func TestHostDisablePowerOffTooOld_fake(t *testing.T) {
	const host = `
resource "baremetal_host" "h" {
  name              = "h"
  driver            = "fake-hardware"
  disable_power_off = true
}
`
	planOnFake(t, ironictest.New(t), host,
		`(?s)Ironic too old for disable_power_off.*disable_power_off\s+needs\s+Ironic\s+API\s+microversion\s+1.95\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+1.82`)
	planOnFake(t, fakeWith(t, func(s *ironictest.Server) { s.MaxMicroversion = "1.95" }), host, "")
}

// On the test rig's Ironic, an idrac-virtualmedia:// host is refused at
// plan when Ironic does not enable idrac (the 2025.1 rig enables
// fake-hardware, ipmi, manual-management and redfish).
func TestAccHostHardwareTypeMissing(t *testing.T) {
	if slices.Contains(acctest.EnabledHardwareTypes(t), "idrac") {
		t.Skip("this Ironic enables idrac")
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: `
resource "baremetal_host" "h" {
  name = "acc-idrac"
  bmc  = { address = "idrac-virtualmedia://192.0.2.10/redfish/v1/Systems/1", username = "u", password = "p", check_credentials = false }
}
`,
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Ironic lacks the BMC's hardware type.*"idrac"\s+hardware\s+type.*enabled\s+hardware\s+types:.*Use\s+redfish-virtualmedia://\s+instead`),
	}})
}
