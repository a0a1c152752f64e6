package resources

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Plan-time checks skip values not known yet and judge them once known.
// To the provider a variable at terraform validate, an attribute known
// only after apply (terraform_data's output) and a for_each key are all an
// unknown value; the cases are named after where it comes from. The
// corpus in internal/provider's badinput_test.go runs the same through
// terraform validate.

func unknownOf(t tftypes.Type) tftypes.Value { return tftypes.NewValue(t, tftypes.UnknownValue) }

func tfStr(v string) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }

// hostTypes are the Terraform types of the host schema's nested attributes.
type hostTypes struct {
	host, bmc, raid, hw, sw, disk tftypes.Object
	hwList, swList, disks         tftypes.List
	strList, strMap               tftypes.Type
}

func newHostTypes(t *testing.T) hostTypes {
	t.Helper()
	typ := hostSchema(t).Type().TerraformType(context.Background()).(tftypes.Object)
	var h hostTypes
	h.host = typ
	h.bmc = typ.AttributeTypes["bmc"].(tftypes.Object)
	h.raid = typ.AttributeTypes["raid"].(tftypes.Object)
	h.hwList = h.raid.AttributeTypes["hardware_volumes"].(tftypes.List)
	h.hw = h.hwList.ElementType.(tftypes.Object)
	h.swList = h.raid.AttributeTypes["software_volumes"].(tftypes.List)
	h.sw = h.swList.ElementType.(tftypes.Object)
	h.disks = h.sw.AttributeTypes["physical_disks"].(tftypes.List)
	h.disk = h.disks.ElementType.(tftypes.Object)
	h.strList = h.hw.AttributeTypes["physical_disks"]
	h.strMap = typ.AttributeTypes["interfaces"]
	return h
}

func (h hostTypes) bmcAt(address tftypes.Value) tftypes.Value {
	return objectWithNulls(h.bmc, map[string]tftypes.Value{"address": address, "username": tfStr("admin"), "password": tfStr("secret")})
}

func (h hostTypes) redfish() tftypes.Value {
	return h.bmcAt(tfStr("redfish://10.0.0.5/redfish/v1/Systems/1"))
}

func (h hostTypes) ipmi() tftypes.Value { return h.bmcAt(tfStr("ipmi://10.0.0.7")) }

// raidOf is a raid block; a nil list is left out (null), a non-nil
// tftypes.Value list is used as it is.
func (h hostTypes) raidOf(hw, sw any) tftypes.Value {
	set := map[string]tftypes.Value{}
	for name, v := range map[string]any{"hardware_volumes": hw, "software_volumes": sw} {
		lt := h.hwList
		if name == "software_volumes" {
			lt = h.swList
		}
		switch v := v.(type) {
		case []tftypes.Value:
			set[name] = tftypes.NewValue(lt, v)
		case tftypes.Value:
			set[name] = v
		}
	}
	return objectWithNulls(h.raid, set)
}

func (h hostTypes) vol(set map[string]tftypes.Value) tftypes.Value { return objectWithNulls(h.hw, set) }
func (h hostTypes) swVol(set map[string]tftypes.Value) tftypes.Value {
	return objectWithNulls(h.sw, set)
}

func (h hostTypes) strings(vals ...string) tftypes.Value {
	el := make([]tftypes.Value, 0, len(vals))
	for _, v := range vals {
		el = append(el, tfStr(v))
	}
	return tftypes.NewValue(h.strList, el)
}

func (h hostTypes) interfaces(m map[string]tftypes.Value) tftypes.Value {
	return tftypes.NewValue(h.strMap, m)
}

func TestHostValidateConfig_unknownValues(t *testing.T) {
	s := hostSchema(t)
	h := newHostTypes(t)
	agent := h.interfaces(map[string]tftypes.Value{"raid": tfStr("agent")})
	cases := []struct {
		name string
		top  map[string]tftypes.Value
		want string // a part of the one error wanted; empty: none
	}{
		// Not known yet: skipped.
		{"hardware level from a variable", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{"level": unknownOf(tftypes.String)})}, nil),
		}, ""},
		{"controller known after apply", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{
				"level": tfStr("1"), "controller": unknownOf(tftypes.String), "physical_disks": h.strings("Disk.0", "Disk.1"),
			})}, nil),
		}, ""},
		{"hardware level from a for_each key", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{
				h.vol(map[string]tftypes.Value{"level": unknownOf(tftypes.String)}),
				h.vol(map[string]tftypes.Value{"level": tfStr("5"), "number_of_physical_disks": unknownOf(tftypes.Number)}),
			}, nil),
		}, ""},
		{"software level from a variable", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": agent,
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": unknownOf(tftypes.String)}),
				h.swVol(map[string]tftypes.Value{"level": tfStr("0")})}),
		}, ""},
		{"raid interface from a for_each key", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": h.interfaces(map[string]tftypes.Value{"raid": unknownOf(tftypes.String)}),
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1")})}),
		}, ""},
		{"interfaces from a variable", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": unknownOf(h.strMap),
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1")})}),
		}, ""},
		{"BMC address known after apply", map[string]tftypes.Value{
			"bmc":  h.bmcAt(unknownOf(tftypes.String)),
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1")})}),
		}, ""},
		{"bmc block from a variable", map[string]tftypes.Value{
			"bmc": unknownOf(h.bmc), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{"level": tfStr("1")})}, nil),
		}, ""},
		{"raid block from a variable", map[string]tftypes.Value{"bmc": h.redfish(), "raid": unknownOf(h.raid)}, ""},
		{"hardware volumes known after apply", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf(unknownOf(h.hwList), nil),
		}, ""},
		{"software physical disks from a variable", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": agent,
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1"), "physical_disks": unknownOf(h.disks)})}),
		}, ""},
		{"one software physical disk from a for_each value", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": agent,
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1"), "physical_disks": tftypes.NewValue(h.disks,
				[]tftypes.Value{unknownOf(h.disk), objectWithNulls(h.disk, map[string]tftypes.Value{"hctl": tfStr("0:0:1:0")})})})}),
		}, ""},
		{"root device hints from a variable", map[string]tftypes.Value{
			"bmc": h.redfish(), "root_device_hints": unknownOf(h.host.AttributeTypes["root_device_hints"]),
		}, ""},

		// Known: judged.
		{"hardware level known", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{"level": tfStr("7")})}, nil),
		}, `raid.hardware_volumes[0]: level "7" is not one of`},
		{"hardware level known empty", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{"level": tfStr("")})}, nil),
		}, `level "" is not one of`},
		{"controller known missing", map[string]tftypes.Value{
			"bmc": h.redfish(), "raid": h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{
				"level": tfStr("1"), "physical_disks": h.strings("Disk.0"),
			})}, nil),
		}, "physical_disks needs controller"},
		{"software level known", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": agent,
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("5")})}),
		}, `raid.software_volumes[0]: level "5"`},
		{"interfaces known without raid", map[string]tftypes.Value{
			"bmc": h.ipmi(), "interfaces": h.interfaces(map[string]tftypes.Value{"power": tfStr("ipmitool")}),
			"raid": h.raidOf(nil, []tftypes.Value{h.swVol(map[string]tftypes.Value{"level": tfStr("1")})}),
		}, `raid interface is "no-raid"`},
		{"bmc known null", map[string]tftypes.Value{}, "Set bmc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkHostValidate(t, s, map[string]tftypes.Value{"name": tfStr("h")}, c.top, c.want)
		})
	}
}

// checkHostValidate runs the host's ValidateConfig on base overlaid with
// top: it wants one error whose detail says want, or none when want is
// empty.
func checkHostValidate(t *testing.T, s schema.Schema, base, top map[string]tftypes.Value, want string) {
	t.Helper()
	for k, v := range top {
		base[k] = v
	}
	var resp resource.ValidateConfigResponse
	(&hostResource{}).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: hostConfig(t, s, base)}, &resp)
	errs := resp.Diagnostics.Errors()
	switch {
	case want == "" && len(errs) > 0:
		t.Fatalf("refused: %v", errs)
	case want == "":
	case len(errs) != 1 || !strings.Contains(errs[0].Detail(), want):
		t.Fatalf("want one error saying %q, got %v", want, errs)
	default:
		t.Logf("%s: %s", errs[0].Summary(), errs[0].Detail())
	}
}

// A RAID change on a provisioned host is refused at plan; one not known
// yet is judged by apply's final plan.
func TestHostModifyPlan_unknownRAID(t *testing.T) {
	ctx := context.Background()
	s := hostSchema(t)
	h := newHostTypes(t)
	level := func(v tftypes.Value) tftypes.Value {
		return h.raidOf([]tftypes.Value{h.vol(map[string]tftypes.Value{"level": v})}, nil)
	}
	host := func(raid tftypes.Value) tftypes.Value {
		return objectWithNulls(h.host, map[string]tftypes.Value{
			"id": tfStr("0b5a5fd4-5a8c-4c3c-9d6b-1d2f3e4a5b6c"), "name": tfStr("h"), "bmc": h.redfish(),
			"provisioning_state": tfStr(string(lifecycle.StateProvisioned)), "raid": raid,
		})
	}
	state := tfsdk.State{Schema: s, Raw: host(level(tfStr("1")))}
	for _, c := range []struct {
		name   string
		raid   tftypes.Value
		refuse bool
	}{
		{"level from a variable", level(unknownOf(tftypes.String)), false},
		{"raid block known after apply", unknownOf(h.raid), false},
		{"volumes from a for_each value", h.raidOf(unknownOf(h.hwList), nil), false},
		{"same level", level(tfStr("1")), false},
		{"level known and changed", level(tfStr("5")), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := tfsdk.Plan{Schema: s, Raw: host(c.raid)}
			req := resource.ModifyPlanRequest{Config: tfsdk.Config{Schema: s, Raw: host(c.raid)}, Plan: plan, State: state}
			resp := resource.ModifyPlanResponse{Plan: plan}
			(&hostResource{}).ModifyPlan(ctx, req, &resp)
			errs := resp.Diagnostics.Errors()
			switch {
			case c.refuse && (len(errs) != 1 || errs[0].Summary() != "RAID cannot change on a provisioned host"):
				t.Fatalf("want the RAID change refused, got %v", errs)
			case !c.refuse && len(errs) > 0:
				t.Fatalf("refused: %v", errs)
			}
		})
	}
}

// firmwareStub fails the test if ModifyPlan asks Ironic anything: it must
// not while the updates are unknown.
type firmwareStub struct{ lifecycle.FirmwareCatalog }

func TestFirmwareUpdateChecks_unknownValues(t *testing.T) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&firmwareUpdateResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	s := sr.Schema
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	updatesType := typ.AttributeTypes["updates"].(tftypes.List)
	updateType := updatesType.ElementType.(tftypes.Object)
	update := func(component tftypes.Value) tftypes.Value {
		return objectWithNulls(updateType, map[string]tftypes.Value{"component": component, "url": tfStr("http://img/x.bin")})
	}
	list := func(vs ...tftypes.Value) tftypes.Value { return tftypes.NewValue(updatesType, vs) }
	for _, c := range []struct {
		name      string
		hostID    tftypes.Value
		updates   tftypes.Value
		duplicate bool
	}{
		{"updates from a variable", tfStr("worker-0"), unknownOf(updatesType), false},
		{"component from a for_each key", tfStr("worker-0"), list(update(unknownOf(tftypes.String)), update(tfStr("bios"))), false},
		{"host known after apply", unknownOf(tftypes.String), list(update(tfStr("bios"))), false},
		{"component known twice", tfStr("worker-0"), list(update(tfStr("bmc")), update(tfStr("bmc"))), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := objectWithNulls(typ, map[string]tftypes.Value{"host_id": c.hostID, "updates": c.updates})
			var vresp resource.ValidateConfigResponse
			(&firmwareUpdateResource{}).ValidateConfig(ctx, resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s, Raw: raw}}, &vresp)
			if got := vresp.Diagnostics.HasError(); got != c.duplicate {
				t.Fatalf("ValidateConfig errors %v, want an error: %v", vresp.Diagnostics, c.duplicate)
			}
			if c.duplicate {
				return // ModifyPlan would ask Ironic
			}
			plan := tfsdk.Plan{Schema: s, Raw: raw}
			r := &firmwareUpdateResource{base: base{clients: &lifecycle.Clients{Firmware: firmwareStub{}}}}
			mresp := resource.ModifyPlanResponse{Plan: plan}
			r.ModifyPlan(ctx, resource.ModifyPlanRequest{Plan: plan, State: tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}}, &mresp)
			if mresp.Diagnostics.HasError() {
				t.Fatalf("ModifyPlan: %v", mresp.Diagnostics)
			}
		})
	}
}

// baremetal_firmware_settings' plan: a bmc or firmware block known only
// after apply (from a variable, another resource's output) is left to
// apply, not a conversion error.
func TestFirmwareSettingsModifyPlan_unknownBlocks(t *testing.T) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&firmwareSettingsResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	s := sr.Schema
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	settings := tftypes.NewValue(typ.AttributeTypes["settings"], map[string]tftypes.Value{"NumLock": tfStr("Off")})
	for _, block := range []string{"bmc", "firmware"} {
		t.Run(block, func(t *testing.T) {
			raw := objectWithNulls(typ, map[string]tftypes.Value{
				"host_id": tfStr("worker-0"), "settings": settings, block: unknownOf(typ.AttributeTypes[block]),
			})
			plan := tfsdk.Plan{Schema: s, Raw: raw}
			r := &firmwareSettingsResource{base: base{clients: &lifecycle.Clients{Firmware: firmwareStub{}}}}
			resp := resource.ModifyPlanResponse{Plan: plan}
			r.ModifyPlan(ctx, resource.ModifyPlanRequest{Plan: plan, State: tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}}, &resp)
			if resp.Diagnostics.HasError() {
				t.Fatalf("ModifyPlan with %s unknown: %v", block, resp.Diagnostics)
			}
		})
	}
}
