package resources

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The write-only BMC password needs Terraform 1.11 end to end; the test rig
// has 1.8, so these tests check it at the schema and model level.

func hostSchema(t *testing.T) schema.Schema {
	t.Helper()
	var resp resource.SchemaResponse
	(&hostResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return resp.Schema
}

func bmcAttribute(t *testing.T, s schema.Schema, name string) schema.StringAttribute {
	t.Helper()
	b, ok := s.Attributes["bmc"].(schema.SingleNestedAttribute)
	if !ok {
		t.Fatalf("bmc is a %T, want a SingleNestedAttribute", s.Attributes["bmc"])
	}
	a, ok := b.Attributes[name].(schema.StringAttribute)
	if !ok {
		t.Fatalf("bmc.%s is a %T, want a StringAttribute", name, b.Attributes[name])
	}
	return a
}

func TestHostSchema_bmcPasswords(t *testing.T) {
	s := hostSchema(t)
	if d := s.ValidateImplementation(context.Background()); d.HasError() {
		t.Fatalf("schema implementation: %v", d)
	}

	wo := bmcAttribute(t, s, "password_wo")
	if !wo.WriteOnly || !wo.Sensitive {
		t.Errorf("bmc.password_wo: WriteOnly=%v Sensitive=%v, want both", wo.WriteOnly, wo.Sensitive)
	}
	if !wo.Optional || wo.Required || wo.Computed {
		t.Errorf("bmc.password_wo: Optional=%v Required=%v Computed=%v, want optional only", wo.Optional, wo.Required, wo.Computed)
	}

	pw := bmcAttribute(t, s, "password")
	if !pw.Sensitive {
		t.Error("bmc.password is not Sensitive")
	}
	if pw.WriteOnly {
		t.Error("bmc.password is WriteOnly; only password_wo should be")
	}

	ver := bmcAttribute(t, s, "password_wo_version")
	if ver.WriteOnly || ver.Sensitive {
		t.Errorf("bmc.password_wo_version: WriteOnly=%v Sensitive=%v; it is stored in state to detect changes", ver.WriteOnly, ver.Sensitive)
	}
}

// woHost is a host model as Terraform hands it over: password_wo is null in
// plan and state (the write-only value only comes with the configuration),
// password_wo_version is set.
func woHost(version string) hostModel {
	return hostModel{
		Name: types.StringValue("h"),
		BMC: &bmcModel{
			Address:                        types.StringValue("redfish+http://127.0.0.1:8000/redfish/v1/Systems/sys-0"),
			Username:                       types.StringValue("admin"),
			Password:                       types.StringNull(),
			PasswordWO:                     types.StringNull(),
			PasswordWOVersion:              types.StringValue(version),
			DisableCertificateVerification: types.BoolValue(false),
			CheckCredentials:               types.BoolValue(true),
		},
		Driver:        types.StringValue("fake-hardware"),
		DriverInfo:    types.MapNull(types.StringType),
		DriverSecrets: types.MapNull(types.StringType),
		Interfaces: types.MapValueMust(types.StringType, map[string]attr.Value{
			"power": types.StringValue("redfish"),
		}),
	}
}

func access(t *testing.T, m hostModel, passwordWO types.String) (version string, info map[string]any) {
	t.Helper()
	a, d := m.access(context.Background(), hostSecrets{PasswordWO: passwordWO, DriverSecretsWO: types.MapNull(types.StringType)})
	if d.HasError() {
		t.Fatalf("access: %v", d)
	}
	return a.CredentialsVersion, a.DriverInfo
}

func TestHostModel_writeOnlyPasswordVersion(t *testing.T) {
	v1A, infoA := access(t, woHost("1"), types.StringValue("secret-A"))
	v1B, infoB := access(t, woHost("1"), types.StringValue("secret-B"))
	v1State, _ := access(t, woHost("1"), types.StringNull())
	v2A, _ := access(t, woHost("2"), types.StringValue("secret-A"))

	// The write-only value itself never moves the version: a new
	// password_wo alone is not pushed, and the state (which cannot hold it)
	// compares equal to the configuration.
	if v1A != v1B {
		t.Error("changing password_wo alone changed the credentials version")
	}
	if v1A != v1State {
		t.Error("the credentials version from state (no password_wo) differs from the one from configuration")
	}
	// Bumping password_wo_version does.
	if v2A == v1A {
		t.Error("changing password_wo_version did not change the credentials version")
	}
	// The version is a hash, never the password.
	for _, v := range []string{v1A, v2A} {
		if strings.Contains(v, "secret") {
			t.Errorf("credentials version %q shows the password", v)
		}
	}

	// The real write-only value is what Ironic gets.
	if got := infoA["redfish_password"]; got != "secret-A" {
		t.Errorf("driver_info.redfish_password = %v, want the write-only value secret-A", got)
	}
	if got := infoB["redfish_password"]; got != "secret-B" {
		t.Errorf("driver_info.redfish_password = %v, want the write-only value secret-B", got)
	}
	h := woHost("1")
	spec, d := h.spec(context.Background(), hostSecrets{PasswordWO: types.StringValue("secret-A"), DriverSecretsWO: types.MapNull(types.StringType)})
	if d.HasError() {
		t.Fatal(d)
	}
	if got := spec.BMC.DriverInfo["redfish_password"]; got != "secret-A" {
		t.Errorf("spec driver_info.redfish_password = %v, want secret-A", got)
	}
	if spec.BMC.Driver != "fake-hardware" || spec.BMC.Interfaces["power_interface"] != "redfish" {
		t.Errorf("driver %q, interfaces %v: want fake-hardware with the redfish power interface", spec.BMC.Driver, spec.BMC.Interfaces)
	}
}

func TestHostModel_storedPasswordVersion(t *testing.T) {
	m := func(user, pw string) hostModel {
		h := woHost("")
		h.BMC.PasswordWOVersion = types.StringNull()
		h.BMC.Username = types.StringValue(user)
		h.BMC.Password = types.StringValue(pw)
		return h
	}
	base, info := access(t, m("admin", "p1"), types.StringNull())
	if info["redfish_password"] != "p1" {
		t.Errorf("driver_info.redfish_password = %v, want p1", info["redfish_password"])
	}
	if v, _ := access(t, m("admin", "p2"), types.StringNull()); v == base {
		t.Error("a password change did not change the credentials version")
	}
	if v, _ := access(t, m("operator", "p1"), types.StringNull()); v == base {
		t.Error("a username change did not change the credentials version")
	}
	if v, _ := access(t, m("admin", "p1"), types.StringNull()); v != base {
		t.Error("the credentials version is not stable")
	}
}

// hostConfig builds a configuration of the host resource: attributes not
// given are null.
func hostConfig(t *testing.T, s schema.Schema, top map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	typ, ok := s.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatal("schema type is not an object")
	}
	return tfsdk.Config{Schema: s, Raw: objectWithNulls(typ, top)}
}

func objectWithNulls(typ tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for k, at := range typ.AttributeTypes {
		if v, ok := set[k]; ok {
			vals[k] = v
		} else {
			vals[k] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(typ, vals)
}

func TestHostConfigValidator_passwords(t *testing.T) {
	s := hostSchema(t)
	typ := s.Type().TerraformType(context.Background()).(tftypes.Object)
	bmcType := typ.AttributeTypes["bmc"].(tftypes.Object)
	str := func(v string) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	bmcBlock := func(extra map[string]tftypes.Value) tftypes.Value {
		set := map[string]tftypes.Value{
			"address":  str("redfish+http://127.0.0.1:8000/redfish/v1/Systems/sys-0"),
			"username": str("admin"),
		}
		for k, v := range extra {
			set[k] = v
		}
		return objectWithNulls(bmcType, set)
	}

	cases := []struct {
		name    string
		bmc     map[string]tftypes.Value
		path    path.Path // where the error must be; empty: no error
		summary string
	}{
		{"password", map[string]tftypes.Value{"password": str("p")}, path.Empty(), ""},
		{"password_wo with version", map[string]tftypes.Value{"password_wo": str("p"), "password_wo_version": str("1")}, path.Empty(), ""},
		{"both passwords", map[string]tftypes.Value{"password": str("p"), "password_wo": str("q"), "password_wo_version": str("1")},
			path.Root("bmc").AtName("password_wo"), "Conflicting BMC passwords"},
		{"password_wo without version", map[string]tftypes.Value{"password_wo": str("p")},
			path.Root("bmc").AtName("password_wo_version"), "Missing password_wo_version"},
		{"no password", map[string]tftypes.Value{},
			path.Root("bmc").AtName("password"), "Missing BMC password"},
		{"unknown password_wo", map[string]tftypes.Value{"password_wo": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "password_wo_version": str("1")},
			path.Empty(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := hostConfig(t, s, map[string]tftypes.Value{
				"name":   str("h"),
				"driver": str("fake-hardware"),
				"bmc":    bmcBlock(c.bmc),
			})
			var resp resource.ValidateConfigResponse
			(&hostResource{}).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: cfg}, &resp)
			errs := resp.Diagnostics.Errors()
			if c.summary == "" {
				if len(errs) != 0 {
					t.Fatalf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error %q, got %v", c.summary, errs)
			}
			if errs[0].Summary() != c.summary {
				t.Errorf("summary %q, want %q", errs[0].Summary(), c.summary)
			}
			wp, ok := errs[0].(diag.DiagnosticWithPath)
			if !ok || !wp.Path().Equal(c.path) {
				t.Errorf("error at %v, want %s", errs[0], c.path)
			}
			for _, secret := range []string{"\"p\"", "\"q\""} {
				if strings.Contains(errs[0].Detail(), secret) {
					t.Errorf("error detail shows a password: %s", errs[0].Detail())
				}
			}
		})
	}
}
