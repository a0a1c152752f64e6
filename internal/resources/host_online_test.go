package resources

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// onlineHost is a host object in state or plan: provisioning state st,
// online on, ironic_state and last_updated as given (unknown when nil),
// and the rest of set.
func onlineHost(t *testing.T, st lifecycle.State, online tftypes.Value, ironic any, set map[string]tftypes.Value) tftypes.Value {
	t.Helper()
	typ := hostSchema(t).Type().TerraformType(context.Background()).(tftypes.Object) //nolint:forcetypeassert // a schema's type is an object
	v := map[string]tftypes.Value{
		"id": tfStr("0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c"), "name": tfStr("h"),
		"provisioning_state": tfStr(string(st)), "online": online,
		"ironic_state": tftypes.NewValue(tftypes.String, ironic), "last_updated": tftypes.NewValue(tftypes.String, ironic),
	}
	if ironic == nil {
		v["ironic_state"], v["last_updated"] = unknownOf(tftypes.String), unknownOf(tftypes.String)
	}
	for k, x := range set {
		v[k] = x
	}
	return objectWithNulls(typ, v)
}

func tfBool(b bool) tftypes.Value { return tftypes.NewValue(tftypes.Bool, b) }

// PlanModifyBool keeps online as the state has it only on a provisioned
// host whose configuration leaves online unset.
func TestOnlinePlan_PlanModifyBool(t *testing.T) {
	ctx := context.Background()
	s := hostSchema(t)
	unset, on, off := types.BoolNull(), types.BoolValue(true), types.BoolValue(false)
	for _, c := range []struct {
		name          string
		st            lifecycle.State
		state, config types.Bool // online in state (null: created) and configuration
		want          types.Bool
	}{
		{"provisioned, unset: the observed power stays", lifecycle.StateProvisioned, on, unset, on},
		{"provisioned and off, unset: stays off", lifecycle.StateProvisioned, off, unset, off},
		{"provisioned, set false: powers off", lifecycle.StateProvisioned, on, off, off},
		{"available, unset: the default", lifecycle.StateAvailable, on, unset, off},
		{"externally provisioned, unset: the default", lifecycle.StateExternallyProvisioned, on, unset, off},
		{"create: the default", lifecycle.StateProvisioned, unset, unset, off},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := tfsdk.State{Schema: s, Raw: onlineHost(t, c.st, tfBool(c.state.ValueBool()), "active", nil)}
			if c.state.IsNull() {
				state.Raw = tftypes.NewValue(state.Raw.Type(), nil)
			}
			planned := c.config // the framework's default, false, where the configuration is unset
			if planned.IsNull() {
				planned = off
			}
			req := planmodifier.BoolRequest{ConfigValue: c.config, PlanValue: planned, StateValue: c.state, State: state}
			resp := planmodifier.BoolResponse{PlanValue: req.PlanValue}
			onlinePlan{}.PlanModifyBool(ctx, req, &resp)
			if resp.Diagnostics.HasError() || !resp.PlanValue.Equal(c.want) {
				t.Fatalf("online planned %v (%v), want %v", resp.PlanValue, resp.Diagnostics, c.want)
			}
		})
	}
}

// settle turns the plan back into the state when the only difference was
// the unset online of a provisioned host (every computed attribute marked
// unknown by the framework); any other change keeps the plan as it is.
func TestOnlinePlan_settle(t *testing.T) {
	ctx := context.Background()
	s := hostSchema(t)
	nullBool := tftypes.NewValue(tftypes.Bool, nil)
	labels := func(v string) map[string]tftypes.Value {
		return map[string]tftypes.Value{"labels": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String},
			map[string]tftypes.Value{"rack": tfStr(v)})}
	}
	for _, c := range []struct {
		name       string
		st         lifecycle.State
		config     tftypes.Value // online in the configuration
		planOnline tftypes.Value // online in the plan, after PlanModifyBool
		planSet    map[string]tftypes.Value
		wantState  bool // the plan is the state
	}{
		{"provisioned, unset, nothing else: no change", lifecycle.StateProvisioned, nullBool, tfBool(true), nil, true},
		{"provisioned, unset, labels change: planned as is", lifecycle.StateProvisioned, nullBool, tfBool(true), labels("b"), false},
		{"provisioned, set true: planned as is", lifecycle.StateProvisioned, tfBool(true), tfBool(true), nil, false},
		{"available, unset: planned as is", lifecycle.StateAvailable, nullBool, tfBool(false), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := tfsdk.State{Schema: s, Raw: onlineHost(t, c.st, tfBool(true), "active", labels("a"))}
			set := labels("a")
			for k, v := range c.planSet {
				set[k] = v
			}
			plan := tfsdk.Plan{Schema: s, Raw: onlineHost(t, c.st, c.planOnline, nil, set)}
			config := tfsdk.Config{Schema: s, Raw: onlineHost(t, c.st, c.config, "active", set)}
			resp := resource.ModifyPlanResponse{Plan: plan}
			onlinePlan{}.settle(ctx, resource.ModifyPlanRequest{Config: config, Plan: plan, State: state}, &resp)
			if got := resp.Plan.Raw.Equal(state.Raw); got != c.wantState {
				t.Fatalf("plan is the state: %v, want %v\nplan: %v", got, c.wantState, resp.Plan.Raw)
			}
			if !c.wantState && !resp.Plan.Raw.Equal(plan.Raw) {
				t.Fatalf("plan changed: %v", resp.Plan.Raw)
			}
		})
	}
}
