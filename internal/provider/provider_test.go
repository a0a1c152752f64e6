package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func nullModel() providerModel {
	return providerModel{
		Endpoint: types.StringNull(), Auth: types.StringNull(), Username: types.StringNull(), Password: types.StringNull(),
		CACertFile: types.StringNull(), CACertPEM: types.StringNull(), ClientCertFile: types.StringNull(), ClientKeyFile: types.StringNull(),
		Insecure: types.BoolNull(), Microversion: types.StringNull(), APIWaitTimeout: types.StringNull(), MaxConcurrentProvisioning: types.Int64Null(),
		StallTimeout: types.StringNull(),
	}
}

func TestSettingsDefaults(t *testing.T) {
	for _, k := range []string{"BAREMETAL_ENDPOINT", "BAREMETAL_AUTH", "BAREMETAL_INSECURE", "BAREMETAL_API_WAIT_TIMEOUT", "BAREMETAL_MAX_CONCURRENT_PROVISIONING", "BAREMETAL_STALL_TIMEOUT", "OS_CLOUD"} {
		t.Setenv(k, "")
	}
	s, diags := nullModel().settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Endpoint != defaultEndpoint || s.Auth != "noauth" || s.Insecure || s.MaxConcurrent != 20 || s.APIWaitTimeout != 0 || s.StallTimeout != 3*time.Minute {
		t.Errorf("defaults: %+v", s)
	}
}

func TestSettingsFromEnvironment(t *testing.T) {
	t.Setenv("BAREMETAL_ENDPOINT", "https://ironic.example.com:6385")
	t.Setenv("BAREMETAL_AUTH", "http_basic")
	t.Setenv("BAREMETAL_USERNAME", "ironic")
	t.Setenv("BAREMETAL_PASSWORD", "secret")
	t.Setenv("BAREMETAL_INSECURE", "true")
	t.Setenv("BAREMETAL_MICROVERSION", "1.80")
	t.Setenv("BAREMETAL_API_WAIT_TIMEOUT", "90s")
	t.Setenv("BAREMETAL_MAX_CONCURRENT_PROVISIONING", "7")
	t.Setenv("BAREMETAL_STALL_TIMEOUT", "90s")
	t.Setenv("OS_CLOUD", "prod")
	s, diags := nullModel().settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Endpoint != "https://ironic.example.com:6385" || s.Auth != "http_basic" || s.Username != "ironic" || s.Password != "secret" ||
		!s.Insecure || s.Microversion != "1.80" || s.APIWaitTimeout != 90*time.Second || s.MaxConcurrent != 7 || s.Keystone.Cloud != "prod" || s.StallTimeout != 90*time.Second {
		t.Errorf("from environment: %+v", s)
	}

	// Configuration wins over the environment.
	m := nullModel()
	m.Endpoint = types.StringValue("http://10.0.0.1:6385")
	m.Insecure = types.BoolValue(false)
	m.MaxConcurrentProvisioning = types.Int64Value(3)
	s, _ = m.settings()
	if s.Endpoint != "http://10.0.0.1:6385" || s.Insecure || s.MaxConcurrent != 3 {
		t.Errorf("configuration should win: %+v", s)
	}
}

func TestSettingsErrorsNameTheAttribute(t *testing.T) {
	cases := []struct {
		env  map[string]string
		edit func(*providerModel)
		want string
	}{
		{env: map[string]string{"BAREMETAL_INSECURE": "maybe"}, want: "insecure"},
		{env: map[string]string{"BAREMETAL_API_WAIT_TIMEOUT": "soon"}, want: "api_wait_timeout"},
		{env: map[string]string{"BAREMETAL_MAX_CONCURRENT_PROVISIONING": "0"}, want: "max_concurrent_provisioning"},
		{env: map[string]string{"BAREMETAL_STALL_TIMEOUT": "soon"}, want: "stall_timeout"},
		{edit: func(m *providerModel) { m.StallTimeout = types.StringValue("-1m") }, want: "stall_timeout"},
		{edit: func(m *providerModel) { m.Auth = types.StringValue("http_basic") }, want: "auth"},
	}
	for _, c := range cases {
		for _, k := range []string{"BAREMETAL_INSECURE", "BAREMETAL_API_WAIT_TIMEOUT", "BAREMETAL_MAX_CONCURRENT_PROVISIONING", "BAREMETAL_STALL_TIMEOUT", "BAREMETAL_USERNAME", "BAREMETAL_PASSWORD", "BAREMETAL_AUTH"} {
			t.Setenv(k, c.env[k])
		}
		m := nullModel()
		if c.edit != nil {
			c.edit(&m)
		}
		_, diags := m.settings()
		if !diags.HasError() {
			t.Errorf("%s: no error", c.want)
			continue
		}
		wp, ok := diags.Errors()[0].(diag.DiagnosticWithPath)
		if !ok || wp.Path().String() != c.want {
			t.Errorf("%s: error is not at the attribute's path: %v", c.want, diags.Errors()[0])
		}
		if !strings.Contains(diags.Errors()[0].Summary(), c.want) && !strings.Contains(diags.Errors()[0].Detail(), c.want) &&
			!strings.Contains(diags.Errors()[0].Summary(), strings.ReplaceAll(c.want, "_", " ")) {
			t.Errorf("%s: error %q / %q does not name the attribute", c.want, diags.Errors()[0].Summary(), diags.Errors()[0].Detail())
		}
	}
}

func TestConfigureUnreachableIronic(t *testing.T) {
	s := settings{Endpoint: "http://127.0.0.1:1", Auth: "noauth", MaxConcurrent: 1}
	_, err := newClients(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("want an error naming the endpoint, got %v", err)
	}
}

// Every resource, data source and provider attribute has a description:
// docs/ is generated from them.
func TestEveryAttributeIsDescribed(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	var presp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &presp)
	checkDescribed(t, "provider", presp.Schema.Description, presp.Schema.Attributes)
	for _, f := range p.Resources(ctx) {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "baremetal"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		checkDescribed(t, meta.TypeName, resp.Schema.Description, resp.Schema.Attributes)
	}
	for _, f := range p.DataSources(ctx) {
		d := f()
		var meta datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "baremetal"}, &meta)
		var resp datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &resp)
		checkDescribed(t, "data."+meta.TypeName, resp.Schema.Description, resp.Schema.Attributes)
	}
}

// described is what every schema attribute type offers.
type described interface{ GetDescription() string }

func checkDescribed[A any](t *testing.T, where, desc string, attrs map[string]A) {
	t.Helper()
	if strings.TrimSpace(desc) == "" {
		t.Errorf("%s has no description", where)
	}
	for name, a := range attrs {
		path := where + "." + name
		d, ok := any(a).(described)
		if !ok || strings.TrimSpace(d.GetDescription()) == "" {
			t.Errorf("%s has no description", path)
		}
		switch n := any(a).(type) {
		case rschema.SingleNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.Attributes)
		case rschema.ListNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.NestedObject.Attributes)
		case rschema.SetNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.NestedObject.Attributes)
		case dschema.SingleNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.Attributes)
		case dschema.ListNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.NestedObject.Attributes)
		case pschema.SingleNestedAttribute:
			checkDescribed(t, path, d.GetDescription(), n.Attributes)
		}
	}
}
