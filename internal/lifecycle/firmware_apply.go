package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// This file is the baremetal_firmware_settings resource's side of BMO's
// HostFirmwareSettings: which host states take a change (and through which
// Ironic verb), the host a change converges, the factory reset on destroy,
// and when a refresh drops the settings. The resource converts its model,
// validates the settings against the schema (to name attributes) and calls
// these.

// FirmwareRefusal says why firmware settings cannot be applied (nothing was
// changed). Attribute is the Terraform attribute it belongs to: "host_id"
// or "settings" ("" for none).
type FirmwareRefusal struct {
	Attribute, Summary, Detail string
}

func (e *FirmwareRefusal) Error() string { return e.Summary + ": " + e.Detail }

// FirmwareApplicable refuses a change of diff's settings that the observed
// host's state does not allow: an available host takes them by manual
// cleaning, a provisioned one by servicing (Ironic API 1.87+). nil when
// the change can go ahead.
func FirmwareApplicable(obs Observation, f FirmwareFeatures, diff map[string]string) *FirmwareRefusal {
	if d := AsDetached(CheckAttached(obs, "change its BIOS settings")); d != nil {
		return &FirmwareRefusal{Attribute: "host_id", Summary: d.Summary(), Detail: d.Detail()}
	}
	names := make([]string, 0, len(diff))
	for n := range diff {
		names = append(names, n)
	}
	sort.Strings(names)
	switch {
	case obs.State == StateProvisioned && !f.Servicing:
		return &FirmwareRefusal{Attribute: "settings", Summary: "Firmware settings cannot change on a provisioned host",
			Detail: fmt.Sprintf("Host %q (node %s) is provisioned, and changing %v needs Ironic's servicing, which this Ironic "+
				"(API %s) does not offer: it needs API 1.87 or newer. Deprovision the host first (destroy its "+
				"baremetal_deployment), or use a newer Ironic.", obs.Name, obs.ID, names, f.Microversion)}
	case obs.State == StateProvisioned && !biosServiceable(obs.BIOSInterface):
		// Servicing would fail in Ironic, leaving the node in "service
		// failed", which only another servicing leaves.
		return &FirmwareRefusal{Attribute: "settings", Summary: "Firmware settings cannot change on a provisioned host",
			Detail: fmt.Sprintf("Host %q (node %s) is provisioned, and changing %v needs a servicing step of its BIOS "+
				"interface, but its bios_interface %q has none. Deprovision the host first (destroy its "+
				"baremetal_deployment): an available host takes the settings by manual cleaning.", obs.Name, obs.ID, names, obs.BIOSInterface)}
	case obs.State != StateAvailable && obs.State != StateProvisioned:
		return &FirmwareRefusal{Attribute: "host_id", Summary: "Host cannot take firmware settings now",
			Detail: fmt.Sprintf("Host %q (node %s) is %q (Ironic %q): firmware settings are applied to available hosts "+
				"(manual cleaning) or provisioned ones (servicing).", obs.Name, obs.ID, obs.State, obs.ProvisionState)}
	}
	return nil
}

// biosServiceable is false for the bios interfaces that have no service
// step (Ironic 2025.1's fake and no-bios); an unknown ("" when not read)
// or other interface is left to Ironic.
func biosServiceable(iface string) bool {
	return iface != "fake" && iface != "no-bios"
}

// FirmwareRequest asks ApplyFirmware for the settings of one host.
type FirmwareRequest struct {
	// Ref is the host's node UUID or name.
	Ref string
	// Redfish is the BMC access for the registry fallback (nil: none).
	Redfish *BMCAccess
	// Want turns the host's BIOS (settings and schema) into the settings
	// to apply, merged and validated; ok is false when they are invalid
	// (the caller has reported why), which stops the apply.
	Want func(b *BIOS) (want map[string]string, ok bool)
	// Save records the result: the host and its BIOS read back (nil, with
	// readErr, when it could not be read). ApplyFirmware calls it when the
	// apply ends, also after a failed change (the settings are tracked,
	// never lost), but not when nothing was attempted.
	Save func(obs Observation, b *BIOS, readErr error)
	// Log receives progress (nil: none).
	Log Logger
}

// ApplyFirmware applies req's settings to the host: it reads the host and
// its BIOS, asks req.Want for the settings, and when they differ from the
// BIOS applies them by manual cleaning (available host) or servicing
// (provisioned host). Refusals before any change are *FirmwareRefusal; a
// failed change is the converge error (a *HostError).
func (c *Clients) ApplyFirmware(ctx context.Context, req FirmwareRequest) error {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: req.Ref})
	switch {
	case err != nil:
		return &FirmwareRefusal{Attribute: "host_id", Summary: "Reading host " + req.Ref, Detail: err.Error()}
	case !obs.Exists:
		return &FirmwareRefusal{Attribute: "host_id", Summary: "Host not found",
			Detail: fmt.Sprintf("No Ironic node has the UUID or name %q: create it with baremetal_host first.", req.Ref)}
	}
	b, err := c.Firmware.BIOS(ctx, obs.ID, req.Redfish)
	if err != nil {
		return &FirmwareRefusal{Attribute: "host_id", Summary: "Reading the BIOS settings of host " + obs.Name, Detail: err.Error()}
	}
	want, ok := req.Want(b)
	if !ok {
		return nil
	}
	var applyErr error
	if diff := FirmwareDiff(want, b); len(diff) > 0 {
		if refusal := FirmwareApplicable(obs, c.Firmware.Features(), diff); refusal != nil {
			return refusal
		}
		logTo(ctx, req.Log, "applying BIOS settings", map[string]any{"host": obs.Name, "changed": len(diff), "state": string(obs.State)})
		applyErr = c.convergeFirmware(ctx, FirmwareHost(obs, want, false))
	} else {
		logTo(ctx, req.Log, "BIOS settings already as planned: nothing to apply", map[string]any{"host": obs.Name})
	}
	after, readErr := c.Firmware.BIOS(ctx, obs.ID, req.Redfish)
	req.Save(obs, after, readErr)
	return applyErr
}

// ResetFirmware runs Ironic's bios.factory_reset on the host (the settings'
// destroy with reset_on_destroy) and returns the host's name. A host that
// is gone has nothing to reset; a detached one is left alone (a Forgotten
// *DetachedError). Refusals are *FirmwareRefusal; a failed reset is the
// converge error.
func (c *Clients) ResetFirmware(ctx context.Context, ref string, log Logger) (host string, err error) {
	obs, err := c.Machine.Observe(ctx, HostRef{ID: ref})
	switch {
	case err != nil:
		return ref, &FirmwareRefusal{Summary: "Reading host " + ref, Detail: err.Error()}
	case !obs.Exists:
		return ref, nil // the host is gone, and its BIOS settings with it
	case Detached(obs):
		return obs.Name, ForgetDetached(obs, "reset its BIOS to factory defaults")
	case obs.State == StateProvisioned && !c.Firmware.Features().Servicing:
		return ref, &FirmwareRefusal{Summary: "Cannot reset the BIOS of a provisioned host",
			Detail: fmt.Sprintf("Host %q (node %s) is provisioned and this Ironic has no servicing (API 1.87+): %v",
				obs.Name, obs.ID, ErrServicingUnsupported)}
	case obs.State == StateProvisioned && !biosServiceable(obs.BIOSInterface):
		return ref, &FirmwareRefusal{Summary: "Cannot reset the BIOS of a provisioned host",
			Detail: fmt.Sprintf("Host %q (node %s) is provisioned and its bios_interface %q has no servicing step: "+
				"deprovision it first.", obs.Name, obs.ID, obs.BIOSInterface)}
	case obs.State != StateAvailable && obs.State != StateProvisioned:
		return ref, &FirmwareRefusal{Summary: "Cannot reset the BIOS of host " + obs.Name,
			Detail: fmt.Sprintf("Host %q (node %s) is %q (Ironic %q): a BIOS factory reset runs on available or provisioned hosts.",
				obs.Name, obs.ID, obs.State, obs.ProvisionState)}
	}
	logTo(ctx, log, "resetting the BIOS to factory defaults", map[string]any{"host": obs.Name})
	return obs.Name, c.convergeFirmware(ctx, FirmwareHost(obs, nil, true))
}

// RefreshFirmware reads the host's BIOS for a Terraform Read; gone is true
// when the host no longer exists (the settings went with it).
func (c *Clients) RefreshFirmware(ctx context.Context, ref string, redfish *BMCAccess) (b *BIOS, gone bool, err error) {
	b, err = c.Firmware.BIOS(ctx, ref, redfish)
	if errors.Is(err, ErrNotRegistered) {
		return nil, true, nil
	}
	return b, false, err
}

// PlanFirmware is ApplyFirmware's plan-time half: the BIOS the settings
// are checked against (nil when the host does not exist yet: it is created
// in this apply and checked then), and once want is known, whether the
// change is allowed. Call CheckFirmwareChange with the merged settings.
func (c *Clients) PlanFirmware(ctx context.Context, ref string, redfish *BMCAccess) (*BIOS, error) {
	b, err := c.Firmware.BIOS(ctx, ref, redfish)
	if errors.Is(err, ErrNotRegistered) {
		return nil, nil
	}
	return b, err
}

// CheckFirmwareChange refuses, at plan time, a change of diff the host's
// state does not allow; a host that cannot be read is checked at apply.
func (c *Clients) CheckFirmwareChange(ctx context.Context, ref string, diff map[string]string) *FirmwareRefusal {
	if obs, err := c.Machine.Observe(ctx, HostRef{ID: ref}); err == nil && obs.Exists {
		return FirmwareApplicable(obs, c.Firmware.Features(), diff)
	}
	return nil
}

// FirmwareHost is the host a firmware change converges: registered by the
// baremetal_host resource, in its observed state and power, asking for the
// settings (or a factory reset).
func FirmwareHost(obs Observation, settings map[string]string, reset bool) *Host {
	h := &Host{
		Spec: HostSpec{
			Name: obs.Name, RegisteredElsewhere: true,
			FirmwareSettings: settings, FirmwareReset: reset,
			Image: obs.DeployedImage,
		},
		Status: HostStatus{ID: obs.ID, State: obs.State, DeployedImage: obs.DeployedImage},
	}
	if obs.PoweredOn != nil {
		h.Spec.Online, h.Status.PoweredOn = *obs.PoweredOn, *obs.PoweredOn
	}
	return h
}

// convergeFirmware runs the change: preparing (manual cleaning) on an
// available host, servicing on a provisioned one, retrying one failure.
func (c *Clients) convergeFirmware(ctx context.Context, h *Host) error {
	if h.Status.State == StateProvisioned {
		return c.Machine.ServiceFirmware(ctx, h, 1)
	}
	return c.Machine.Converge(ctx, h, ConvergeOptions{Retries: 1})
}

func logTo(ctx context.Context, l Logger, msg string, fields map[string]any) {
	if l != nil {
		l.Log(ctx, msg, fields)
	}
}

// ManagedSettingsDrift is what a refresh shows of the managed settings:
// for each setting in want that the BIOS still has, the user's value when
// the BIOS agrees (keeping their spelling, "true" for Ironic's "True"),
// else the BIOS's value. A setting the BIOS no longer has is left out, so
// that it plans to be added again.
func ManagedSettingsDrift(want map[string]string, b *BIOS) map[string]string {
	out := map[string]string{}
	for n, v := range want {
		cur, ok := b.Settings[n]
		switch {
		case !ok:
		case SettingEqual(cur, v):
			out[n] = v
		default:
			out[n] = cur.Value
		}
	}
	return out
}

// FirmwareSwitchStates reads the vendor firmware switches (in
// VendorFirmwareSwitches' order) back from the BIOS: nil where the driver
// has no such switch, or the BIOS shows neither of its values.
func FirmwareSwitchStates(driver string, b *BIOS) []*bool {
	switches, err := VendorFirmwareSwitches(driver)
	if err != nil {
		return nil
	}
	out := make([]*bool, len(switches))
	for i, sw := range switches {
		if cur, ok := b.Settings[sw.Attribute]; ok && (cur.Value == sw.True || cur.Value == sw.False) {
			on := cur.Value == sw.True
			out[i] = &on
		}
	}
	return out
}
