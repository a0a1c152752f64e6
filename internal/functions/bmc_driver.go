// Package functions holds the provider's functions (Terraform 1.8 and
// later): pure computations that need no Ironic.
package functions

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
)

// All lists the provider's functions.
func All() []func() function.Function {
	return []func() function.Function{NewBMCDriver}
}

// NewBMCDriver returns provider::baremetal::bmc_driver.
func NewBMCDriver() function.Function { return bmcDriver{} }

type bmcDriver struct{}

var bmcDriverAttrs = map[string]attr.Type{
	"type":              types.StringType,
	"driver":            types.StringType,
	"interfaces":        types.MapType{ElemType: types.StringType},
	"inspect_interface": types.MapType{ElemType: types.StringType},
	"driver_info":       types.MapType{ElemType: types.StringType},
	"driver_info_keys":  types.ListType{ElemType: types.StringType},
	"redfish":           types.BoolType,
	"virtual_media":     types.BoolType,
	"secure_boot":       types.BoolType,
	"needs_mac":         types.BoolType,
}

func (bmcDriver) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "bmc_driver"
}

func (bmcDriver) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The Ironic driver, interfaces and driver_info keys a BMC address implies",
		MarkdownDescription: "Parses a BMC address as `baremetal_host`'s `bmc.address` does (the Metal3 Bare Metal Operator's schemes) " +
			"and returns what it implies for Ironic, for composing raw Ironic settings (`driver`, `interfaces`, `driver_info`): " +
			"`type` (the scheme without `+http`/`+https`), `driver` (the Ironic hardware type), `interfaces` (Ironic interface fields " +
			"such as `boot_interface`; interfaces left to Ironic's default are absent), `inspect_interface` (the inspect interface for each " +
			"`inspection` mode: `enabled`, `out-of-band`, `disabled`; `out-of-band` is absent when the driver cannot inspect out of band), " +
			"`driver_info` (the non-secret driver_info values: address, port, system id, privilege level), `driver_info_keys` (every " +
			"driver_info key the address implies, the username and password keys included, sorted), and the flags `redfish`, " +
			"`virtual_media`, `secure_boot` and `needs_mac`. A bad address fails with the reason. Provider functions need Terraform 1.8 or later.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "address",
				MarkdownDescription: "A BMC address, e.g. `redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1` or `ipmi://10.0.0.6:623`.",
			},
		},
		Return: function.ObjectReturn{AttributeTypes: bmcDriverAttrs},
	}
}

func (bmcDriver) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var address string
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &address))
	if resp.Error != nil {
		return
	}
	d, err := bmcaddr.Parse(address)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, "Invalid BMC address: "+err.Error())
		return
	}
	// Placeholders stand for the credentials: only the keys are returned.
	info := d.DriverInfo("username", "password", false)
	keys := make([]string, 0, len(info))
	public := map[string]string{}
	for k, v := range info {
		keys = append(keys, k)
		if !bmcaddr.IsCredentialKey(k) {
			public[k] = toString(v)
		}
	}
	sort.Strings(keys)
	inspect := map[string]string{}
	for _, mode := range bmcaddr.InspectionModes {
		if iface := d.InspectInterface(mode); iface != "" {
			inspect[mode] = iface
		}
	}
	obj, diags := types.ObjectValue(bmcDriverAttrs, map[string]attr.Value{
		"type":              types.StringValue(d.Type),
		"driver":            types.StringValue(d.Driver),
		"interfaces":        stringMap(d.Interfaces),
		"inspect_interface": stringMap(inspect),
		"driver_info":       stringMap(public),
		"driver_info_keys":  stringList(keys),
		"redfish":           types.BoolValue(d.IsRedfish()),
		"virtual_media":     types.BoolValue(d.VirtualMedia),
		"secure_boot":       types.BoolValue(d.SupportsSecureBoot),
		"needs_mac":         types.BoolValue(d.NeedsMAC),
	})
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, obj))
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

func stringMap(m map[string]string) types.Map {
	el := make(map[string]attr.Value, len(m))
	for k, v := range m {
		el[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, el)
}

func stringList(s []string) types.List {
	el := make([]attr.Value, len(s))
	for i, v := range s {
		el[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, el)
}
