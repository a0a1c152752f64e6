package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// fakeFirmwareConfig is a fake-hardware host (the fake BIOS interface
// stores what bios.apply_configuration applied) with, when settings is
// not empty, a baremetal_firmware_settings resource.
func fakeFirmwareConfig(name, settings string, reset bool) string {
	cfg := fakeHost(name, `  online = true`)
	if settings != "" {
		cfg += fmt.Sprintf(`
resource "baremetal_firmware_settings" "test" {
  host_id          = baremetal_host.test.id
  reset_on_destroy = %t
  settings = {
%s
  }
}
`, reset, settings)
	}
	return cfg
}

// biosOf reads GET /v1/nodes/{id}/bios as a map.
func biosOf(t *testing.T, sc *gophercloud.ServiceClient, name string) map[string]string {
	t.Helper()
	n := acctest.NodesNamed(t, sc, name)
	if len(n) != 1 {
		t.Fatalf("node %s: %d nodes", name, len(n))
	}
	settings, err := nodes.ListBIOSSettings(context.Background(), sc, n[0].UUID, nil).Extract()
	if err != nil {
		t.Fatalf("list BIOS settings of %s: %v", name, err)
	}
	out := map[string]string{}
	for _, s := range settings {
		out[s.Name] = s.Value
	}
	t.Logf("GET /v1/nodes/%s/bios: %v", n[0].UUID, out)
	return out
}

func biosIs(t *testing.T, sc *gophercloud.ServiceClient, name string, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := biosOf(t, sc, name)
		if len(got) != len(want) {
			return fmt.Errorf("Ironic BIOS settings %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("Ironic BIOS %s = %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
		return nil
	}
}

// cleanBehindTerraform applies BIOS settings by a manual clean, as an
// operator might: manage, clean, provide, waiting for each.
func cleanBehindTerraform(t *testing.T, sc *gophercloud.ServiceClient, name string, settings map[string]string) {
	t.Helper()
	ctx := context.Background()
	id := acctest.NodesNamed(t, sc, name)[0].UUID
	var list []map[string]any
	for k, v := range settings {
		list = append(list, map[string]any{"name": k, "value": v})
	}
	steps := []nodes.ProvisionStateOpts{
		{Target: nodes.TargetManage},
		{Target: nodes.TargetClean, CleanSteps: []nodes.CleanStep{{Interface: nodes.InterfaceBIOS, Step: "apply_configuration", Args: map[string]any{"settings": list}}}},
		{Target: nodes.TargetProvide},
	}
	wantAfter := []string{"manageable", "manageable", "available"}
	for i, opts := range steps {
		if err := nodes.ChangeProvisionState(ctx, sc, id, opts).ExtractErr(); err != nil {
			t.Fatalf("%s: %v", opts.Target, err)
		}
		deadline := time.Now().Add(3 * time.Minute)
		for {
			n, err := nodes.Get(ctx, sc, id).Extract()
			if err != nil {
				t.Fatalf("get node: %v", err)
			}
			if n.ProvisionState == wantAfter[i] && n.TargetProvisionState == "" {
				break
			}
			if strings.HasSuffix(n.ProvisionState, "failed") || time.Now().After(deadline) {
				t.Fatalf("%s: node in %q: %s", opts.Target, n.ProvisionState, n.LastError)
			}
			time.Sleep(time.Second) // polling Ironic, an external process
		}
	}
}

// provisionUpdatedAt is the node's provision_updated_at: it moves with
// every provision state change, so an apply that sends no clean leaves it.
func provisionUpdatedAt(t *testing.T, name string) time.Time {
	t.Helper()
	n, err := acctest.Node(t, name)
	if err != nil {
		t.Fatalf("get node: %v", err)
	}
	return n.ProvisionUpdatedAt
}

// TestAccFirmwareSettings_fake: on a fake-hardware host, settings are
// applied by manual cleaning and show in Ironic's /bios; a second plan is
// empty; one value changes in place; a value changed behind Terraform's
// back is drift that the next apply puts back; an apply with no setting
// to change sends no clean; destroy with reset_on_destroy runs
// bios.factory_reset, and without it leaves the BIOS as it is.
func TestAccFirmwareSettings_fake(t *testing.T) {
	name := acctest.Name("tfacc-fw")
	sc := acctest.Ironic(t)
	const fs = "baremetal_firmware_settings.test"
	two := `    ProcVirtualization = "Enabled"
    BootMode           = "Uefi"`
	changed := `    ProcVirtualization = "Enabled"
    BootMode           = "Bios"`
	var id string
	var before time.Time
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			PreConfig: func() { t.Log("applying two settings on a new host") },
			Config:    fakeFirmwareConfig(name, two, false),
			Check: resource.ComposeAggregateTestCheckFunc(
				biosIs(t, sc, name, map[string]string{"ProcVirtualization": "Enabled", "BootMode": "Uefi"}),
				resource.TestCheckResourceAttr(fs, "schema_source", "none"),
				resource.TestCheckResourceAttr(fs, "current.ProcVirtualization", "Enabled"),
				resource.TestCheckResourceAttr(fs, "current.%", "2"),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttrPair(fs, "id", "baremetal_host.test", "id"),
				func(s *terraform.State) error { id = s.RootModule().Resources[fs].Primary.ID; return nil },
			),
		},
		{ // Second plan: empty.
			Config:   fakeFirmwareConfig(name, two, false),
			PlanOnly: true,
		},
		{ // One value changes in place.
			Config:           fakeFirmwareConfig(name, changed, false),
			ConfigPlanChecks: preApply(updates(fs)),
			Check: resource.ComposeAggregateTestCheckFunc(
				biosIs(t, sc, name, map[string]string{"ProcVirtualization": "Enabled", "BootMode": "Bios"}),
				resource.TestCheckResourceAttr(fs, "current.BootMode", "Bios"),
				resource.TestCheckResourceAttrPtr(fs, "id", &id),
				resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
			),
		},
		{ // Drift: changed behind Terraform's back, put back by the apply.
			PreConfig: func() {
				cleanBehindTerraform(t, sc, name, map[string]string{"ProcVirtualization": "Disabled"})
			},
			Config:           fakeFirmwareConfig(name, changed, false),
			ConfigPlanChecks: preApply(updates(fs)),
			Check:            biosIs(t, sc, name, map[string]string{"ProcVirtualization": "Enabled", "BootMode": "Bios"}),
		},
		{ // No setting differs: the update sends no clean.
			PreConfig:        func() { before = provisionUpdatedAt(t, name) },
			Config:           fakeFirmwareConfig(name, changed, true),
			ConfigPlanChecks: preApply(updates(fs)),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					if after := provisionUpdatedAt(t, name); !after.Equal(before) {
						return fmt.Errorf("provision state changed (%v -> %v): a no-op apply cleaned", before, after)
					}
					return nil
				},
				resource.TestCheckResourceAttr(fs, "reset_on_destroy", "true"),
			),
		},
		{ // Destroy with reset_on_destroy: bios.factory_reset (the fake BIOS forgets everything).
			Config: fakeFirmwareConfig(name, "", false),
			Check:  biosIs(t, sc, name, map[string]string{}),
		},
		{
			Config: fakeFirmwareConfig(name, `    LogicalProc = "Disabled"`, false),
			Check:  biosIs(t, sc, name, map[string]string{"LogicalProc": "Disabled"}),
		},
		{ // Destroy without reset: the BIOS keeps its settings.
			Config: fakeFirmwareConfig(name, "", false),
			Check: resource.ComposeAggregateTestCheckFunc(
				biosIs(t, sc, name, map[string]string{"LogicalProc": "Disabled"}),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			),
		},
	})
}

// TestAccFirmwareSettings_redfishValidation: a host on a simulated Redfish
// BMC with Ironic's redfish BIOS interface has a schema in Ironic
// (schema_source = "ironic"), and every kind of bad value fails at plan
// time with the setting's name.
func TestAccFirmwareSettings_redfishValidation(t *testing.T) {
	_, _, simHost := acctest.StartSimHost(t, "tfacc-fwrf", "admin", "password")
	simHost.Resource, simHost.Driver = "h", acctest.SimHostDriverWith("bios", "redfish")
	host := simHost.HCL()
	config := func(settings string) string {
		return host + fmt.Sprintf(`
resource "baremetal_firmware_settings" "fw" {
  host_id  = baremetal_host.h.id
  settings = {
%s
  }
}
`, settings)
	}
	bad := func(settings, pattern string) resource.TestStep {
		return resource.TestStep{Config: config(settings), PlanOnly: true, ExpectError: regexp.MustCompile(pattern)}
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{ // Values equal to the BIOS's: nothing to apply (a redfish apply needs an agent ramdisk).
			Config: config(`    NumLock = "On"
    PxeRetryCount = "3"`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_firmware_settings.fw", "schema_source", "ironic"),
				resource.TestCheckResourceAttr("baremetal_firmware_settings.fw", "current.NumLock", "On"),
				resource.TestCheckResourceAttr("baremetal_firmware_settings.fw", "current.SystemServiceTag", "SIMTAG"),
			),
		},
		bad(`    NoSuchSetting = "On"`, `(?s)Invalid BIOS setting NoSuchSetting.*no such BIOS setting`),
		bad(`    SystemServiceTag = "X"`, `(?s)SystemServiceTag.*read-only`),
		bad(`    NumLock = "Maybe"`, `(?s)NumLock.*"Maybe".*not one of the allowed values \["On", "Off"\]`),
		bad(`    PxeRetryCount = "11"`, `(?s)PxeRetryCount.*out of bounds: allowed 0 to 10`),
		bad(`    PxeRetryCount = "three"`, `(?s)PxeRetryCount.*not an integer`),
		bad(`    AssetTag = "`+strings.Repeat("x", 33)+`"`, `(?s)AssetTag.*length 33 is\s+outside the allowed length \(0 to 32`),
		bad(`    SriovGlobalEnable = "yes"`, `(?s)SriovGlobalEnable.*not a boolean`),
		bad(`    AdminPassword = "secret"`, `(?s)AdminPassword.*"Password"\s+cannot\s+be\s+set`),
		{ // Valid again (the destroy after the test uses the last configuration).
			Config: config(`    NumLock = "On"`),
			Check:  resource.TestCheckResourceAttr("baremetal_firmware_settings.fw", "schema_source", "ironic"),
		},
	})
}

// TestAccFirmwareSettings_provisionedBelow187: on a provisioned host,
// changing firmware settings needs Ironic's servicing (API 1.87+); Ironic
// 2023.1 (21.4) offers 1.82, so the plan fails saying why and what to do,
// and nothing is sent. On 1.87+ (2025.1) the fake BIOS interface of this
// fake-hardware host has no service step (servicing would end in "service
// failed"), so the plan refuses too, naming the interface; a Redfish BIOS
// is serviced (TestAccAgent_firmwareSettingsServicing).
func TestAccFirmwareSettings_provisionedBelow187(t *testing.T) {
	name := acctest.Name("tfacc-fwsvc")
	acctest.PreCheck(t)
	deployed := depConfig(name, depImage(depImageA, ""))
	withSettings := deployed + `
resource "baremetal_firmware_settings" "test" {
  host_id  = baremetal_deployment.test.host_id
  settings = { ProcVirtualization = "Enabled" }
}
`
	why := regexp.MustCompile(`(?s)Firmware settings cannot change on a provisioned host.*1\.87.*Deprovision the host\s+first`)
	if acctest.IronicAtLeast(t, "1.87") {
		why = regexp.MustCompile(`(?s)Firmware settings cannot change on a provisioned host.*bios_interface\s+"fake"\s+has\s+none.*Deprovision the host\s+first`)
	}
	var before time.Time
	steps := []resource.TestStep{
		{
			Config: deployed,
			Check:  resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		},
		{
			PreConfig:   func() { before = provisionUpdatedAt(t, name) },
			Config:      withSettings,
			ExpectError: why,
		},
		{ // A RAID change on the provisioned host fails at plan too.
			Config: strings.Replace(deployed, "driver_info = {}", `driver_info = {}
  interfaces  = { raid = "fake" }
  raid        = { hardware_volumes = [{ level = "1" }] }`, 1),
			ExpectError: regexp.MustCompile(`(?s)RAID cannot change on a provisioned host.*Deprovision it\s+first`),
		},
		{ // Nothing was sent: the node is still active, untouched.
			Config: deployed,
			Check: func(*terraform.State) error {
				if after := provisionUpdatedAt(t, name); !after.Equal(before) {
					return fmt.Errorf("provision state changed (%v -> %v)", before, after)
				}
				return nil
			},
		},
	}
	acctest.ParallelTest(t, nil, steps)
}
