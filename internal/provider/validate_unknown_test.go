package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The keystone block from a variable (or a for_each value, or anything
// known only after apply) is unknown at terraform validate: ValidateConfig
// skips it, and judges it once known.
func TestValidateConfig_unknownKeystone(t *testing.T) {
	clearOSEnv(t)
	t.Setenv("HOME", t.TempDir()) // no clouds.yaml
	ctx := context.Background()
	p := &baremetalProvider{}
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	ksType := typ.AttributeTypes["keystone"].(tftypes.Object)
	config := func(auth string, keystone tftypes.Value) tfsdk.Config {
		vals := map[string]tftypes.Value{}
		for k, at := range typ.AttributeTypes {
			vals[k] = tftypes.NewValue(at, nil)
		}
		vals["auth"] = tftypes.NewValue(tftypes.String, auth)
		vals["keystone"] = keystone
		return tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}
	}
	unknown := tftypes.NewValue(ksType, tftypes.UnknownValue)
	for _, c := range []struct {
		name, auth string
		keystone   tftypes.Value
		want       string // the error's summary; empty: none
	}{
		{"keystone from a variable", "keystone", unknown, ""},
		{"keystone from a variable with noauth", "noauth", unknown, ""},
		{"keystone known null", "keystone", tftypes.NewValue(ksType, nil), "Incomplete keystone authentication"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var resp provider.ValidateConfigResponse
			p.ValidateConfig(ctx, provider.ValidateConfigRequest{Config: config(c.auth, c.keystone)}, &resp)
			errs := resp.Diagnostics.Errors()
			switch {
			case c.want == "" && len(errs) > 0:
				t.Fatalf("refused a keystone block not known yet: %v", errs)
			case c.want != "" && (len(errs) != 1 || errs[0].Summary() != c.want):
				t.Fatalf("want %q, got %v", c.want, errs)
			}
		})
	}
}
