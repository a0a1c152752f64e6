package resources_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// The resource identity tests (Terraform 1.12+; they run with
// acctest.Terraform114, so not in parallel).

// apiNode creates a fake-hardware node straight through Ironic's API, as
// another tool would (it stays in enroll), and deletes it when the test
// ends if Terraform did not. It returns the node's UUID.
func apiNode(t *testing.T, sc *gophercloud.ServiceClient, name, resourceClass string, labels map[string]string) string {
	t.Helper()
	opts := nodes.CreateOpts{Name: name, Driver: "fake-hardware", ResourceClass: resourceClass}
	if len(labels) > 0 {
		opts.Extra = map[string]any{"labels": labels}
	}
	n, err := nodes.Create(context.Background(), sc, opts).Extract()
	if err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := nodes.Delete(context.Background(), sc, n.UUID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("delete node %s: %v", name, err)
		}
	})
	return n.UUID
}

// TestAccIdentity_host imports a host made outside Terraform by id (an
// import block naming the node), then by identity and by id again: each
// import plans no change, and the identity is the node UUID.
func TestAccIdentity_host(t *testing.T) {
	acctest.Terraform114(t)
	sc := acctest.Ironic(t)
	name := acctest.Name("acc-ident")
	uuid := apiNode(t, sc, name, "baremetal", map[string]string{"fleet": "ident"})
	const addr = "baremetal_host.test"
	// What terraform query would write for this node.
	cfg := fmt.Sprintf(`
resource "baremetal_host" "test" {
  name           = %q
  driver         = "fake-hardware"
  resource_class = "baremetal"
  labels         = { fleet = "ident" }
}
`, name)
	acctest.Test(t, noNodesNamed(t, name), []resource.TestStep{
		{ // An import block by name; the plan after the apply is empty.
			Config: cfg + fmt.Sprintf(`
import {
  to = %s
  id = %q
}
`, addr, name),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{"id": knownvalue.StringExact(uuid)}),
				statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New("id")),
			},
		},
		{ // import { identity = { id = "<uuid>" } }: no change.
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
			Config:          cfg,
		},
		{ // import { id = "<uuid>" }: no change.
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			Config:          cfg,
		},
	})
}

// TestAccIdentity_deployment deploys a host, then imports its deployment
// by identity and by id: no change, identity the node UUID.
func TestAccIdentity_deployment(t *testing.T) {
	acctest.Terraform114(t)
	name := acctest.Name("acc-ident-dep")
	const addr = "baremetal_deployment.test"
	cfg := depConfig(name, deployment(depImageA, depMD5, "", ""))
	acctest.Test(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New("id")),
				statecheck.ExpectIdentityValueMatchesStateAtPath(addr, tfjsonpath.New("id"), tfjsonpath.New("host_id")),
				statecheck.ExpectIdentityValueMatchesState("baremetal_host.test", tfjsonpath.New("id")),
			},
		},
		{ // The deployment list resource finds it, as import would read it.
			Query: true,
			Config: fmt.Sprintf(`
list "baremetal_deployment" "test" {
  provider         = baremetal
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name),
			QueryResultChecks: []querycheck.QueryResultCheck{
				querycheck.ExpectLength("baremetal_deployment.test", 1),
				querycheck.ExpectResourceKnownValues("baremetal_deployment.test",
					queryfilter.ByDisplayName(knownvalue.StringExact(name)), []querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("image").AtMapKey("url"), KnownValue: knownvalue.StringExact(depImageA)},
						{Path: tfjsonpath.New("image").AtMapKey("checksum"), KnownValue: knownvalue.StringExact(depMD5)},
						{Path: tfjsonpath.New("host_name"), KnownValue: knownvalue.StringExact(name)},
						{Path: tfjsonpath.New("provisioning_state"), KnownValue: knownvalue.StringExact("provisioned")},
						{Path: tfjsonpath.New("user_data"), KnownValue: knownvalue.Null()},
					}),
			},
		},
		{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
			Config:          cfg,
		},
		{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			Config:          cfg,
		},
	})
}

// TestAccIdentity_refreshAddsIdentity refreshes a host state written
// before resources had identities (as by Terraform before 1.12, or this
// provider before identities): the refresh returns the identity, which
// Terraform 1.12+ then stores. It speaks the plugin protocol to the
// provider directly, as Terraform does.
func TestAccIdentity_refreshAddsIdentity(t *testing.T) {
	sc := acctest.Ironic(t)
	t.Parallel()
	name := acctest.Name("acc-ident-old")
	uuid := apiNode(t, sc, name, "baremetal", nil)
	ctx := context.Background()
	srv, schemas := configuredServer(t)

	// The state of an imported host, as a provider without identities
	// wrote it: no identity beside it.
	old := fmt.Sprintf(`{"id": %q, "name": %q, "provisioning_state": "registering", "online": false, "externally_provisioned": false}`, uuid, name)
	up, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "baremetal_host", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(old)},
	})
	if err != nil || diagErrors(up.Diagnostics) != "" {
		t.Fatalf("upgrade state: %v %s", err, diagErrors(up.Diagnostics))
	}
	read, err := srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "baremetal_host", CurrentState: up.UpgradedState})
	if err != nil || diagErrors(read.Diagnostics) != "" {
		t.Fatalf("read: %v %s", err, diagErrors(read.Diagnostics))
	}
	if read.NewIdentity == nil || read.NewIdentity.IdentityData == nil {
		t.Fatal("the refresh returned no identity")
	}
	idType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}}
	v, err := read.NewIdentity.IdentityData.Unmarshal(idType)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	var got string
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if err := attrs["id"].As(&got); err != nil || got != uuid {
		t.Fatalf("identity id = %q (%v), want the node UUID %s", got, err, uuid)
	}

	// The node deleted behind Terraform's back: the refresh of the same
	// old state removes the host, without an error.
	if err := nodes.Delete(ctx, sc, uuid).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	srv, _ = configuredServer(t) // the next terraform command: a new provider process
	gone, err := srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "baremetal_host", CurrentState: up.UpgradedState})
	if err != nil || diagErrors(gone.Diagnostics) != "" {
		t.Fatalf("read of a deleted node: %v %s", err, diagErrors(gone.Diagnostics))
	}
	st, err := gone.NewState.Unmarshal(schemas.ResourceSchemas["baremetal_host"].ValueType())
	if err != nil || !st.IsNull() {
		t.Fatalf("the host of a deleted node is still in state: %v %v", st, err)
	}
}

// configuredServer is the provider as Terraform starts it: served over
// the plugin protocol, and configured with the rig's endpoint.
func configuredServer(t *testing.T) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	ctx := context.Background()
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	provType := schemas.Provider.ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for k, typ := range provType.AttributeTypes {
		vals[k] = tftypes.NewValue(typ, nil)
	}
	vals["endpoint"] = tftypes.NewValue(tftypes.String, acctest.Endpoint())
	cfg, err := tfprotov6.NewDynamicValue(provType, tftypes.NewValue(provType, vals))
	if err != nil {
		t.Fatal(err)
	}
	conf, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil || diagErrors(conf.Diagnostics) != "" {
		t.Fatalf("configure: %v %s", err, diagErrors(conf.Diagnostics))
	}
	return srv, schemas
}

// diagErrors is the text of the error diagnostics, "" when there are none.
func diagErrors(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "; ")
}

// TestAccIdentity_ipPool imports a pool by its name and a claim by its
// pool and owner, through their identities and by id: no change.
func TestAccIdentity_ipPool(t *testing.T) {
	acctest.Terraform114(t)
	pool := acctest.Name("acc-idpool")
	cfg := poolHCL(pool, 77, 10, 20) + `
resource "baremetal_ip_claim" "c" {
  pool  = baremetal_ip_pool.pool.name
  owner = "worker-0"
}
`
	acctest.Test(t, noPoolLeft(t, pool), []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity("baremetal_ip_pool.pool", map[string]knownvalue.Check{"name": knownvalue.StringExact(pool)}),
				statecheck.ExpectIdentity("baremetal_ip_claim.c", map[string]knownvalue.Check{
					"pool": knownvalue.StringExact(pool), "owner": knownvalue.StringExact("worker-0"),
				}),
			},
		},
		{ResourceName: "baremetal_ip_pool.pool", ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, Config: cfg},
		{ResourceName: "baremetal_ip_claim.c", ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, Config: cfg},
		{
			ResourceName: "baremetal_ip_claim.c", ImportState: true, ImportStateKind: resource.ImportBlockWithID, Config: cfg,
			ImportStateId: pool + "/worker-0",
		},
	})
}
