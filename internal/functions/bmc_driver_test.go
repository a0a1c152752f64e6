package functions

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// run calls the function in process, as Terraform would.
func run(t *testing.T, address string) (map[string]attr.Value, *function.FuncError) {
	t.Helper()
	req := function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(address)})}
	resp := &function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(bmcDriverAttrs))}
	bmcDriver{}.Run(context.Background(), req, resp)
	if resp.Error != nil {
		return nil, resp.Error
	}
	obj, ok := resp.Result.Value().(types.Object)
	if !ok {
		t.Fatalf("result is %T", resp.Result.Value())
	}
	return obj.Attributes(), nil
}

func str(v attr.Value) string { return v.(types.String).ValueString() }

func mapOf(v attr.Value) map[string]string {
	out := map[string]string{}
	for k, e := range v.(types.Map).Elements() {
		out[k] = str(e)
	}
	return out
}

func TestBMCDriver(t *testing.T) {
	for _, tc := range []struct {
		address, typ, driver, boot, oob string
		info                            map[string]string
		keys                            string
		vm                              bool
	}{
		{"ipmi://10.0.0.6", "ipmi", "ipmi", "ipxe", "",
			map[string]string{"ipmi_address": "10.0.0.6", "ipmi_port": "623", "ipmi_priv_level": "ADMINISTRATOR"},
			"ipmi_address ipmi_password ipmi_port ipmi_priv_level ipmi_username", false},
		{"redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1", "redfish-virtualmedia", "redfish", "redfish-virtual-media", "redfish",
			map[string]string{"redfish_address": "https://10.0.0.5", "redfish_system_id": "/redfish/v1/Systems/1"},
			"redfish_address redfish_password redfish_system_id redfish_username", true},
		{"idrac-virtualmedia+http://bmc.example.com:8000", "idrac-virtualmedia", "idrac", "idrac-redfish-virtual-media", "idrac-redfish",
			map[string]string{"redfish_address": "http://bmc.example.com:8000"},
			"redfish_address redfish_password redfish_username", true},
	} {
		t.Run(tc.address, func(t *testing.T) {
			got, ferr := run(t, tc.address)
			if ferr != nil {
				t.Fatal(ferr)
			}
			if str(got["type"]) != tc.typ || str(got["driver"]) != tc.driver {
				t.Errorf("type %s driver %s, want %s %s", got["type"], got["driver"], tc.typ, tc.driver)
			}
			if b := mapOf(got["interfaces"])["boot_interface"]; b != tc.boot {
				t.Errorf("boot_interface %q, want %q", b, tc.boot)
			}
			insp := mapOf(got["inspect_interface"])
			if insp["enabled"] != "agent" || insp["disabled"] != "no-inspect" || insp["out-of-band"] != tc.oob {
				t.Errorf("inspect_interface %v, want agent, no-inspect and out-of-band %q", insp, tc.oob)
			}
			info := mapOf(got["driver_info"])
			if len(info) != len(tc.info) {
				t.Errorf("driver_info %v, want %v", info, tc.info)
			}
			for k, v := range tc.info {
				if info[k] != v {
					t.Errorf("driver_info[%s] = %q, want %q", k, info[k], v)
				}
			}
			var keys []string
			for _, k := range got["driver_info_keys"].(types.List).Elements() {
				keys = append(keys, str(k))
			}
			if strings.Join(keys, " ") != tc.keys {
				t.Errorf("driver_info_keys %v, want %s", keys, tc.keys)
			}
			if got["virtual_media"].(types.Bool).ValueBool() != tc.vm {
				t.Errorf("virtual_media %v", got["virtual_media"])
			}
		})
	}
}

func TestBMCDriverBadAddress(t *testing.T) {
	_, ferr := run(t, "redfish+ftp://10.0.0.1/redfish/v1/Systems/1")
	if ferr == nil {
		t.Fatal("no error for an unknown scheme")
	}
	if ferr.FunctionArgument == nil || *ferr.FunctionArgument != 0 ||
		!strings.Contains(ferr.Text, `unknown BMC address scheme "redfish+ftp"`) {
		t.Fatalf("error %+v, want the argument and the scheme named", ferr)
	}
}
