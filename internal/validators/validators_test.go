package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestValidators(t *testing.T) {
	cases := []struct {
		v       validator.String
		in      string
		wantErr string
	}{
		{Microversion(), "1.82", ""},
		{Microversion(), "2.1", "not an Ironic API microversion"},
		{Microversion(), "1.x", "not an Ironic API microversion"},
		{Duration(), "5m", ""},
		{Duration(), "5 minutes", "not a duration"},
		{Duration(), "-5s", "negative"},
		{MAC(), "52:54:00:12:34:56", ""},
		{SwitchID(), "AA:bb:cc:dd:ee:0f", ""},
		{SwitchID(), "0123456789abcDEF", ""},
		{SwitchID(), "switch-1", `"switch-1" is not a switch id`},
		{SwitchID(), "aa:bb:cc:dd:ee", "not a switch id"},
		{MAC(), "52:54:00:12:34", "not a MAC address"},
		{MAC(), "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", "not a MAC address"},
		{RedfishBMCAddress(), "redfish-virtualmedia+http://10.0.0.5:8000/redfish/v1/Systems/1", ""},
		{RedfishBMCAddress(), "idrac-redfish://10.0.0.9", ""},
		{RedfishBMCAddress(), "ipmi://10.0.0.6", `"ipmi://10.0.0.6" is of type "ipmi", which does not speak Redfish`},
		{RedfishBMCAddress(), "10.0.0.6:623", `type "ipmi"`},
		{RedfishBMCAddress(), "libvirt://10.0.0.6", "does not speak Redfish"},
		{RedfishBMCAddress(), "redfishx://10.0.0.6", `unknown BMC address scheme "redfishx"`},
	}
	for _, c := range cases {
		resp := &validator.StringResponse{}
		c.v.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("attr"), ConfigValue: types.StringValue(c.in),
		}, resp)
		if c.wantErr == "" {
			if resp.Diagnostics.HasError() {
				t.Errorf("%q: unexpected error %v", c.in, resp.Diagnostics)
			}
			continue
		}
		if !resp.Diagnostics.HasError() {
			t.Errorf("%q: no error, want %q", c.in, c.wantErr)
			continue
		}
		d := resp.Diagnostics.Errors()[0]
		if !strings.Contains(d.Detail(), c.wantErr) || !strings.Contains(d.Summary(), "attr") {
			t.Errorf("%q: got %q / %q, want %q naming attr", c.in, d.Summary(), d.Detail(), c.wantErr)
		}
	}
	// Null and unknown values are left to other checks.
	resp := &validator.StringResponse{}
	MAC().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("a"), ConfigValue: types.StringNull()}, resp)
	if resp.Diagnostics.HasError() {
		t.Error("null value reported")
	}
}
