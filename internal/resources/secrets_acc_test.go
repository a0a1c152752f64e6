package resources_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
)

// Write-only arguments need Terraform 1.11 end to end; these tests skip,
// saying so, with an older CLI.
var needsWriteOnly = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}

// writeOnlyTest is acctest.ParallelTest for steps that set write-only
// arguments: skipped on a Terraform without them.
func writeOnlyTest(t *testing.T, steps []resource.TestStep) {
	t.Helper()
	tc := acctest.Case(t, nil, steps)
	tc.TerraformVersionChecks = needsWriteOnly
	resource.ParallelTest(t, tc)
}

// stateHasNo fails when any attribute of any resource in state holds one
// of the secrets (whole or in part).
func stateHasNo(secrets ...string) resource.TestCheckFunc {
	named := map[string]string{}
	for i, sec := range secrets {
		named[fmt.Sprintf("write-only secret #%d", i+1)] = sec
	}
	return func(s *terraform.State) error {
		attrs := map[string]string{}
		for _, m := range s.Modules {
			for addr, r := range m.Resources {
				if r.Primary == nil {
					continue
				}
				for k, v := range r.Primary.Attributes {
					attrs["state attribute "+addr+"."+k] = v
				}
			}
		}
		return secretscan.Err(named, attrs)
	}
}

func driverInfoIs(key, want string) func(*nodes.Node) error {
	return func(n *nodes.Node) error {
		if got := fmt.Sprint(n.DriverInfo[key]); got != want {
			return fmt.Errorf("node %s: driver_info[%s] = %q, want %q", n.Name, key, got, want)
		}
		return nil
	}
}

// TestAccHost_driverSecretsWO: driver_secrets_wo reaches Ironic's
// driver_info and never state; a new driver_secrets_wo_version pushes new
// values in place; new values alone (same version) plan nothing, as
// write-only arguments do. (fake_note is not a key Ironic masks, so the
// value can be checked; fake_password shows that masked keys go too.)
func TestAccHost_driverSecretsWO(t *testing.T) {
	name := acctest.Name("acc-wo")
	acctest.PreCheck(t)
	cfg := func(note, version string) string {
		return fakeHost(name, fmt.Sprintf(`
  driver_secrets_wo         = { fake_note = %q, fake_password = %q }
  driver_secrets_wo_version = %q`, note, note+"-pw", version))
	}
	writeOnlyTest(t, []resource.TestStep{
		{
			Config: cfg("note-alpha-1", "1"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr("baremetal_host.test", "driver_secrets_wo"),
				resource.TestCheckResourceAttr("baremetal_host.test", "driver_secrets_wo_version", "1"),
				stateHasNo("note-alpha-1"),
				acctest.NodeCheck(t, name, driverInfoIs("fake_note", "note-alpha-1")),
				acctest.NodeCheck(t, name, driverInfoIs("fake_password", "******")),
			),
		},
		{ // A new version pushes the new values, in place.
			Config: cfg("note-beta-2", "2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionUpdate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				stateHasNo("note-alpha-1", "note-beta-2"),
				acctest.NodeCheck(t, name, driverInfoIs("fake_note", "note-beta-2")),
			),
		},
		{ // New values under the same version: nothing to do.
			Config: cfg("note-gamma-3", "2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
			Check: acctest.NodeCheck(t, name, driverInfoIs("fake_note", "note-beta-2")),
		},
	})
}

// configDriveHas checks that the config drive Ironic stored for the node
// holds want. Ironic masks the config drive in its API, so this reads the
// rig's database: instance_info.configdrive, the JSON the provider sent or
// the ISO Ironic built from it (base64 of gzip).
func configDriveHas(name, want string) error {
	rows, err := acctest.RigSQL(fmt.Sprintf("select instance_info from nodes where name = '%s'", name))
	if err != nil {
		return fmt.Errorf("reading node %s's config drive from the rig's database: %w", name, err)
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(rows)), &info); err != nil {
		return fmt.Errorf("node %s: instance_info %.200q: %w", name, rows, err)
	}
	cd, ok := info["configdrive"]
	if !ok {
		return fmt.Errorf("node %s: no configdrive in instance_info", name)
	}
	var content []byte
	switch v := cd.(type) {
	case string:
		raw, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return fmt.Errorf("node %s: configdrive is neither JSON nor base64: %w", name, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("node %s: configdrive is not gzip: %w", name, err)
		}
		if content, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("node %s: configdrive: %w", name, err)
		}
	default:
		content, _ = json.Marshal(v)
	}
	if !bytes.Contains(content, []byte(want)) {
		return fmt.Errorf("node %s: the config drive does not hold %q", name, want)
	}
	return nil
}

// TestAccDeployment_userDataWO: user_data_wo reaches the config drive and
// never state; a new user_data_wo_version replaces the deployment (as a
// change of user_data does) with the new user data.
func TestAccDeployment_userDataWO(t *testing.T) {
	name := acctest.Name("acc-udwo")
	acctest.PreCheck(t)
	cfg := func(hostname, version string) string {
		return depConfig(name, deployment(depImageA, depMD5, "", fmt.Sprintf(`  user_data_wo         = "#cloud-config\nhostname: %s\n"
  user_data_wo_version = %q
  provisioning_retries = 0`, hostname, version)))
	}
	userData := func(want string) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(
			acctest.NodeCheck(t, name, depProvisionState("active")),
			func(*terraform.State) error { return configDriveHas(name, "hostname: "+want) },
		)
	}
	writeOnlyTest(t, []resource.TestStep{
		{
			Config: cfg("wo-host-one", "1"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckNoResourceAttr("baremetal_deployment.test", "user_data_wo"),
				stateHasNo("wo-host-one"),
				userData("wo-host-one"),
			),
		},
		{ // A new version replaces the deployment with the new user data.
			Config: cfg("wo-host-two", "2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_deployment.test", plancheck.ResourceActionDestroyBeforeCreate),
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionNoop),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				stateHasNo("wo-host-one", "wo-host-two"),
				userData("wo-host-two"),
			),
		},
	})
}
