package provider

import (
	"context"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/resources"
)

// settings are the provider's resolved configuration.
type settings struct {
	Endpoint, Auth, Username, Password          string
	Keystone                                    keystoneSettings
	CACertFile, CACertPEM                       string
	ClientCertFile, ClientKeyFile, Microversion string
	Insecure                                    bool
	APIWaitTimeout                              time.Duration
	MaxConcurrent                               int
	StallTimeout                                time.Duration
	// DeployImages are the default deploy images per architecture.
	DeployImages lifecycle.DefaultDeployImages
}

type keystoneSettings struct {
	Cloud, AuthURL, Username, Password                   string
	UserDomainName, UserDomainID                         string
	ProjectName, ProjectID                               string
	ProjectDomainName, ProjectDomainID                   string
	ApplicationCredentialID, ApplicationCredentialSecret string
	Region, Interface                                    string
}

func (s settings) ironicConfig() clients.Config {
	c := clients.Config{
		Endpoint: s.Endpoint, Auth: s.Auth, Username: s.Username, Password: s.Password,
		CACertFile: s.CACertFile, CACertPEM: s.CACertPEM, ClientCertFile: s.ClientCertFile, ClientKeyFile: s.ClientKeyFile,
		Insecure: s.Insecure, Microversion: s.Microversion, APIWaitTimeout: s.APIWaitTimeout,
		UserAgent: "terraform-provider-baremetal",
	}
	if s.Auth == clients.AuthKeystone {
		k := s.Keystone
		c.Cloud, c.AuthURL, c.Username, c.Password = k.Cloud, k.AuthURL, k.Username, k.Password
		c.UserDomainName, c.UserDomainID = k.UserDomainName, k.UserDomainID
		c.ProjectName, c.ProjectID = k.ProjectName, k.ProjectID
		c.ProjectDomainName, c.ProjectDomainID = k.ProjectDomainName, k.ProjectDomainID
		c.ApplicationCredentialID, c.ApplicationCredentialSecret = k.ApplicationCredentialID, k.ApplicationCredentialSecret
		c.Region, c.Interface = k.Region, k.Interface
	}
	return c
}

// backoffUnit scales the state machine's failure backoff (BMO: a minute).
const backoffUnit = 10 * time.Second

// newClients connects to Ironic and builds what every resource shares: one
// watcher, one provisioner, one state machine with one capacity gate.
func newClients(ctx context.Context, s settings) (*lifecycle.Clients, error) {
	conn, err := clients.Connect(ctx, s.ironicConfig())
	if err != nil {
		return nil, err
	}
	// Batch: with hundreds of hosts waiting on a slow Ironic, one list
	// serves several wakeups (at most about one list per host per apply).
	gate := lifecycle.NewGate(s.MaxConcurrent)
	w := ironic.NewWatcher(conn.Client, ironic.WatcherOptions{Batch: 5, WritesInFlight: conn.WritesInFlight, LogContext: context.WithoutCancel(ctx)})
	// The provider keeps no inspection details in a host's state (the
	// baremetal_hardware data source reads them when asked): no GET of
	// every inventory at the end of an inspection.
	prov := ironic.NewProvisioner(conn.Client, w, ironic.WithStallTimeout(s.StallTimeout, nil), ironic.WithoutInspectionDetails(),
		ironic.WithDeployImages(s.DeployImages), ironic.WithServerMaxMicroversion(conn.MaxMicroversion))
	cat := ironic.NewCatalog(conn.Client, ironic.WithWatcher(w))
	fleet := ironic.NewFleetStore(conn.Client, conn.Features())
	return &lifecycle.Clients{
		Machine: &lifecycle.Machine{
			Prov:  prov,
			Wait:  w,
			Clock: lifecycle.SystemClock{},
			Gate:  gate,
			Log:   resources.TFLog{},
			// BMO backs off 2^n minutes between failed attempts: right for
			// a controller that reconciles forever, too slow for a person
			// waiting on an apply. The rules and the doubling are BMO's;
			// the unit is shorter, so the delete rules' forward progress
			// gives up within minutes, not half an hour.
			BackoffUnit: backoffUnit,
		},
		Catalog:         cat,
		Firmware:        cat,
		Updater:         cat,
		IPPools:         ironic.NewIPPoolStore(conn.Client),
		Runbooks:        fleet,
		InspectionRules: fleet,
		CheckBMC:        bmc.CheckAccess,
		ResetBMC:        bmc.ResetManager,
		API:             conn.Features(),
	}, nil
}
