package resources

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// A data image on a host that boots from virtual media is refused at plan
// when the host is known, else at create before anything is written (the
// only call to the node is Observe); both errors are on host_id and name
// the image and the boot interface.
func TestDataImageResourceRefusesVirtualMediaBoot(t *testing.T) {
	ctx := context.Background()
	const url = "http://images.example.com/ignition.iso"
	var sresp resource.SchemaResponse
	(&dataImageResource{}).Schema(ctx, resource.SchemaRequest{}, &sresp)
	s := sresp.Schema
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	bmc := objectWithNulls(typ.AttributeTypes["bmc"].(tftypes.Object), map[string]tftypes.Value{
		"address": tfStr("redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1"), "username": tfStr("admin"), "password": tfStr("secret"),
	})
	plan := func(hostID tftypes.Value) tfsdk.Plan {
		return tfsdk.Plan{Schema: s, Raw: objectWithNulls(typ, map[string]tftypes.Value{
			"host_id": hostID, "url": tfStr(url), "bmc": bmc, "id": unknownOf(tftypes.String), "device": unknownOf(tftypes.String),
		})}
	}
	noState := tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}
	want := `The data image ` + url + ` cannot go on host "host-a" (node node-1): its boot_interface "redfish-virtual-media"`
	check := func(t *testing.T, diags diag.Diagnostics) {
		t.Helper()
		errs := diags.Errors()
		if len(errs) != 1 || errs[0].Summary() != "Host boots from virtual media" || !strings.HasPrefix(errs[0].Detail(), want) {
			t.Fatalf("errors %v, want one saying %q", errs, want)
		}
		t.Logf("%s: %s", errs[0].Summary(), errs[0].Detail())
	}

	n := lifecycletest.New()
	n.BootInterface = "redfish-virtual-media"
	r := &dataImageResource{base{clients: &lifecycle.Clients{Machine: lifecycletest.NewMachine(n)}}}

	t.Run("plan, host known", func(t *testing.T) {
		resp := resource.ModifyPlanResponse{Plan: plan(tfStr("node-1"))}
		r.ModifyPlan(ctx, resource.ModifyPlanRequest{Plan: resp.Plan, State: noState}, &resp)
		check(t, resp.Diagnostics)
	})
	t.Run("plan, host known after apply", func(t *testing.T) {
		resp := resource.ModifyPlanResponse{Plan: plan(unknownOf(tftypes.String))}
		r.ModifyPlan(ctx, resource.ModifyPlanRequest{Plan: resp.Plan, State: noState}, &resp)
		if resp.Diagnostics.HasError() {
			t.Fatalf("refused at plan: %v", resp.Diagnostics)
		}
	})
	t.Run("create", func(t *testing.T) {
		resp := resource.CreateResponse{State: noState}
		r.Create(ctx, resource.CreateRequest{Plan: plan(tfStr("node-1"))}, &resp)
		check(t, resp.Diagnostics)
		if calls := n.Calls(); slices.ContainsFunc(calls, func(c string) bool { return c != "Observe" }) {
			t.Errorf("calls %v, want only Observe: nothing written", calls)
		}
	})
}
