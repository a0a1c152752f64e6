package ironic

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// withInspectInterface returns h, or a copy of it whose BMC interfaces
// name the inspect interface its inspection mode implies
// (lifecycle.InspectInterfaces): the first preference this Ironic enables
// for the driver. An inspect interface set explicitly wins. A mode the
// driver cannot do comes back as a registration error message.
func (p *Provisioner) withInspectInterface(ctx context.Context, h *lifecycle.Host) (*lifecycle.Host, string, error) {
	if h.Spec.Inspection == "" || !h.Spec.BMC.HasCredentials() || h.Spec.BMC.Interfaces["inspect_interface"] != "" {
		return h, "", nil
	}
	prefs, err := lifecycle.InspectInterfaces(h.Spec.BMC.Driver, h.Spec.Inspection)
	if err != nil {
		// A mode the driver cannot do is a registration error (a
		// message), not a transient error to retry.
		return h, err.Error(), nil //nolint:nilerr
	}
	enabled, known, err := p.enabledInspectInterfaces(ctx, h.Spec.BMC.Driver)
	if err != nil {
		return h, "", err
	}
	choice := prefs[0]
	if known {
		i := slices.IndexFunc(prefs, func(s string) bool { return slices.Contains(enabled, s) })
		switch {
		case i >= 0:
			choice = prefs[i]
		case h.Spec.Inspection == lifecycle.InspectionDisabled:
			return h, "", nil // Ironic's default; inspection is skipped anyway
		default:
			return h, fmt.Sprintf("inspection = %q needs inspect interface %s, which this Ironic does not enable for driver %q "+
				"(enabled: %s); enable it in Ironic, choose another inspection mode, or set interfaces.inspect",
				h.Spec.Inspection, strings.Join(prefs, " or "), h.Spec.BMC.Driver, strings.Join(enabled, ", ")), nil
		}
	}
	c := *h
	c.Spec.BMC.Interfaces = make(map[string]string, len(h.Spec.BMC.Interfaces)+1)
	for k, v := range h.Spec.BMC.Interfaces {
		c.Spec.BMC.Interfaces[k] = v
	}
	c.Spec.BMC.Interfaces["inspect_interface"] = choice
	return &c, "", nil
}

// enabledInspectInterfaces reads (once per driver) the inspect interfaces
// Ironic enables for a driver: GET /v1/drivers/{name}. known is false when
// Ironic does not say (no such driver listed, or an old API). Concurrent
// first reads of a driver share one request: a fresh provider process
// registering or deleting hundreds of hosts at once asks Ironic once.
func (p *Provisioner) enabledInspectInterfaces(ctx context.Context, driver string) ([]string, bool, error) {
	if v, ok := p.driverInspect.Load(driver); ok {
		list, _ := v.([]string)
		return list, list != nil, nil
	}
	v, err, _ := p.driverLookups.Do(driver, func() (any, error) {
		if v, ok := p.driverInspect.Load(driver); ok {
			return v, nil
		}
		var body struct {
			Enabled []string `json:"enabled_inspect_interfaces"`
		}
		resp, err := p.sc.Get(ctx, p.sc.ServiceURL("drivers", driver), &body, nil)
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		switch {
		case err == nil:
		case isNotFound(err):
			p.driverInspect.Store(driver, []string(nil))
			return []string(nil), nil
		default:
			return nil, fmt.Errorf("get driver %s: %s", driver, ironicError(err))
		}
		if body.Enabled == nil {
			body.Enabled = []string{}
		}
		p.driverInspect.Store(driver, body.Enabled)
		return body.Enabled, nil
	})
	if err != nil {
		return nil, false, err
	}
	list, _ := v.([]string)
	return list, len(list) > 0, nil
}
