package provider

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

var _ provider.ProviderWithValidateConfig = (*baremetalProvider)(nil)

// minMicroversion is the oldest Ironic API microversion the provider
// speaks (config drives as JSON, 1.56).
const minMicroversion = 56

// setting is one provider setting as the configuration and the
// environment give it: from says where it came from, for messages.
type setting struct {
	attr    string
	value   string
	from    string // "endpoint" or "BAREMETAL_ENDPOINT (environment)"
	set     bool
	unknown bool
}

func pick(v types.String, attr, env string) setting {
	switch {
	case v.IsUnknown():
		return setting{attr: attr, unknown: true, from: attr}
	case !v.IsNull():
		return setting{attr: attr, value: v.ValueString(), from: attr, set: true}
	}
	if s := os.Getenv(env); env != "" && s != "" {
		return setting{attr: attr, value: s, from: env + " (environment)", set: true}
	}
	return setting{attr: attr, from: attr}
}

// ValidateConfig judges, at terraform validate, every provider setting
// that needs no server: the endpoint's form, complete authentication, CA
// and client certificate files (present, PEM), the microversion, the
// capacity gate, and insecure with a CA. Values not known yet are skipped;
// environment variables stand in for unset attributes and are named when
// they are wrong.
func (p *baremetalProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var m providerModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.keystoneUnknown = m.Keystone == nil && !tfglue.KnownAt(ctx, req.Config, path.Root("keystone"))
	resp.Diagnostics.Append(m.validate()...)
}

// validate is ValidateConfig's checks; Configure runs them too, because
// Terraform does not validate a provider block that is empty (or has only
// alias and version), whose settings then come from the environment alone.
func (m providerModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	d := &diags
	fail := func(attr string, s setting, summary, detail string) {
		d.AddAttributeError(path.Root(attr), summary, fmt.Sprintf("%s: %s", s.from, detail))
	}

	if e := pick(m.Endpoint, "endpoint", "BAREMETAL_ENDPOINT"); e.set {
		if err := validators.CheckEndpoint(e.value); err != nil {
			fail("endpoint", e, "Invalid endpoint", err.Error())
		}
	}

	auth := pick(m.Auth, "auth", "BAREMETAL_AUTH")
	if auth.set && auth.from != "auth" {
		switch auth.value {
		case "noauth", "http_basic", "keystone":
		default:
			fail("auth", auth, "Invalid auth", fmt.Sprintf("%q is not an auth strategy: want noauth, http_basic or keystone", auth.value))
		}
	}
	if !auth.unknown {
		validateAuth(m, auth, d)
	}

	caFile := pick(m.CACertFile, "ca_cert_file", "BAREMETAL_CACERT_FILE")
	if caFile.set {
		if err := checkCAFile(caFile.value); err != nil {
			fail("ca_cert_file", caFile, "Invalid ca_cert_file", err.Error())
		}
	}
	caPEM := pick(m.CACertPEM, "ca_cert_pem", "")
	if caPEM.set {
		if err := checkCAPEM([]byte(caPEM.value)); err != nil {
			fail("ca_cert_pem", caPEM, "Invalid ca_cert_pem", err.Error())
		}
	}
	if caFile.set && caPEM.set && caFile.from == "ca_cert_file" {
		d.AddAttributeError(path.Root("ca_cert_pem"), "Conflicting CA settings", "Set ca_cert_file or ca_cert_pem, not both.")
	}
	validateClientCert(m, d)

	insecure := m.Insecure
	insecureFrom := "insecure"
	if insecure.IsNull() {
		if s := os.Getenv("BAREMETAL_INSECURE"); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				d.AddAttributeError(path.Root("insecure"), "Invalid insecure",
					fmt.Sprintf("BAREMETAL_INSECURE (environment): %q is not true or false", s))
			}
			insecure, insecureFrom = types.BoolValue(b), "BAREMETAL_INSECURE (environment)"
		}
	}
	if !insecure.IsUnknown() && insecure.ValueBool() && (caFile.set || caPEM.set) {
		ca := caFile.from
		if !caFile.set {
			ca = caPEM.from
		}
		d.AddAttributeError(path.Root("insecure"), "insecure together with a CA",
			fmt.Sprintf("%s = true skips certificate verification, so the CA in %s would be ignored. "+
				"Remove insecure to verify Ironic's certificate with the CA, or remove the CA.", insecureFrom, ca))
	}

	if mv := pick(m.Microversion, "microversion", "BAREMETAL_MICROVERSION"); mv.set {
		// The attribute's own validator reports a malformed value.
		if err := checkMicroversion(mv.value); err != nil && (mv.from != "microversion" || microversionRE.MatchString(mv.value)) {
			fail("microversion", mv, "Invalid microversion", err.Error())
		}
	}

	if w := pick(m.APIWaitTimeout, "api_wait_timeout", "BAREMETAL_API_WAIT_TIMEOUT"); w.set && w.from != "api_wait_timeout" {
		if dur, err := time.ParseDuration(w.value); err != nil || dur < 0 {
			fail("api_wait_timeout", w, "Invalid api_wait_timeout", fmt.Sprintf("%q is not a duration of zero or more, such as 5m", w.value))
		}
	}

	mc := m.MaxConcurrentProvisioning
	switch {
	case mc.IsUnknown():
	case !mc.IsNull():
		if mc.ValueInt64() < 1 {
			d.AddAttributeError(path.Root("max_concurrent_provisioning"), "Invalid max_concurrent_provisioning",
				fmt.Sprintf("max_concurrent_provisioning: %d; at least 1 host must be allowed to provision at once", mc.ValueInt64()))
		}
	case os.Getenv("BAREMETAL_MAX_CONCURRENT_PROVISIONING") != "":
		s := os.Getenv("BAREMETAL_MAX_CONCURRENT_PROVISIONING")
		if n, err := strconv.Atoi(s); err != nil || n < 1 {
			d.AddAttributeError(path.Root("max_concurrent_provisioning"), "Invalid max_concurrent_provisioning",
				fmt.Sprintf("BAREMETAL_MAX_CONCURRENT_PROVISIONING (environment): %q is not a whole number of at least 1", s))
		}
	}
	return diags
}

var microversionRE = regexp.MustCompile(`^1\.([0-9]+)$`)

// checkMicroversion accepts 1.N with N at least minMicroversion.
func checkMicroversion(s string) error {
	mm := microversionRE.FindStringSubmatch(s)
	if mm == nil {
		return fmt.Errorf("%q is not an Ironic API microversion: want 1.N, such as 1.82", s)
	}
	if n, _ := strconv.Atoi(mm[1]); n < minMicroversion {
		return fmt.Errorf("%q is older than the provider's minimum, 1.%d", s, minMicroversion)
	}
	return nil
}

// validateAuth checks that the chosen authentication has what it needs.
func validateAuth(m providerModel, auth setting, d *diag.Diagnostics) {
	strategy := auth.value
	if !auth.set {
		strategy = "noauth"
	}
	switch strategy {
	case "http_basic":
		user := pick(m.Username, "username", "BAREMETAL_USERNAME")
		pass := pick(m.Password, "password", "BAREMETAL_PASSWORD")
		for _, s := range []setting{user, pass} {
			if !s.set && !s.unknown {
				d.AddAttributeError(path.Root(s.attr), "Incomplete http_basic authentication",
					fmt.Sprintf("%s = %q needs username and password (or BAREMETAL_USERNAME and BAREMETAL_PASSWORD); %s is not set.",
						auth.from, strategy, s.from))
			}
		}
	case "keystone":
		k := m.Keystone
		if m.keystoneUnknown {
			return
		}
		if k == nil {
			k = &keystoneModel{}
		}
		cloud := pick(k.Cloud, "keystone.cloud", "OS_CLOUD")
		authURL := pick(k.AuthURL, "keystone.auth_url", "OS_AUTH_URL")
		if cloud.set || cloud.unknown || authURL.unknown {
			return
		}
		if !authURL.set {
			if cloudsYAMLExists() {
				return // its default cloud may say everything
			}
			d.AddAttributeError(path.Root("keystone"), "Incomplete keystone authentication",
				fmt.Sprintf("%s = \"keystone\" needs keystone.cloud (or OS_CLOUD) naming a cloud in clouds.yaml, or keystone.auth_url (or OS_AUTH_URL) with credentials.", auth.from))
			return
		}
		if err := validators.CheckEndpoint(authURL.value); err != nil {
			d.AddAttributeError(path.Root("keystone").AtName("auth_url"), "Invalid keystone.auth_url", authURL.from+": "+err.Error())
		}
		user := pick(k.Username, "keystone.username", "OS_USERNAME")
		pass := pick(k.Password, "keystone.password", "OS_PASSWORD")
		acID := pick(k.ApplicationCredentialID, "keystone.application_credential_id", "OS_APPLICATION_CREDENTIAL_ID")
		acSecret := pick(k.ApplicationCredentialSecret, "keystone.application_credential_secret", "OS_APPLICATION_CREDENTIAL_SECRET")
		if acID.unknown || acSecret.unknown {
			return
		}
		if acID.set != acSecret.set {
			d.AddAttributeError(path.Root("keystone"), "Incomplete keystone application credential",
				"An application credential needs keystone.application_credential_id and keystone.application_credential_secret "+
					"(or OS_APPLICATION_CREDENTIAL_ID and OS_APPLICATION_CREDENTIAL_SECRET).")
			return
		}
		appCred := acID.set || os.Getenv("OS_APPLICATION_CREDENTIAL_NAME") != ""
		if appCred || os.Getenv("OS_TOKEN") != "" || os.Getenv("OS_USER_ID") != "" || user.unknown || pass.unknown {
			return
		}
		if !user.set || !pass.set {
			d.AddAttributeError(path.Root("keystone"), "Incomplete keystone authentication",
				"keystone.auth_url needs keystone.username and keystone.password (or OS_USERNAME and OS_PASSWORD, "+
					"an application credential, or OS_TOKEN).")
		}
	default:
		if m.Keystone != nil {
			d.AddAttributeError(path.Root("keystone"), "keystone settings without keystone authentication",
				fmt.Sprintf("The keystone attribute is only used when auth is \"keystone\"; %s is %q.", auth.from, strategy))
		}
	}
}

// cloudsYAMLExists reports whether a clouds.yaml is where OpenStack
// clients look for one.
func cloudsYAMLExists() bool {
	candidates := []string{os.Getenv("OS_CLIENT_CONFIG_FILE"), "clouds.yaml", "/etc/openstack/clouds.yaml"}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".config", "openstack", "clouds.yaml"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return true
		}
	}
	return false
}

// checkCAFile checks that a CA file exists and holds PEM certificates.
func checkCAFile(name string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read CA file %q: %v", name, pathErr(err))
	}
	if err := checkCAPEM(b); err != nil {
		return fmt.Errorf("CA file %q: %v", name, err)
	}
	return nil
}

// checkCAPEM checks that b holds at least one PEM certificate, and that
// every certificate parses.
func checkCAPEM(b []byte) error {
	n := 0
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(blk.Bytes); err != nil {
			return fmt.Errorf("certificate %d does not parse: %v", n+1, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no PEM certificate in it (want -----BEGIN CERTIFICATE----- blocks)")
	}
	return nil
}

// validateClientCert checks that a client certificate and key come
// together, exist, and match.
func validateClientCert(m providerModel, d *diag.Diagnostics) {
	cert := pick(m.ClientCertFile, "client_cert_file", "BAREMETAL_CLIENT_CERT_FILE")
	key := pick(m.ClientKeyFile, "client_key_file", "BAREMETAL_CLIENT_KEY_FILE")
	if cert.unknown || key.unknown || (!cert.set && !key.set) {
		return
	}
	if !cert.set || !key.set {
		missing := cert
		if cert.set {
			missing = key
		}
		d.AddAttributeError(path.Root(missing.attr), "Incomplete client certificate",
			"client_cert_file and client_key_file go together; "+missing.from+" is not set.")
		return
	}
	for _, s := range []setting{cert, key} {
		if _, err := os.Stat(s.value); err != nil {
			d.AddAttributeError(path.Root(s.attr), "Invalid "+s.attr, fmt.Sprintf("%s: cannot read %q: %v", s.from, s.value, pathErr(err)))
			return
		}
	}
	if _, err := tls.LoadX509KeyPair(cert.value, key.value); err != nil {
		d.AddAttributeError(path.Root("client_cert_file"), "Invalid client certificate",
			fmt.Sprintf("%q and %q are not a PEM certificate and its key: %v", cert.value, key.value, err))
	}
}

// pathErr drops the path that os errors repeat.
func pathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
