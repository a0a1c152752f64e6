package lifecycle

// hardwaretypes.go refuses, at plan, a BMC address whose hardware type
// (Ironic driver) the Ironic in use does not enable: a vendor driver not
// enabled, or removed from Ironic (iLO and iRMC are gone from 2026.1), is
// otherwise only found when the node create fails at apply.

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// HardwareTypes lists the hardware types the Ironic in use enables (GET
// /v1/drivers). Implemented by internal/ironic's Catalog, which reads the
// list once per provider run.
type HardwareTypes interface {
	EnabledHardwareTypes(ctx context.Context) ([]string, error)
}

// HardwareTypeNeed is what a BMC address needs: its scheme's hardware type
// and, when there is one, the scheme to use instead and its hardware type.
type HardwareTypeNeed struct {
	Scheme, Driver               string
	InsteadScheme, InsteadDriver string
}

// MissingHardwareTypeError says that Ironic does not enable the hardware
// type a BMC address scheme needs.
type MissingHardwareTypeError struct {
	Need    HardwareTypeNeed
	Enabled []string
}

func (e *MissingHardwareTypeError) Error() string {
	msg := fmt.Sprintf("the %s:// scheme needs Ironic's %q hardware type, which this Ironic does not enable "+
		"(enabled hardware types: %s).", e.Need.Scheme, e.Need.Driver, strings.Join(e.Enabled, ", "))
	if n := e.Need; n.InsteadScheme != "" && slices.Contains(e.Enabled, n.InsteadDriver) {
		msg += fmt.Sprintf(" Use %s:// instead (the %q hardware type),", n.InsteadScheme, n.InsteadDriver)
	} else {
		msg += " Use a scheme whose hardware type is enabled,"
	}
	return msg + fmt.Sprintf(" or enable %q in Ironic's enabled_hardware_types if this Ironic release still has it.", e.Need.Driver)
}

// CheckHardwareType is nil when Ironic enables need.Driver, and when it
// cannot tell (no HardwareTypes client, or the list cannot be read: the
// apply finds out); else a *MissingHardwareTypeError.
func (c *Clients) CheckHardwareType(ctx context.Context, need HardwareTypeNeed) error {
	ht, ok := c.Catalog.(HardwareTypes)
	if !ok || need.Driver == "" {
		return nil
	}
	if enabled, err := ht.EnabledHardwareTypes(ctx); err == nil && len(enabled) > 0 && !slices.Contains(enabled, need.Driver) {
		return &MissingHardwareTypeError{Need: need, Enabled: enabled}
	}
	return nil
}
