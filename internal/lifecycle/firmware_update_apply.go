package lifecycle

import (
	"context"
	"fmt"
	"strings"
)

// This file is the baremetal_firmware_update resource's side of BMO's
// HostFirmwareComponents: which host states take an update, which way it
// goes (Ironic's firmware.update step at API 1.86+, else the BMC's
// SimpleUpdate), and the versions before and after. The resource converts
// its model and calls these.

// FirmwareUpdateRefusal says why updates cannot run (nothing was changed).
// Attribute is "host_id", "bmc" or "updates"; for "updates", Update is the
// index of the update whose component is refused.
type FirmwareUpdateRefusal struct {
	FirmwareRefusal
	Update int
}

// FirmwareUpdateMethod is the way updates run: method as asked ("" picks
// Ironic's step where Ironic has the firmware API, else the BMC).
func FirmwareUpdateMethod(f FirmwareFeatures, method string) string {
	switch {
	case method != "":
		return method
	case f.Components:
		return FirmwareUpdateIronic
	}
	return FirmwareUpdateRedfish
}

// FirmwareUpdatable refuses updates the observed host cannot take the way
// they run (FirmwareUpdateMethod of method): Ironic's step needs the
// firmware API (1.86+) and takes bios, bmc and nic:<id> on an available
// host (manual cleaning) or a provisioned one (servicing, 1.87+); the BMC
// path needs credentials and a host Ironic is not working on.
func FirmwareUpdatable(obs Observation, f FirmwareFeatures, updates []FirmwareUpdate, hasBMC bool, method string) []FirmwareUpdateRefusal {
	var out []FirmwareUpdateRefusal
	refuse := func(attr string, i int, summary, detail string) {
		out = append(out, FirmwareUpdateRefusal{FirmwareRefusal{Attribute: attr, Summary: summary, Detail: detail}, i})
	}
	if d := AsDetached(CheckAttached(obs, "update its firmware")); d != nil {
		refuse("host_id", 0, d.Summary(), d.Detail())
		return out
	}
	host := fmt.Sprintf("Host %q (node %s)", obs.Name, obs.ID)
	switch FirmwareUpdateMethod(f, method) {
	case FirmwareUpdateIronic:
		if !f.Components {
			refuse("method", 0, "Ironic has no firmware API",
				fmt.Sprintf("method = %q runs the updates as Ironic's firmware.update step, which needs Ironic's firmware API "+
					"(API 1.86 or newer); this Ironic offers %s. Leave method unset (or set it to %q) to update %s through its BMC.",
					method, f.Microversion, FirmwareUpdateRedfish, host))
			return out
		}
		for i, u := range updates {
			if strings.HasPrefix(u.Component, "redfish:") {
				refuse("updates", i, "Component not known to Ironic",
					fmt.Sprintf("This Ironic (API %s) updates firmware with its firmware.update step, which takes the components "+
						"bios, bmc and nic:<id>, not %q. Set method = %q to update it through the BMC.", f.Microversion, u.Component,
						FirmwareUpdateRedfish))
			}
		}
		switch {
		case obs.State == StateProvisioned && !f.Servicing:
			refuse("host_id", 0, "Firmware cannot be updated on a provisioned host",
				fmt.Sprintf("%s is provisioned; updating its firmware through Ironic needs servicing (API 1.87 or newer), and this "+
					"Ironic offers %s. Deprovision the host first (destroy its baremetal_deployment), or use a newer Ironic.", host, f.Microversion))
		case obs.State != StateAvailable && obs.State != StateProvisioned:
			refuse("host_id", 0, "Host cannot take firmware updates now",
				fmt.Sprintf("%s is %q (Ironic %q): Ironic's firmware.update runs on available hosts (manual cleaning) or "+
					"provisioned ones (servicing).", host, obs.State, obs.ProvisionState))
		}
		return out
	}
	if !hasBMC {
		why := fmt.Sprintf("This Ironic (API %s) has no firmware API (1.86+), so %s is updated", f.Microversion, host)
		if f.Components {
			why = fmt.Sprintf("With method = %q, %s is updated", FirmwareUpdateRedfish, host)
		}
		refuse("bmc", 0, "BMC credentials needed",
			why+" through its BMC's Redfish UpdateService: set bmc (address, username, password) as in its baremetal_host.")
	}
	switch obs.State {
	case StateAvailable, StateProvisioned, StateExternallyProvisioned:
	default:
		refuse("host_id", 0, "Host cannot take firmware updates now",
			fmt.Sprintf("%s is %q (Ironic %q): firmware is updated through the BMC only on available or provisioned hosts, "+
				"never while Ironic works on the node.", host, obs.State, obs.ProvisionState))
	}
	return out
}

// CheckFirmwareUpdate is UpdateFirmware's plan-time half: the refusals for
// a host that exists (none for one created in the same apply, or that
// cannot be read now: the apply checks again).
func (c *Clients) CheckFirmwareUpdate(ctx context.Context, ref string, updates []FirmwareUpdate, hasBMC bool, method string) []FirmwareUpdateRefusal {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: ref})
	if err != nil || !obs.Exists {
		return nil
	}
	return FirmwareUpdatable(obs, c.Firmware.Features(), updates, hasBMC, method)
}

// FirmwareUpdateRequest asks UpdateFirmware for the updates of one host.
type FirmwareUpdateRequest struct {
	// Ref is the host's node UUID or name.
	Ref     string
	Updates []FirmwareUpdate
	// Redfish is the host's BMC access: needed by the BMC path, used by
	// the Ironic path to read versions where Ironic lists none.
	Redfish *BMCAccess
	// Method is FirmwareUpdateIronic or FirmwareUpdateRedfish, or "" for
	// Ironic's step where Ironic has it, else the BMC.
	Method string
	Log    Logger
}

// FirmwareUpdateOutcome is what UpdateFirmware did: the host, the way
// (FirmwareUpdateIronic or FirmwareUpdateRedfish) and each update's result.
type FirmwareUpdateOutcome struct {
	Host    Observation
	Method  string
	Results []FirmwareUpdateResult
}

// UpdateFirmware runs req's updates on the host: refused (with the
// refusals, and no error) when it cannot take them, else through Ironic's
// firmware.update step when Ironic has the firmware API, else (or when
// asked) through the BMC with the node in maintenance
// (UpdateFirmwareThroughBMC).
func (c *Clients) UpdateFirmware(ctx context.Context, req FirmwareUpdateRequest) (FirmwareUpdateOutcome, []FirmwareUpdateRefusal, error) {
	var out FirmwareUpdateOutcome
	obs, err := c.Machine.Observe(ctx, HostRef{ID: req.Ref})
	switch {
	case err != nil:
		return out, nil, fmt.Errorf("reading host %s: %w", req.Ref, err)
	case !obs.Exists:
		return out, []FirmwareUpdateRefusal{{FirmwareRefusal: FirmwareRefusal{Attribute: "host_id", Summary: "Host not found",
			Detail: fmt.Sprintf("No Ironic node has the UUID or name %q: create it with baremetal_host first.", req.Ref)}}}, nil
	}
	out.Host = obs
	f := c.Firmware.Features()
	if refusals := FirmwareUpdatable(obs, f, req.Updates, req.Redfish != nil, req.Method); len(refusals) > 0 {
		return out, refusals, nil
	}
	if FirmwareUpdateMethod(f, req.Method) == FirmwareUpdateIronic {
		out.Method = FirmwareUpdateIronic
		out.Results, err = c.updateThroughIronic(ctx, obs, req)
	} else {
		out.Method = FirmwareUpdateRedfish
		out.Results, err = UpdateFirmwareThroughBMC(ctx, c.Updater, req.Log, obs.Name, obs.ID, *req.Redfish, req.Updates)
	}
	return out, nil, err
}

// updateThroughIronic runs the updates as Ironic's firmware.update step: a
// manual clean on an available host, a service on a provisioned one. The
// versions come from Ironic's firmware API before and after.
func (c *Clients) updateThroughIronic(ctx context.Context, obs Observation, req FirmwareUpdateRequest) ([]FirmwareUpdateResult, error) {
	for _, u := range req.Updates {
		if u.Checksum != "" {
			if err := c.Updater.VerifyImage(ctx, u); err != nil {
				return nil, fmt.Errorf("host %q (node %s): component %s: %w", obs.Name, obs.ID, u.Component, err)
			}
		}
	}
	// The versions are Ironic's (its firmware API names the components as
	// the updates do; Ironic reads them from the BMC when it manages and
	// cleans the node), not the BMC's inventory, whose items have the
	// BMC's own Ids.
	versions := func() (map[string]string, error) {
		inv, err := c.Firmware.Firmware(ctx, obs.ID, nil)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, comp := range inv.Components {
			out[comp.ID] = comp.Version
		}
		return out, nil
	}
	before, err := versions()
	if err != nil {
		return nil, err
	}
	h := FirmwareHost(obs, nil, false)
	h.Spec.FirmwareUpdates = req.Updates
	logTo(ctx, req.Log, "updating firmware with Ironic's firmware.update step",
		map[string]any{"host": obs.Name, "updates": len(req.Updates), "state": string(obs.State)})
	if obs.State == StateProvisioned {
		err = c.Machine.ServiceFirmware(ctx, h, 0)
	} else {
		err = c.Machine.Converge(ctx, h, ConvergeOptions{})
	}
	if err != nil {
		return nil, err
	}
	after, err := versions()
	if err != nil {
		return nil, err
	}
	out := make([]FirmwareUpdateResult, 0, len(req.Updates))
	for _, u := range req.Updates {
		out = append(out, FirmwareUpdateResult{Component: u.Component, Target: u.Component,
			PreviousVersion: before[u.Component], Version: after[u.Component]})
	}
	return out, nil
}
