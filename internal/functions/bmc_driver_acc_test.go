package functions_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// The function through Terraform (1.8 or later): its value in an output,
// and a bad address failing the plan with the reason.
func TestAccFunctionBMCDriver(t *testing.T) {
	acctest.TerraformPath(t)
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `output "d" {
  value = provider::baremetal::bmc_driver("redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1")
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("d", knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"driver": knownvalue.StringExact("redfish"),
						"interfaces": knownvalue.MapPartial(map[string]knownvalue.Check{
							"boot_interface": knownvalue.StringExact("redfish-virtual-media"),
						}),
						"driver_info": knownvalue.MapExact(map[string]knownvalue.Check{
							"redfish_address":   knownvalue.StringExact("https://10.0.0.5"),
							"redfish_system_id": knownvalue.StringExact("/redfish/v1/Systems/1"),
						}),
						"inspect_interface": knownvalue.MapPartial(map[string]knownvalue.Check{
							"out-of-band": knownvalue.StringExact("redfish"),
						}),
					})),
				},
			},
			{
				Config: `output "d" {
  value = provider::baremetal::bmc_driver("redfish://admin:pw@10.0.0.1/redfish/v1/Systems/1")
}`,
				ExpectError: regexp.MustCompile(`(?s)Invalid BMC address.*REDACTED@10\.0\.0\.1.*must not contain`),
			},
		},
	})
}
