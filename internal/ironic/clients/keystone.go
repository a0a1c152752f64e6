package clients

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/config"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// This file is keystone authentication: the credentials and project scope
// from clouds.yaml or the explicit settings (a user and password, or an
// application credential), and Ironic's endpoint from the token's service
// catalog.

// keystoneBuilder takes the keystone settings (clouds.yaml when cfg.Cloud
// is set, overridden by the explicit fields that are set; else the explicit
// fields) and returns a function that authenticates with
// config.NewProviderClient and finds Ironic in the catalog (or at root when
// set). Tokens are renewed when Ironic refuses an expired one.
func keystoneBuilder(ctx context.Context, cfg Config, root string) (func(context.Context) (*gophercloud.ServiceClient, error), error) {
	var ao gophercloud.AuthOptions
	region, iface := cfg.Region, cfg.Interface
	var cloudTLS *tls.Config

	if cfg.Cloud != "" {
		var eo gophercloud.EndpointOpts
		var err error
		if ao, eo, cloudTLS, err = cloudAuthOptions(cfg); err != nil {
			return nil, err
		}
		if region == "" {
			region = eo.Region
		}
		if iface == "" && eo.Availability != gophercloud.AvailabilityPublic {
			// gophercloud's parser reports an unset interface as public,
			// so only internal and admin are taken from clouds.yaml;
			// public is the default, tried before internal.
			iface = string(eo.Availability)
		}
		if cloudTLS != nil && cloudTLS.InsecureSkipVerify && !cfg.Insecure {
			tflog.Warn(ctx, "TLS certificate verification of keystone and the Ironic API is disabled (verify: false in clouds.yaml)",
				map[string]any{"cloud": cfg.Cloud})
		}
	} else {
		var err error
		if ao, err = explicitAuthOptions(cfg); err != nil {
			return nil, err
		}
	}
	ifaces, err := catalogInterfaces(iface)
	if err != nil {
		return nil, err
	}
	// Long applies outlive tokens: let gophercloud authenticate again.
	ao.AllowReauth = ao.Password != "" || ao.ApplicationCredentialSecret != ""

	tlsConf, err := buildTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	mergeCloudTLS(tlsConf, cloudTLS)
	hc := newHTTPClientTLS(cfg, tlsConf)

	return func(ctx context.Context) (*gophercloud.ServiceClient, error) {
		pc, err := config.NewProviderClient(ctx, ao, config.WithHTTPClient(*hc))
		if err != nil {
			return nil, fmt.Errorf("keystone authentication at %s failed: %w", redact(ao.IdentityEndpoint), err)
		}
		if cfg.UserAgent != "" {
			pc.UserAgent.Prepend(cfg.UserAgent)
		}
		ep := root
		if ep == "" {
			// Look Ironic up in the catalog. Unlike openstack.NewBareMetalV1
			// this skips gophercloud's version discovery, which runs
			// without our context (no cancellation, no logging); the probe
			// of Connect reads the versions instead.
			u, found, err := catalogEndpoint(pc, region, ifaces)
			if err != nil {
				return nil, err
			}
			if ep, err = normalizeEndpoint(u); err != nil {
				return nil, fmt.Errorf("the keystone catalog's Ironic endpoint: %w", err)
			}
			tflog.Info(ctx, "Ironic endpoint from the keystone catalog", map[string]any{
				"endpoint": redact(ep), "region": found.Region, "interface": found.Interface,
			})
		}
		return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep + "v1/", Type: "baremetal"}, nil
	}, nil
}

// explicitAuthOptions builds the keystone credentials from the fields of
// cfg: an application credential, or a user (by name in a domain, by name
// or id) and password scoped to a project (by id, or by name in a domain
// that defaults to the user's).
func explicitAuthOptions(cfg Config) (gophercloud.AuthOptions, error) {
	if cfg.AuthURL == "" {
		return gophercloud.AuthOptions{}, cfgErr("keystone auth needs an auth_url (OS_AUTH_URL), or a cloud of clouds.yaml (OS_CLOUD)")
	}
	ao := gophercloud.AuthOptions{IdentityEndpoint: cfg.AuthURL}
	if cfg.ApplicationCredentialID != "" || cfg.ApplicationCredentialSecret != "" {
		if cfg.ApplicationCredentialID == "" || cfg.ApplicationCredentialSecret == "" {
			return ao, cfgErr("keystone application credentials need both application_credential_id and application_credential_secret (OS_APPLICATION_CREDENTIAL_ID, OS_APPLICATION_CREDENTIAL_SECRET)")
		}
		ao.ApplicationCredentialID, ao.ApplicationCredentialSecret = cfg.ApplicationCredentialID, cfg.ApplicationCredentialSecret
		return ao, nil
	}
	if cfg.Username == "" || cfg.Password == "" {
		return ao, cfgErr("keystone auth needs a username and a password (OS_USERNAME, OS_PASSWORD), or an application credential")
	}
	ao.Username, ao.Password = cfg.Username, cfg.Password
	ao.DomainName, ao.DomainID = cfg.UserDomainName, cfg.UserDomainID
	if ao.DomainID != "" {
		ao.DomainName = ""
	}
	if ao.DomainName == "" && ao.DomainID == "" {
		// Keystone needs a domain to find a user by name.
		ao.DomainID = "default"
	}
	applyProjectScope(&ao, cfg)
	return ao, nil
}

// applyProjectScope scopes ao to the project of cfg when one is set. The
// project domain defaults to the one clouds.yaml names, else to the user's.
func applyProjectScope(ao *gophercloud.AuthOptions, cfg Config) {
	switch {
	case cfg.ProjectID != "":
		ao.Scope = &gophercloud.AuthScope{ProjectID: cfg.ProjectID}
		ao.TenantID, ao.TenantName = cfg.ProjectID, ""
	case cfg.ProjectName != "":
		sc := &gophercloud.AuthScope{ProjectName: cfg.ProjectName}
		switch {
		case cfg.ProjectDomainID != "":
			sc.DomainID = cfg.ProjectDomainID
		case cfg.ProjectDomainName != "":
			sc.DomainName = cfg.ProjectDomainName
		case ao.Scope != nil && ao.Scope.ProjectName != "" && (ao.Scope.DomainName != "" || ao.Scope.DomainID != ""):
			// Keep the project domain clouds.yaml names.
			sc.DomainName, sc.DomainID = ao.Scope.DomainName, ao.Scope.DomainID
		default:
			sc.DomainName, sc.DomainID = ao.DomainName, ao.DomainID
		}
		ao.Scope = sc
		ao.TenantID, ao.TenantName = "", cfg.ProjectName
	case ao.Scope != nil && ao.Scope.ProjectName != "" && cfg.ProjectDomainID != "":
		ao.Scope.DomainName, ao.Scope.DomainID = "", cfg.ProjectDomainID
	case ao.Scope != nil && ao.Scope.ProjectName != "" && cfg.ProjectDomainName != "":
		ao.Scope.DomainName, ao.Scope.DomainID = cfg.ProjectDomainName, ""
	}
}

// cloudAuthOptions reads the cloud cfg.Cloud of clouds.yaml (cfg.CloudsFile,
// else the standard places) with gophercloud's parser and lays the explicit
// fields of cfg that are set over it.
func cloudAuthOptions(cfg Config) (gophercloud.AuthOptions, gophercloud.EndpointOpts, *tls.Config, error) {
	opts := []clouds.ParseOption{clouds.WithCloudName(cfg.Cloud)}
	where := "clouds.yaml"
	if cfg.CloudsFile != "" {
		opts = append(opts, clouds.WithLocations(cfg.CloudsFile))
		where = cfg.CloudsFile
	}
	// The fields of cfg that are set override clouds.yaml. Certificate
	// files set in cfg replace those of clouds.yaml, which are then not
	// read (PEM contents replace them after parsing).
	for _, o := range []struct {
		value string
		with  func(string) clouds.ParseOption
	}{
		{cfg.AuthURL, clouds.WithIdentityEndpoint},
		{cfg.Username, clouds.WithUsername},
		{cfg.Password, clouds.WithPassword},
		{cfg.Region, clouds.WithRegion},
		{cfg.ApplicationCredentialID, clouds.WithApplicationCredentialID},
		{cfg.ApplicationCredentialSecret, clouds.WithApplicationCredentialSecret},
		{cfg.CACertFile, clouds.WithCACertPath},
	} {
		if o.value != "" {
			opts = append(opts, o.with(o.value))
		}
	}
	if cfg.ClientCertFile != "" && cfg.ClientKeyFile != "" {
		opts = append(opts, clouds.WithClientCertPath(cfg.ClientCertFile), clouds.WithClientKeyPath(cfg.ClientKeyFile))
	}

	ao, eo, tc, err := clouds.Parse(opts...)
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, strconv.Quote(cfg.Cloud)) {
			msg = fmt.Sprintf("cloud %q: %s", cfg.Cloud, msg)
		}
		if cfg.CloudsFile != "" && !strings.Contains(msg, cfg.CloudsFile) {
			msg += " (clouds file " + cfg.CloudsFile + ")"
		}
		return ao, eo, nil, cfgErr("%s", msg)
	}

	if cfg.Username != "" {
		// The explicit user replaces the clouds.yaml one.
		ao.UserID = ""
	}
	switch {
	case cfg.UserDomainID != "":
		ao.DomainName, ao.DomainID = "", cfg.UserDomainID
	case cfg.UserDomainName != "":
		ao.DomainName, ao.DomainID = cfg.UserDomainName, ""
	}
	if ao.ApplicationCredentialID != "" || ao.ApplicationCredentialName != "" {
		// An application credential carries its project: no scope.
		ao.Scope, ao.TenantID, ao.TenantName = nil, "", ""
		if ao.ApplicationCredentialID != "" {
			ao.Username, ao.UserID, ao.Password = "", "", ""
		}
	} else {
		applyProjectScope(&ao, cfg)
	}
	if sc := ao.Scope; sc != nil && sc.ProjectName != "" && sc.DomainName == "" && sc.DomainID == "" {
		// No project domain anywhere: the user's, as with the explicit
		// fields.
		sc.DomainName, sc.DomainID = ao.DomainName, ao.DomainID
	}

	if ao.IdentityEndpoint == "" {
		return ao, eo, nil, cfgErr("cloud %q of %s has no auth_url (set auth.auth_url there, or auth_url in the provider)", cfg.Cloud, where)
	}
	if ao.Password == "" && ao.ApplicationCredentialSecret == "" && ao.TokenID == "" {
		return ao, eo, nil, cfgErr("cloud %q of %s has no credentials: set a password (in clouds.yaml, secure.yaml or the provider) or an application credential", cfg.Cloud, where)
	}
	return ao, eo, tc, nil
}

// catalogInterfaces is the list of catalog interfaces to try for Ironic:
// the configured one, else public then internal.
func catalogInterfaces(iface string) ([]string, error) {
	switch i := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(iface)), "url"); i {
	case "":
		return []string{"public", "internal"}, nil
	case "public", "internal", "admin":
		return []string{i}, nil
	}
	return nil, cfgErr("invalid keystone interface %q: want public, internal or admin", iface)
}

// catalogEndpoint finds Ironic (service type baremetal) in the catalog of
// the token: the first endpoint of the first interface in ifaces that has
// one in region (any region when empty). When there is none, the error
// names the region and interfaces looked for and lists what the catalog
// has.
func catalogEndpoint(pc *gophercloud.ProviderClient, region string, ifaces []string) (string, tokens.Endpoint, error) {
	res, ok := pc.GetAuthResult().(interface {
		ExtractServiceCatalog() (*tokens.ServiceCatalog, error)
	})
	if !ok {
		return "", tokens.Endpoint{}, errors.New("the keystone token carries no service catalog (Identity API v3 needed)")
	}
	catalog, err := res.ExtractServiceCatalog()
	if err != nil {
		return "", tokens.Endpoint{}, fmt.Errorf("reading the keystone catalog: %w", err)
	}
	var have []string
	for _, iface := range ifaces {
		for _, entry := range catalog.Entries {
			if entry.Type != "baremetal" {
				continue
			}
			for _, ep := range entry.Endpoints {
				if iface == ifaces[0] {
					have = append(have, fmt.Sprintf("%s %s", cmp.Or(ep.RegionID, ep.Region, "(no region)"), ep.Interface))
				}
				if ep.Interface == iface && (region == "" || ep.Region == region || ep.RegionID == region) {
					return ep.URL, ep, nil
				}
			}
		}
	}
	where := "any region"
	if region != "" {
		where = fmt.Sprintf("region %q", region)
	}
	msg := fmt.Sprintf("the keystone catalog has no Ironic (service type baremetal) endpoint in %s with interface %s", where, strings.Join(ifaces, " or "))
	if len(have) == 0 {
		msg += "; it lists no baremetal service at all"
	} else {
		msg += "; its baremetal endpoints are: " + strings.Join(have, ", ") + " (set keystone region and interface, or endpoint)"
	}
	return "", tokens.Endpoint{}, errors.New(msg)
}
