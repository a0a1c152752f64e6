package ironic

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var _ lifecycle.FirmwareUpdater = (*Catalog)(nil)

// firmwareUpdateStep is Ironic's firmware.update step for the spec's
// updates (BMO's buildFirmwareUpdates), once: nil when there are none or
// the step was started already.
func firmwareUpdateStep(h *lifecycle.Host) []nodes.CleanStep {
	if len(h.Spec.FirmwareUpdates) == 0 || h.Status.FirmwareUpdatesDone {
		return nil
	}
	list := make([]map[string]any, 0, len(h.Spec.FirmwareUpdates))
	for _, u := range h.Spec.FirmwareUpdates {
		list = append(list, map[string]any{"component": u.Component, "url": u.URL})
	}
	return []nodes.CleanStep{{Interface: nodes.InterfaceFirmware, Step: "update", Args: map[string]any{"settings": list}}}
}

// Maintenance reads a node's maintenance flag and reason.
func (c *Catalog) Maintenance(ctx context.Context, id string) (bool, string, error) {
	n, err := c.node(ctx, id)
	if err != nil {
		return false, "", err
	}
	return n.Maintenance, n.MaintenanceReason, nil
}

// SetMaintenance sets (with reason) or clears a node's maintenance.
func (c *Catalog) SetMaintenance(ctx context.Context, id string, on bool, reason string) error {
	var err error
	if on {
		err = nodes.SetMaintenance(ctx, c.sc, id, nodes.MaintenanceOpts{Reason: reason}).ExtractErr()
	} else {
		err = nodes.UnsetMaintenance(ctx, c.sc, id).ExtractErr()
	}
	c.wroteNodes()
	if err != nil {
		verb := "unset"
		if on {
			verb = "set"
		}
		return apiError(verb+" maintenance of node "+id, err)
	}
	return nil
}

// VerifyImage downloads the image and compares it with u.Checksum.
func (c *Catalog) VerifyImage(ctx context.Context, u lifecycle.FirmwareUpdate) error {
	algo, digest, err := lifecycle.ParseChecksum(u.Checksum)
	if err != nil {
		return err
	}
	return bmc.VerifyImage(ctx, c.imageClient, u.URL, algo, digest)
}

// BMCUpdate installs one update through the node's BMC: the component is
// looked up in the BMC's FirmwareInventory, SimpleUpdate is sent and its
// task polled to the end; the result has the item's version before and
// after.
func (c *Catalog) BMCUpdate(ctx context.Context, id string, access lifecycle.BMCAccess, u lifecycle.FirmwareUpdate,
	progress func(lifecycle.FirmwareTask)) (lifecycle.FirmwareUpdateResult, error) {
	res := lifecycle.FirmwareUpdateResult{Component: u.Component}
	n, err := c.node(ctx, id)
	if err != nil {
		return res, err
	}
	cfg, systemID, ok, err := redfishConfigFor(&access, n)
	if err != nil {
		return res, err
	}
	if !ok {
		return res, fmt.Errorf("the host's BMC address %q is not a Redfish one: firmware updates without Ironic's firmware API "+
			"(1.86+) go through the BMC's Redfish UpdateService", access.Address)
	}
	rc, err := bmc.ConnectRedfish(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer rc.Close()
	items, err := rc.Firmware(systemID)
	if err != nil {
		return res, err
	}
	item, err := bmc.ResolveFirmwareComponent(items, u.Component)
	if err != nil {
		return res, err
	}
	res.Target, res.PreviousVersion = item.ID, item.Version
	report := func(t lifecycle.FirmwareTask) {
		if progress != nil {
			t.Component, t.Target = u.Component, item.ID
			progress(t)
		}
	}
	powerOffAfter := false
	task, err := rc.UpdateFirmware(ctx, item, u.URL, bmc.UpdateOptions{
		PollInterval: c.taskPoll,
		Progress: func(t bmc.UpdateTask) {
			report(lifecycle.FirmwareTask{State: t.State, Percent: t.Percent, Message: t.Message})
		},
		// The BMC staged the image for the next boot: boot the host, as
		// Ironic's redfish firmware interface reboots after an update. A
		// host that was off is powered off again afterwards.
		OnPending: func() error {
			facts, err := rc.SystemFacts(systemID)
			if err != nil {
				return err
			}
			reset := "ForceRestart"
			if facts.PowerState != "On" {
				reset, powerOffAfter = "On", true
			}
			report(lifecycle.FirmwareTask{State: "Pending", Percent: -1, Message: "the BMC staged the image for the next boot: resetting the system (" + reset + ")"})
			return rc.ResetSystem(systemID, reset)
		},
	})
	res.Message = task.Message
	if powerOffAfter {
		if perr := rc.ResetSystem(systemID, "ForceOff"); perr != nil && err == nil {
			err = fmt.Errorf("the update finished, but powering the host off again failed: %w", perr)
		}
	}
	if err != nil {
		return res, err
	}
	after, err := rc.Firmware(systemID)
	if err != nil {
		return res, err
	}
	for _, it := range after {
		if it.ID == item.ID {
			res.Version = it.Version
		}
	}
	return res, nil
}

// WithFirmwareTaskPoll sets the first wait between two polls of a BMC
// update task when the BMC sends no Retry-After (default 2 s, growing).
func WithFirmwareTaskPoll(d time.Duration) CatalogOption {
	return func(c *Catalog) { c.taskPoll = d }
}

// WithImageClient sets the HTTP client that downloads firmware images to
// check their checksum (default: a plain client with a 30 minute timeout).
func WithImageClient(hc *http.Client) CatalogOption {
	return func(c *Catalog) { c.imageClient = hc }
}
