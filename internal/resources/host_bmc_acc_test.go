package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// The BMC-layer acceptance tests: fake-hardware hosts whose power,
// management and inspect interfaces are Ironic's redfish ones, talking to
// systems of the project's Redfish BMC simulator (in-process, on a free
// loopback port), with fake boot and deploy since no agent runs here.

const bmcUser = "admin"

// noNodesNamed is a CheckDestroy that no node with one of the names is left.
func noNodesNamed(t *testing.T, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		sc := acctest.Ironic(t)
		for _, name := range names {
			if n := acctest.NodesNamed(t, sc, name); len(n) != 0 {
				return fmt.Errorf("node %s still exists after destroy: %+v", name, n)
			}
		}
		return nil
	}
}

// inspectedFrom checks that Ironic's redfish inspection of the node named
// name recorded the simulator profile p: one port per NIC MAC, and the
// cpus, memory_mb, local_gb and cpu_arch properties.
func inspectedFrom(t *testing.T, name string, p sim.Profile) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		sc := acctest.Ironic(t)
		n, err := acctest.Node(t, name)
		if err != nil {
			return err
		}
		// Ironic (sushy) counts logical CPUs, sizes memory from
		// MemorySummary, and takes the smallest disk of at least 4 GiB,
		// less 1 GiB.
		const gib = float64(1 << 30)
		smallest := int64(0)
		for _, d := range p.Disks {
			if float64(d.SizeBytes) >= 4*gib && (smallest == 0 || d.SizeBytes < smallest) {
				smallest = d.SizeBytes
			}
		}
		want := map[string]string{
			"cpus":      fmt.Sprint(p.CPU.Count * p.CPU.CoresPerSocket * p.CPU.ThreadsPerCore),
			"memory_mb": fmt.Sprint(p.RAMGiB * 1024),
			"local_gb":  fmt.Sprint(int(float64(smallest)/gib - 1)),
			"cpu_arch":  p.CPU.Arch,
		}
		var errs []string
		for k, v := range want {
			if got := fmt.Sprint(n.Properties[k]); got != v {
				errs = append(errs, fmt.Sprintf("properties.%s = %q, want %q", k, got, v))
			}
		}

		pages, err := ports.List(sc, ports.ListOpts{NodeUUID: n.UUID}).AllPages(ctx)
		if err != nil {
			return fmt.Errorf("list ports of %s: %w", name, err)
		}
		all, err := ports.ExtractPorts(pages)
		if err != nil {
			return err
		}
		var got, wantMACs []string
		for _, port := range all {
			got = append(got, strings.ToLower(port.Address))
		}
		for _, nic := range p.NICs {
			wantMACs = append(wantMACs, strings.ToLower(nic.MAC))
		}
		slices.Sort(got)
		slices.Sort(wantMACs)
		if !slices.Equal(got, wantMACs) {
			errs = append(errs, fmt.Sprintf("ports %v, want the simulator's NIC MACs %v", got, wantMACs))
		}
		if len(errs) > 0 {
			return fmt.Errorf("node %s after redfish inspection: %s", name, strings.Join(errs, "; "))
		}
		return nil
	}
}

// 1 and 2: a host registered by a simulator's address is inspected through
// Redfish (ports from the NIC MACs, properties from the profile), reaches
// available, and is powered on and off in place, as the simulator sees.
func TestAccHostBMC_inspectAndPower(t *testing.T) {
	acctest.PreCheck(t)
	srv, prof, host := acctest.StartSimHost(t, "acc-bmc-insp", bmcUser, "insp-pass")
	name := host.Name
	var id string
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: host.HCL(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.test", "ironic_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "OK"),
				resource.TestCheckResourceAttr("baremetal_host.test", "error_count", "0"),
				resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "false"),
				inspectedFrom(t, name, prof),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.PowerInterface != "redfish" || n.ManagementInterface != "redfish" || n.InspectInterface != "redfish" {
						return fmt.Errorf("interfaces power=%s management=%s inspect=%s, want redfish",
							n.PowerInterface, n.ManagementInterface, n.InspectInterface)
					}
					if got := n.DriverInfo["redfish_system_id"]; got != "/redfish/v1/Systems/sys-0" {
						return fmt.Errorf("driver_info.redfish_system_id = %v", got)
					}
					return nil
				}),
				acctest.SimPower(srv, "sys-0", sim.PowerOff),
				saveID("baremetal_host.test", &id),
			),
		},
		inPlace(resource.TestStep{ // Power on in place: the simulated machine is on.
			Config: host.WithExtra("  online = true").HCL(),
		}, &id,
			resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			acctest.SimPower(srv, "sys-0", sim.PowerOn),
		),
		{ // And off again.
			Config: host.WithExtra("  online = false").HCL(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "false"),
				sameID(&id),
				acctest.SimPower(srv, "sys-0", sim.PowerOff),
			),
		},
	})
}

// errorExpectation lets a step expect an error that must match a pattern
// and must not contain a secret: ExpectError cannot say "not", so the
// TestCase's ErrorCheck does it. Whitespace is collapsed, since Terraform
// wraps long diagnostics.
type errorExpectation struct {
	mu     sync.Mutex
	want   *regexp.Regexp
	secret string
	seen   []string
}

func (e *errorExpectation) expect(want, secret string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.want, e.secret = regexp.MustCompile(want), secret
}

func (e *errorExpectation) check(err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if e.want == nil || !e.want.MatchString(msg) {
		return err
	}
	if leak := secretscan.Err(map[string]string{"BMC password": e.secret}, map[string]string{"the error": err.Error()}); leak != nil {
		return leak
	}
	e.seen = append(e.seen, msg)
	e.want = nil
	return nil
}

func (e *errorExpectation) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.seen)
}

// 3: wrong credentials fail the apply with the pre-flight's answer, which
// names the BMC and says "credentials rejected" but never shows the
// password, and no node is registered. With check_credentials = false the
// node is registered and Ironic's own failure is reported.
func TestAccHostBMC_wrongCredentials(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.Name("acc-bmc-cred")
	srv, _ := acctest.StartSim(t, 1, bmcUser, "the-right-pass")
	const wrong = "Wr0ng-pass-never-printed"
	hostPort := strings.TrimPrefix(srv.Endpoint("sys-0"), "http://")
	exp := &errorExpectation{}
	// The password comes from a sensitive variable: Terraform quotes the
	// configuration around an error, so a literal would be shown by
	// Terraform itself, whatever the provider says.
	hcl := func(bmcExtra string) string {
		return `
variable "bmc_password" {
  type      = string
  sensitive = true
}
` + acctest.SimHost{Name: name, Address: acctest.SimAddress(srv, "sys-0"), Username: bmcUser,
			PasswordExpr: "var.bmc_password", BMCExtra: bmcExtra}.HCL()
	}
	vars := config.Variables{"bmc_password": config.StringVariable(wrong)}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		ErrorCheck:               exp.check,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					exp.expect(`BMC check failed.*BMC redfish\+http://`+regexp.QuoteMeta(hostPort)+
						`/redfish/v1/Systems/sys-0 did not accept the host's credentials.*credentials rejected \(HTTP 401\)`, wrong)
				},
				Config:          hcl(""),
				ConfigVariables: vars,
			},
			{
				PreConfig: func() {
					if exp.count() != 1 {
						t.Fatalf("step 1 succeeded with wrong BMC credentials")
					}
					if n := acctest.NodesNamed(t, acctest.Ironic(t), name); len(n) != 0 {
						t.Fatalf("the failed pre-flight registered a node: %+v", n)
					}
					// Without the pre-flight Ironic finds out, when it
					// first talks to the BMC to manage the node.
					exp.expect(`host "`+name+`" \(node [0-9a-f-]{36}\): state "registering", registration error, Ironic verb "manage".*last_error: .*returned code 401`, wrong)
				},
				Config:          hcl("    check_credentials = false"),
				ConfigVariables: vars,
			},
			{
				PreConfig: func() {
					if exp.count() != 2 {
						t.Fatalf("step 2 succeeded with wrong BMC credentials")
					}
				},
				// The failed host was kept in state, so that destroy
				// removes it.
				Config:             hcl("    check_credentials = false"),
				ConfigVariables:    vars,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
	for i, msg := range exp.seen {
		t.Logf("error %d: %s", i+1, msg)
	}
}

// 4: a burst of 503s from the BMC is survived: the pre-flight's client
// retries (sys-0), and with the pre-flight off Ironic's sushy retries
// (sys-1). Both hosts become available and both bursts were served.
func TestAccHostBMC_errorBurst(t *testing.T) {
	acctest.PreCheck(t)
	name0, name1 := acctest.Name("acc-bmc-5xx"), acctest.Name("acc-bmc-5xx")
	srv, _ := acctest.StartSim(t, 2, bmcUser, "burst-pass")
	config := acctest.SimHost{Resource: "pre", Name: name0, Address: acctest.SimAddress(srv, "sys-0"), Username: bmcUser, Password: "burst-pass"}.HCL() +
		acctest.SimHost{Resource: "noc", Name: name1, Address: acctest.SimAddress(srv, "sys-1"), Username: bmcUser, Password: "burst-pass",
			BMCExtra: "    check_credentials = false"}.HCL()
	burstServed := func(id string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			st, err := srv.State(id)
			if err != nil {
				return err
			}
			if st.Faults.ErrorBurst != 0 {
				return fmt.Errorf("simulator %s still has %d error responses to give: the burst was not exercised", id, st.Faults.ErrorBurst)
			}
			return nil
		}
	}
	acctest.ParallelTest(t, noNodesNamed(t, name0, name1), []resource.TestStep{
		{
			PreConfig: func() {
				for _, id := range []string{"sys-0", "sys-1"} {
					if err := srv.SetFaults(id, sim.Faults{ErrorBurst: 2, ErrorStatus: 503}); err != nil {
						t.Fatal(err)
					}
				}
			},
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.pre", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.noc", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.pre", "error_count", "0"),
				resource.TestCheckResourceAttr("baremetal_host.noc", "error_count", "0"),
				burstServed("sys-0"),
				burstServed("sys-1"),
			),
		},
	})
}

// 5: a credentials change is pushed to Ironic in place (same node, new
// driver_info, which Ironic then uses to power the host on), while an
// address change is planned as a replacement.
func TestAccHostBMC_credentialsChange(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.Name("acc-bmc-chg")
	srv, _ := acctest.StartSim(t, 2, bmcUser, "first-pass")
	first := acctest.SimHost{Name: name, Address: acctest.SimAddress(srv, "sys-0"), Username: bmcUser, Password: "first-pass"}
	second := first
	second.Username, second.Password, second.Extra = "operator", "second-pass", "  online = true"
	moved := second
	moved.Address = acctest.SimAddress(srv, "sys-1")
	var id string
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: first.HCL(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.DriverInfo["redfish_username"] != bmcUser {
						return fmt.Errorf("driver_info.redfish_username = %v", n.DriverInfo["redfish_username"])
					}
					return nil
				}),
				saveID("baremetal_host.test", &id),
			),
		},
		inPlace(resource.TestStep{
			// The BMC's account changes; so does the configuration.
			// Powering on proves that Ironic got the new password: the
			// old one is now rejected.
			PreConfig: func() {
				if err := srv.SetCredentials("sys-0", "operator", "second-pass"); err != nil {
					t.Fatal(err)
				}
			},
			Config: second.HCL(),
		}, &id,
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
			resource.TestCheckResourceAttr("baremetal_host.test", "bmc.username", "operator"),
			acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if n.DriverInfo["redfish_username"] != "operator" {
					return fmt.Errorf("driver_info.redfish_username = %v, want operator", n.DriverInfo["redfish_username"])
				}
				if pw := fmt.Sprint(n.DriverInfo["redfish_password"]); pw == "first-pass" || pw == "second-pass" {
					return fmt.Errorf("Ironic shows the password in driver_info")
				}
				if n.UUID != id {
					return fmt.Errorf("node %s, want %s", n.UUID, id)
				}
				return nil
			}),
			acctest.SimPower(srv, "sys-0", sim.PowerOn),
		),
		{
			// Another BMC is another machine: replace.
			Config:             moved.HCL(),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionReplace),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionReplace),
				},
			},
		},
	})
}

// 6: BMC addresses are checked at plan time, naming bmc.address. (Spaces
// in the patterns match any whitespace: Terraform wraps long messages.)
func TestAccHostBMC_addressPlanErrors(t *testing.T) {
	cases := []struct{ address, want string }{
		{"[fd00::1]", `(?s)Invalid bmc\.address.*bare IPv6 address needs a port`},
		{"redfish://fd00::1/redfish/v1/Systems/1", `(?s)Invalid bmc\.address.*IPv6 address must be written in brackets`},
		{"redfish://10.0.0.1:70000/redfish/v1/Systems/1", `(?s)Invalid bmc\.address.*port "70000" is not a number from 1 to 65535`},
		{"redfish://10.0.0.1:/redfish/v1/Systems/1", `(?s)Invalid bmc\.address.*the port is empty`},
		{"redfish+ftp://10.0.0.1/redfish/v1/Systems/1", `(?s)Invalid bmc\.address.*unknown BMC address scheme`},
		{"redfish://admin:pw@10.0.0.1/redfish/v1/Systems/1", `(?s)Invalid bmc\.address.*REDACTED@10\.0\.0\.1.*must not contain a username or password`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      acctest.SimHost{Name: "x", Address: c.address, Username: "u", Password: "p"}.HCL(),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(strings.ReplaceAll(c.want, " ", `\s+`)),
				}},
			})
		})
	}
}

// Ironic's Redfish BIOS interface reads the simulator's BIOS: after
// registration Ironic caches the settings, which GET /v1/nodes/{id}/bios
// then lists with the simulator's values.
func TestAccHostBMC_biosThroughIronic(t *testing.T) {
	_, _, host := acctest.StartSimHost(t, "acc-bmc-bios", "admin", "password")
	name := host.Name
	host.Driver = acctest.SimHostDriverWith("bios", "redfish")
	config := host.HCL()
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			func(*terraform.State) error {
				sc := acctest.Ironic(t)
				settings, err := nodes.ListBIOSSettings(context.Background(), sc, name, nil).Extract()
				if err != nil {
					return err
				}
				got := map[string]string{}
				for _, s := range settings {
					got[s.Name] = s.Value
				}
				for _, want := range sim.DefaultBIOS() {
					if want.ReadOnly {
						continue
					}
					wantV := fmt.Sprint(want.Value)
					if b, isBool := want.Value.(bool); isBool { // Ironic stores booleans as 0 and 1
						wantV = map[bool]string{false: "0", true: "1"}[b]
					}
					if v, ok := got[want.Name]; !ok || v != wantV {
						return fmt.Errorf("Ironic's BIOS setting %s = %q (present %v), want the simulator's %v; all: %v", want.Name, v, ok, want.Value, got)
					}
				}
				return nil
			},
		),
	}})
}
