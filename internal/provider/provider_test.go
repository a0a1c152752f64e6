package provider

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
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

// clearOSEnv unsets every OS_* and BAREMETAL_* variable for the test.
func clearOSEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OS_") || strings.HasPrefix(k, "BAREMETAL_") {
			t.Setenv(k, "")
		}
	}
}

// A standard openrc, read as the OpenStack CLI reads it; with keystone the
// endpoint stays empty (the catalog's) unless set.
func TestSettingsKeystoneOpenrc(t *testing.T) {
	clearOSEnv(t)
	for k, v := range map[string]string{
		"BAREMETAL_AUTH": "keystone", "OS_AUTH_URL": "https://keystone.example.com:5000/v3", "OS_USERNAME": "operator",
		"OS_PASSWORD": "pw", "OS_PROJECT_NAME": "bm", "OS_USER_DOMAIN_NAME": "infra", "OS_PROJECT_DOMAIN_ID": "d42",
		"OS_REGION_NAME": "RegionTwo", "OS_ENDPOINT_TYPE": "internalURL", "OS_CACERT": "/etc/ssl/openstack.pem",
		"OS_APPLICATION_CREDENTIAL_ID": "ac1", "OS_APPLICATION_CREDENTIAL_SECRET": "acs", "OS_USER_DOMAIN_ID": "d41",
	} {
		t.Setenv(k, v)
	}
	s, diags := nullModel().settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := keystoneSettings{
		AuthURL: "https://keystone.example.com:5000/v3", Username: "operator", Password: "pw", UserDomainName: "infra", UserDomainID: "d41",
		ProjectName: "bm", ProjectDomainID: "d42", ApplicationCredentialID: "ac1", ApplicationCredentialSecret: "acs",
		Region: "RegionTwo", Interface: "internalURL",
	}
	if s.Keystone != want || s.Endpoint != "" || s.CACertFile != "/etc/ssl/openstack.pem" {
		t.Errorf("openrc: %+v", s)
	}
	c := s.ironicConfig()
	if c.Endpoint != "" || c.AuthURL != want.AuthURL || c.ProjectDomainID != "d42" || c.Interface != "internalURL" || c.ApplicationCredentialSecret != "acs" {
		t.Errorf("ironic config: %+v", c)
	}

	// The attribute wins over OS_*; an explicit endpoint over the catalog.
	t.Setenv("BAREMETAL_ENDPOINT", "https://ironic.example.com:6385")
	t.Setenv("OS_TENANT_NAME", "legacy")
	t.Setenv("OS_PROJECT_NAME", "")
	m := nullModel()
	m.Keystone = &keystoneModel{Region: types.StringValue("RegionOne"), Interface: types.StringNull(), Cloud: types.StringNull()}
	s, _ = m.settings()
	if s.Endpoint != "https://ironic.example.com:6385" || s.Keystone.Region != "RegionOne" || s.Keystone.ProjectName != "legacy" {
		t.Errorf("attribute over environment: %+v", s)
	}

	// noauth and http_basic keep the default endpoint.
	t.Setenv("BAREMETAL_ENDPOINT", "")
	t.Setenv("BAREMETAL_AUTH", "noauth")
	if s, _ = nullModel().settings(); s.Endpoint != defaultEndpoint {
		t.Errorf("noauth endpoint %q", s.Endpoint)
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
	for _, s := range resourceSchemas(ctx, p) {
		checkDescribed(t, s.name, s.resp.Schema.Description, s.resp.Schema.Attributes)
	}
	for _, s := range dataSourceSchemas(ctx, p) {
		checkDescribed(t, "data."+s.name, s.resp.Schema.Description, s.resp.Schema.Attributes)
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
