// Package provider is the baremetal provider: its configuration, and the one
// Clients value it builds in Configure and hands to every resource and data
// source.
package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/datasources"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/functions"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/resources"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// New returns the provider factory for providerserver.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &baremetalProvider{version: version} }
}

type baremetalProvider struct {
	version string
}

type keystoneModel struct {
	Cloud                       types.String `tfsdk:"cloud"`
	AuthURL                     types.String `tfsdk:"auth_url"`
	Username                    types.String `tfsdk:"username"`
	Password                    types.String `tfsdk:"password"`
	UserDomainName              types.String `tfsdk:"user_domain_name"`
	UserDomainID                types.String `tfsdk:"user_domain_id"`
	ProjectName                 types.String `tfsdk:"project_name"`
	ProjectID                   types.String `tfsdk:"project_id"`
	ProjectDomainName           types.String `tfsdk:"project_domain_name"`
	ProjectDomainID             types.String `tfsdk:"project_domain_id"`
	ApplicationCredentialID     types.String `tfsdk:"application_credential_id"`
	ApplicationCredentialSecret types.String `tfsdk:"application_credential_secret"`
	Region                      types.String `tfsdk:"region"`
	Interface                   types.String `tfsdk:"interface"`
}

type providerModel struct {
	Endpoint                  types.String   `tfsdk:"endpoint"`
	Auth                      types.String   `tfsdk:"auth"`
	Username                  types.String   `tfsdk:"username"`
	Password                  types.String   `tfsdk:"password"`
	Keystone                  *keystoneModel `tfsdk:"keystone"`
	CACertFile                types.String   `tfsdk:"ca_cert_file"`
	CACertPEM                 types.String   `tfsdk:"ca_cert_pem"`
	ClientCertFile            types.String   `tfsdk:"client_cert_file"`
	ClientKeyFile             types.String   `tfsdk:"client_key_file"`
	Insecure                  types.Bool     `tfsdk:"insecure"`
	Microversion              types.String   `tfsdk:"microversion"`
	APIWaitTimeout            types.String   `tfsdk:"api_wait_timeout"`
	MaxConcurrentProvisioning types.Int64    `tfsdk:"max_concurrent_provisioning"`
	StallTimeout              types.String   `tfsdk:"stall_timeout"`
	DeployImages              types.Map      `tfsdk:"deploy_images"`

	// keystoneUnknown: the keystone block is not known yet (terraform
	// validate); its checks are skipped.
	keystoneUnknown bool
}

func (p *baremetalProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "baremetal"
	resp.Version = p.version
}

func envDoc(name string) string {
	return " Can also be set with the `" + name + "` environment variable."
}

func (p *baremetalProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Takes bare-metal hosts from a BMC address to a running operating system through OpenStack Ironic, " +
			"following the Metal3 Bare Metal Operator's host state machine.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional: true,
				Description: "Ironic API endpoint. With `auth = \"keystone\"` it defaults to Ironic's endpoint in the Keystone catalog " +
					"(service type `baremetal`, see `keystone.region` and `keystone.interface`), and setting it overrides the catalog; " +
					"otherwise it defaults to `" + defaultEndpoint + "`." + envDoc("BAREMETAL_ENDPOINT"),
			},
			"auth": schema.StringAttribute{
				Optional: true,
				Description: "How to authenticate to Ironic: `noauth` (default), `http_basic` (`username` and `password`) " +
					"or `keystone` (the `keystone` attribute, and the `OS_*` variables and clouds.yaml that OpenStack clients read)." + envDoc("BAREMETAL_AUTH"),
				Validators: []validator.String{stringvalidator.OneOf("noauth", "http_basic", "keystone")},
			},
			"username": schema.StringAttribute{
				Optional:    true,
				Description: "User name for `http_basic` authentication." + envDoc("BAREMETAL_USERNAME"),
			},
			"password": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "Password for `http_basic` authentication." + envDoc("BAREMETAL_PASSWORD"),
			},
			"keystone": schema.SingleNestedAttribute{
				Optional: true,
				Description: "Keystone settings, used when `auth` is `keystone`; an attribute: `keystone = { ... }`. " +
					"Each unset field falls back to its `OS_*` environment variable, as the OpenStack CLI reads them (a sourced openrc works as it is). " +
					"With `cloud` (or `OS_CLOUD`), the cloud of clouds.yaml is used and the fields that are set override it.",
				Attributes: map[string]schema.Attribute{
					"cloud": schema.StringAttribute{Optional: true, Description: "Name of a cloud in clouds.yaml (`OS_CLOUD`), " +
						"read from `OS_CLIENT_CONFIG_FILE`, else `./clouds.yaml`, `~/.config/openstack/clouds.yaml`, `/etc/openstack/clouds.yaml` (with secure.yaml beside it)."},
					"auth_url":            schema.StringAttribute{Optional: true, Description: "Keystone URL (`OS_AUTH_URL`)."},
					"username":            schema.StringAttribute{Optional: true, Description: "Keystone user name (`OS_USERNAME`)."},
					"password":            schema.StringAttribute{Optional: true, Sensitive: true, Description: "Keystone password (`OS_PASSWORD`)."},
					"user_domain_name":    schema.StringAttribute{Optional: true, Description: "Domain of the user, by name (`OS_USER_DOMAIN_NAME`). Default: the `default` domain."},
					"user_domain_id":      schema.StringAttribute{Optional: true, Description: "Domain of the user, by id (`OS_USER_DOMAIN_ID`)."},
					"project_name":        schema.StringAttribute{Optional: true, Description: "Project to scope the token to, by name (`OS_PROJECT_NAME`, or `OS_TENANT_NAME`)."},
					"project_id":          schema.StringAttribute{Optional: true, Description: "Project to scope the token to, by id (`OS_PROJECT_ID`, or `OS_TENANT_ID`)."},
					"project_domain_name": schema.StringAttribute{Optional: true, Description: "Domain of the project, by name (`OS_PROJECT_DOMAIN_NAME`). Default: the user's domain."},
					"project_domain_id":   schema.StringAttribute{Optional: true, Description: "Domain of the project, by id (`OS_PROJECT_DOMAIN_ID`)."},
					"application_credential_id": schema.StringAttribute{Optional: true, Description: "Application credential id (`OS_APPLICATION_CREDENTIAL_ID`), " +
						"used instead of a user and password; the credential carries its project."},
					"application_credential_secret": schema.StringAttribute{Optional: true, Sensitive: true, Description: "Application credential secret (`OS_APPLICATION_CREDENTIAL_SECRET`)."},
					"region":                        schema.StringAttribute{Optional: true, Description: "Region of Ironic's endpoint in the catalog (`OS_REGION_NAME`). Default: any region."},
					"interface": schema.StringAttribute{Optional: true, Description: "Interface of Ironic's endpoint in the catalog: `public`, `internal` or `admin` " +
						"(`OS_INTERFACE`, or `OS_ENDPOINT_TYPE`). Default: `public`, else `internal`.",
						Validators: []validator.String{stringvalidator.OneOf("public", "internal", "admin", "publicURL", "internalURL", "adminURL")}},
				},
			},
			"ca_cert_file": schema.StringAttribute{
				Optional: true,
				Description: "Path to a PEM file of CA certificates that sign Ironic's certificate (and Keystone's, with keystone auth)." + envDoc("BAREMETAL_CACERT_FILE") +
					" With keystone auth, `OS_CACERT` is read when neither is set.",
			},
			"ca_cert_pem": schema.StringAttribute{
				Optional:    true,
				Description: "PEM of CA certificates that sign Ironic's certificate (instead of `ca_cert_file`).",
			},
			"client_cert_file": schema.StringAttribute{
				Optional:    true,
				Description: "Path to a PEM client certificate for mutual TLS." + envDoc("BAREMETAL_CLIENT_CERT_FILE") + " With keystone auth, `OS_CERT` is read when neither is set.",
			},
			"client_key_file": schema.StringAttribute{
				Optional:    true,
				Description: "Path to the PEM key of `client_cert_file`." + envDoc("BAREMETAL_CLIENT_KEY_FILE") + " With keystone auth, `OS_KEY` is read when neither is set.",
			},
			"insecure": schema.BoolAttribute{
				Optional:    true,
				Description: "Skip verification of Ironic's TLS certificate. Default false; never turned on implicitly." + envDoc("BAREMETAL_INSECURE"),
			},
			"microversion": schema.StringAttribute{
				Optional: true,
				Description: "Pin the Ironic API microversion (e.g. `1.82`). By default the provider negotiates the highest version both sides support; " +
					"the minimum is 1.56." + envDoc("BAREMETAL_MICROVERSION"),
				Validators: []validator.String{validators.Microversion()},
			},
			"api_wait_timeout": schema.StringAttribute{
				Optional: true,
				Description: "How long the first call waits for the Ironic API and a live conductor, as a Go duration (`5m`). " +
					"Lets an Ironic created in the same apply be used. Default `0s`: fail at once when Ironic does not answer." + envDoc("BAREMETAL_API_WAIT_TIMEOUT"),
				Validators: []validator.String{validators.Duration()},
			},
			"stall_timeout": schema.StringAttribute{
				Optional: true,
				Description: "How long a node may sit in a state where an Ironic conductor works on it synchronously (`verifying`, `inspecting`, " +
					"`cleaning`, `deploying`, `deleting`, `adopting`, `rescuing`, ...) with no conductor holding its lock (`reservation`) and " +
					"no change of `provision_updated_at`, before the apply fails saying that Ironic lost the task. The `* wait` states, " +
					"which wait for an agent, never count. A Go duration; default `3m`; `0s` turns the check off." + envDoc("BAREMETAL_STALL_TIMEOUT"),
				Validators: []validator.String{validators.Duration()},
			},
			"deploy_images": deployImagesAttribute(),
			"max_concurrent_provisioning": schema.Int64Attribute{
				Optional: true,
				Description: "The capacity gate (the Bare Metal Operator's provisioning limit): how many hosts of this provider may be inspecting, " +
					"provisioning or deprovisioning at once. Others wait, with operational status `delayed`. Default 20." + envDoc("BAREMETAL_MAX_CONCURRENT_PROVISIONING"),
			},
		},
	}
}

const defaultEndpoint = "http://127.0.0.1:6385"

// str returns the attribute's value, else the environment variable's, else def.
func str(v types.String, env, def string) string {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueString()
	}
	if s := os.Getenv(env); s != "" {
		return s
	}
	return def
}

func (p *baremetalProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.validate()...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, diags := m.settings()
	resp.Diagnostics.Append(diags...)
	cfg.DeployImages, diags = deployImages(ctx, m.DeployImages)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	clients, err := newClients(ctx, cfg)
	if err != nil {
		resp.Diagnostics.AddError("Cannot connect to Ironic", err.Error())
		return
	}
	resp.ResourceData = clients
	resp.DataSourceData = clients
	resp.ActionData = clients
	resp.ListResourceData = clients
}

// settings resolves attributes and environment variables into plain values.
func (m providerModel) settings() (settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := settings{
		Endpoint:       str(m.Endpoint, "BAREMETAL_ENDPOINT", defaultEndpoint),
		Auth:           str(m.Auth, "BAREMETAL_AUTH", "noauth"),
		Username:       str(m.Username, "BAREMETAL_USERNAME", ""),
		Password:       str(m.Password, "BAREMETAL_PASSWORD", ""),
		CACertFile:     str(m.CACertFile, "BAREMETAL_CACERT_FILE", ""),
		CACertPEM:      m.CACertPEM.ValueString(),
		ClientCertFile: str(m.ClientCertFile, "BAREMETAL_CLIENT_CERT_FILE", ""),
		ClientKeyFile:  str(m.ClientKeyFile, "BAREMETAL_CLIENT_KEY_FILE", ""),
		Microversion:   str(m.Microversion, "BAREMETAL_MICROVERSION", ""),
		MaxConcurrent:  20,
	}
	s.Keystone = m.Keystone.settings()
	if s.Auth == "keystone" {
		// The endpoint comes from the catalog unless it is set.
		s.Endpoint = str(m.Endpoint, "BAREMETAL_ENDPOINT", "")
		s.CACertFile = str(m.CACertFile, "BAREMETAL_CACERT_FILE", os.Getenv("OS_CACERT"))
		if s.ClientCertFile == "" && s.ClientKeyFile == "" {
			s.ClientCertFile, s.ClientKeyFile = os.Getenv("OS_CERT"), os.Getenv("OS_KEY")
		}
	}
	switch {
	case !m.Insecure.IsNull():
		s.Insecure = m.Insecure.ValueBool()
	case os.Getenv("BAREMETAL_INSECURE") != "":
		b, err := strconv.ParseBool(os.Getenv("BAREMETAL_INSECURE"))
		if err != nil {
			diags.AddAttributeError(path.Root("insecure"), "Invalid insecure (BAREMETAL_INSECURE)", "want true or false: "+err.Error())
		}
		s.Insecure = b
	}
	if w := str(m.APIWaitTimeout, "BAREMETAL_API_WAIT_TIMEOUT", ""); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil {
			diags.AddAttributeError(path.Root("api_wait_timeout"), "Invalid api_wait_timeout", err.Error())
		}
		s.APIWaitTimeout = d
	}
	s.StallTimeout = ironic.DefaultStallTimeout
	if w := str(m.StallTimeout, "BAREMETAL_STALL_TIMEOUT", ""); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d < 0 {
			diags.AddAttributeError(path.Root("stall_timeout"), "Invalid stall_timeout",
				fmt.Sprintf("%q is not a duration of zero or more (e.g. \"3m\"; BAREMETAL_STALL_TIMEOUT when not set in the configuration)", w))
		}
		s.StallTimeout = d
	}
	switch {
	case !m.MaxConcurrentProvisioning.IsNull():
		s.MaxConcurrent = int(m.MaxConcurrentProvisioning.ValueInt64())
	case os.Getenv("BAREMETAL_MAX_CONCURRENT_PROVISIONING") != "":
		n, err := strconv.Atoi(os.Getenv("BAREMETAL_MAX_CONCURRENT_PROVISIONING"))
		if err != nil {
			diags.AddAttributeError(path.Root("max_concurrent_provisioning"), "Invalid max_concurrent_provisioning (BAREMETAL_MAX_CONCURRENT_PROVISIONING)", err.Error())
		}
		s.MaxConcurrent = n
	}
	if s.MaxConcurrent < 1 {
		diags.AddAttributeError(path.Root("max_concurrent_provisioning"), "Invalid max_concurrent_provisioning", "must be at least 1")
	}
	if s.Auth == "http_basic" && (s.Username == "" || s.Password == "") {
		diags.AddAttributeError(path.Root("auth"), "Incomplete http_basic authentication", "auth = \"http_basic\" needs username and password (or BAREMETAL_USERNAME and BAREMETAL_PASSWORD).")
	}
	return s, diags
}

// settings resolves the keystone attribute: each field from the
// attribute, else from the OS_* variable the OpenStack CLI reads for it.
func (k *keystoneModel) settings() keystoneSettings {
	if k == nil {
		k = &keystoneModel{}
	}
	return keystoneSettings{
		Cloud:                       str(k.Cloud, "OS_CLOUD", ""),
		AuthURL:                     str(k.AuthURL, "OS_AUTH_URL", ""),
		Username:                    str(k.Username, "OS_USERNAME", ""),
		Password:                    str(k.Password, "OS_PASSWORD", ""),
		UserDomainName:              str(k.UserDomainName, "OS_USER_DOMAIN_NAME", ""),
		UserDomainID:                str(k.UserDomainID, "OS_USER_DOMAIN_ID", ""),
		ProjectName:                 str(k.ProjectName, "OS_PROJECT_NAME", os.Getenv("OS_TENANT_NAME")),
		ProjectID:                   str(k.ProjectID, "OS_PROJECT_ID", os.Getenv("OS_TENANT_ID")),
		ProjectDomainName:           str(k.ProjectDomainName, "OS_PROJECT_DOMAIN_NAME", ""),
		ProjectDomainID:             str(k.ProjectDomainID, "OS_PROJECT_DOMAIN_ID", ""),
		ApplicationCredentialID:     str(k.ApplicationCredentialID, "OS_APPLICATION_CREDENTIAL_ID", ""),
		ApplicationCredentialSecret: str(k.ApplicationCredentialSecret, "OS_APPLICATION_CREDENTIAL_SECRET", ""),
		Region:                      str(k.Region, "OS_REGION_NAME", ""),
		Interface:                   str(k.Interface, "OS_INTERFACE", os.Getenv("OS_ENDPOINT_TYPE")),
	}
}

func (p *baremetalProvider) Resources(context.Context) []func() resource.Resource {
	return resources.All()
}

func (p *baremetalProvider) DataSources(context.Context) []func() datasource.DataSource {
	return datasources.All()
}

// Functions are the provider functions (Terraform 1.8 and later).
func (p *baremetalProvider) Functions(context.Context) []func() function.Function {
	return functions.All()
}

// ListResources are the list resources of `terraform query` (Terraform
// 1.14 and later).
func (p *baremetalProvider) ListResources(context.Context) []func() list.ListResource {
	return resources.ListResources()
}

var (
	_ provider.ProviderWithFunctions     = (*baremetalProvider)(nil)
	_ provider.ProviderWithListResources = (*baremetalProvider)(nil)
)
