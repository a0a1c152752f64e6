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
	t.Run("ilo5 missing", func(t *testing.T) {
		planOnFake(t, fakeWith(t, noIDRAC), host("ilo5://192.0.2.11"),
			`(?s)Ironic lacks the BMC's hardware type.*bmc.address: the\s+ilo5://\s+scheme\s+needs\s+Ironic's\s+"ilo5"\s+hardware\s+type.*`+
				`enabled\s+hardware\s+types:\s+fake-hardware,\s+ipmi,\s+redfish\).*Use\s+ilo5-redfish://\s+instead`)
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

// On the test rig's Ironic, idrac-virtualmedia:// and ilo5:// hosts are
// refused at plan: the rig enables neither idrac nor ilo5 (2025.1's
// enables fake-hardware, ipmi, manual-management and redfish), as Ironic
// 2026.1 and later lack ilo5 and irmc.
func TestAccHostHardwareTypeMissing(t *testing.T) {
	enabled := acctest.EnabledHardwareTypes(t)
	if slices.Contains(enabled, "idrac") || slices.Contains(enabled, "ilo5") {
		t.Fatalf("the rig's Ironic enables idrac or ilo5 (%v): this test needs one that does not", enabled)
	}
	host := func(addr string) string {
		return fmt.Sprintf(`
resource "baremetal_host" "h" {
  name = "acc-vendor"
  bmc  = { address = %q, username = "u", password = "p", check_credentials = false }
}
`, addr)
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config:      host("idrac-virtualmedia://192.0.2.10/redfish/v1/Systems/1"),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Ironic lacks the BMC's hardware type.*"idrac"\s+hardware\s+type.*enabled\s+hardware\s+types:.*Use\s+redfish-virtualmedia://\s+instead`),
	}, {
		Config:      host("ilo5://192.0.2.11"),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Ironic lacks the BMC's hardware type.*the\s+ilo5://\s+scheme\s+needs\s+Ironic's\s+"ilo5"\s+hardware\s+type.*enabled\s+hardware\s+types:.*Use\s+ilo5-redfish://\s+instead`),
	}})
}
