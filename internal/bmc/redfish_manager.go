package bmc

import (
	"context"
	"fmt"
	"time"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ResetManager resets the BMC of the system a BMC access names (the
// baremetal_bmc_reset action): the Redfish Manager.Reset, with resetType,
// of the first manager the system's Links.ManagedBy lists. Only
// Redfish-family addresses have one.
func ResetManager(ctx context.Context, a lifecycle.BMCAccess, resetType string) error {
	cfg, system, err := redfishAccess(a)
	if err != nil {
		return err
	}
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.ResetManager(system, resetType)
}

// ResetManager resets the manager of the system (Manager.Reset).
func (c *RedfishClient) ResetManager(systemID, resetType string) error {
	sys, err := c.system(systemID)
	if err != nil {
		return err
	}
	managers, err := sys.ManagedBy()
	if err != nil {
		return c.wrap("read the managers of system "+sys.ID, err)
	}
	if len(managers) == 0 {
		return &RedfishError{Endpoint: c.endpoint, Op: "reset the BMC", Kind: ErrNotFound,
			Detail: fmt.Sprintf("system %s names no manager (Links.ManagedBy)", sys.ID)}
	}
	if _, err := managers[0].Reset(schemas.ResetType(resetType)); err != nil {
		return c.wrap(fmt.Sprintf("%s of manager %s", resetType, managers[0].ID), err)
	}
	return nil
}

// redfishAccess is the Redfish configuration and system of a BMC access
// (the same credentials the pre-flight uses).
func redfishAccess(a lifecycle.BMCAccess) (RedfishConfig, string, error) {
	d, err := bmcaddr.Parse(a.Address)
	if err != nil {
		return RedfishConfig{}, "", err
	}
	if !d.IsRedfish() {
		return RedfishConfig{}, "", fmt.Errorf("BMC %s is not a Redfish BMC: only Redfish BMCs (redfish://, idrac-redfish://, ilo5-redfish://, ...) "+
			"can be reset by the provider", bmcaddr.Redact(a.Address))
	}
	endpoint, system, err := d.RedfishEndpoint()
	if err != nil {
		return RedfishConfig{}, "", err
	}
	user, _ := a.DriverInfo["redfish_username"].(string)
	pass, _ := a.DriverInfo["redfish_password"].(string)
	verify, ok := a.DriverInfo["redfish_verify_ca"].(bool)
	return RedfishConfig{Endpoint: endpoint, Username: user, Password: pass, Insecure: ok && !verify, Timeout: 20 * time.Second}, system, nil
}
