package tfglue

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestBMCModelAccess(t *testing.T) {
	known := func(addr string) *BMCModel {
		return &BMCModel{Address: types.StringValue(addr), Username: types.StringValue("admin"),
			Password: types.StringValue("secret"), DisableCertificateVerification: types.BoolValue(true)}
	}
	unknownPassword := known("redfish://bmc.example/redfish/v1/Systems/1")
	unknownPassword.Password = types.StringUnknown()
	for name, tc := range map[string]struct {
		b         *BMCModel
		wantNil   bool
		wantError bool
	}{
		"no block":         {b: nil, wantNil: true},
		"unknown address":  {b: &BMCModel{Address: types.StringUnknown(), Password: types.StringValue("x")}, wantNil: true},
		"unknown password": {b: unknownPassword, wantNil: true},
		"bad address":      {b: known("nope://bmc"), wantNil: true, wantError: true},
		"redfish":          {b: known("redfish://bmc.example/redfish/v1/Systems/1")},
	} {
		t.Run(name, func(t *testing.T) {
			var diags diag.Diagnostics
			a := tc.b.Access(&diags)
			if (a == nil) != tc.wantNil || diags.HasError() != tc.wantError {
				t.Fatalf("got %+v, %v; want nil %v, error %v", a, diags, tc.wantNil, tc.wantError)
			}
			if a != nil && (a.DriverInfo["redfish_username"] != "admin" || a.DriverInfo["redfish_password"] != "secret" ||
				a.DriverInfo["redfish_verify_ca"] != false || a.Driver != "redfish") {
				t.Fatalf("access %+v does not carry the block's credentials and driver", a)
			}
		})
	}
}

func TestBMCFromObject(t *testing.T) {
	ctx := context.Background()
	types4 := map[string]attr.Type{"address": types.StringType, "username": types.StringType,
		"password": types.StringType, "disable_certificate_verification": types.BoolType}
	var diags diag.Diagnostics
	if b := BMCFromObject(ctx, types.ObjectNull(types4), &diags); b != nil {
		t.Fatalf("null block: got %+v", b)
	}
	if b := BMCFromObject(ctx, types.ObjectUnknown(types4), &diags); b != nil {
		t.Fatalf("unknown block: got %+v", b)
	}
	o := types.ObjectValueMust(types4, map[string]attr.Value{
		"address": types.StringValue("redfish://bmc"), "username": types.StringValue("u"),
		"password": types.StringUnknown(), "disable_certificate_verification": types.BoolNull(),
	})
	b := BMCFromObject(ctx, o, &diags)
	if diags.HasError() || b == nil || b.Address.ValueString() != "redfish://bmc" || !b.Password.IsUnknown() {
		t.Fatalf("block with an unknown password: got %+v, %v", b, diags)
	}
	if a := b.Access(&diags); a != nil {
		t.Fatalf("unknown password: access %+v, want nil until known", a)
	}
}
