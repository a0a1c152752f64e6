package bmc

import (
	"context"
	"fmt"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// CheckAccess is the credential pre-flight: for a Redfish-family address it
// checks that the BMC answers and accepts the credentials, so that a typo
// fails with the BMC's own answer instead of a node stuck in enroll. Other
// addresses (IPMI, libvirt) are not checked: Ironic reports those.
func CheckAccess(ctx context.Context, a lifecycle.BMCAccess) error {
	d, err := bmcaddr.Parse(a.Address)
	if err != nil || !d.IsRedfish() {
		return nil //nolint:nilerr // the address validator reports a bad address; only Redfish is checked here
	}
	endpoint, system, err := d.RedfishEndpoint()
	if err != nil {
		return err
	}
	user, _ := a.DriverInfo["redfish_username"].(string)
	pass, _ := a.DriverInfo["redfish_password"].(string)
	verify, ok := a.DriverInfo["redfish_verify_ca"].(bool)
	cfg := RedfishConfig{
		Endpoint: endpoint, Username: user, Password: pass,
		Insecure: ok && !verify,
		Timeout:  20 * time.Second,
	}
	if err := CheckCredentials(ctx, cfg, system); err != nil {
		return fmt.Errorf("BMC %s did not accept the host's credentials (set bmc.check_credentials = false if Terraform cannot reach it): %w",
			bmcaddr.Redact(a.Address), err)
	}
	return nil
}
