package lifecycle

import (
	"context"
	"errors"
	"fmt"
)

// This file is the one rule every resource follows for a host its user
// detached (baremetal_host detached = true, BMO's detached annotation):
// nothing acts on it again. A create or update that would change the host
// (deploy, BIOS settings, firmware update, claim) is refused with a
// *DetachedError, at plan when the host is known and again at apply; a
// destroy that would act on it (undeploy, BIOS factory reset, releasing
// its claim) forgets instead: the resource leaves the state and nothing is
// written to Ironic. Reads go on as usual. BMO's HostFirmwareSettings and
// HostFirmwareComponents controllers skip detached hosts the same way, and
// a detached host is handed on as it is, for another configuration or
// another Metal3 to import.
//
// A node in maintenance for any other reason (set by an operator, by
// Ironic after a failed power sync, or by another tool) is not detached.
// The Bare Metal Operator clears such a maintenance before any provision
// state change (IR tryChangeNodeProvisionState) and when it adopts an
// active node (IR Adopt), and so does this provider: maintenance alone
// does not keep the provider's hands off a host, detached does. The
// provisioner (internal/ironic) never clears the detach maintenance except
// through Attach, so a path that forgot this rule fails loudly instead of
// touching the machine.

// Detached reports whether the observed node was detached by this provider:
// in maintenance with DetachReason.
func Detached(obs Observation) bool {
	return obs.Exists && obs.Maintenance && obs.MaintenanceReason == DetachReason
}

// DetachedError says that an action was not taken because the host is
// detached; nothing was written. Forgotten is set on a destroy, which
// succeeds without acting (the caller drops the resource from its state).
type DetachedError struct {
	Host, ID string
	// Action is what was not done, as a verb phrase ("deploy an image").
	Action    string
	Forgotten bool
}

// Summary is a one-line summary for a diagnostic.
func (e *DetachedError) Summary() string {
	if e.Forgotten {
		return fmt.Sprintf("Host %s is detached: forgotten without acting on it", e.Host)
	}
	return fmt.Sprintf("Host %s is detached", e.Host)
}

// Detail says what was not done and how to re-attach the host.
func (e *DetachedError) Detail() string {
	who := fmt.Sprintf("Host %q (node %s) is detached: its baremetal_host has detached = true, and Ironic shows the node in "+
		"maintenance with the reason %q. No resource acts on a detached host", e.Host, e.ID, DetachReason)
	if e.Forgotten {
		return fmt.Sprintf("%s, so this destroy did not %s: it only removed the resource from the state, and left the node "+
			"and the machine as they are.", who, e.Action)
	}
	return fmt.Sprintf("%s, so the provider will not %s. To act on it, re-attach it first: set detached = false on its "+
		"baremetal_host (or remove the attribute) and apply, then apply this change.", who, e.Action)
}

func (e *DetachedError) Error() string { return e.Summary() + ": " + e.Detail() }

// CheckAttached returns a *DetachedError when the observed host is
// detached, for a create or update about to do action on it; nil when it
// may go ahead.
func CheckAttached(obs Observation, action string) error {
	if !Detached(obs) {
		return nil
	}
	return &DetachedError{Host: hostLabel(obs), ID: obs.ID, Action: action}
}

// ForgetDetached is CheckAttached for a destroy: the error, when the host
// is detached, is Forgotten.
func ForgetDetached(obs Observation, action string) error {
	if !Detached(obs) {
		return nil
	}
	return &DetachedError{Host: hostLabel(obs), ID: obs.ID, Action: action, Forgotten: true}
}

// CheckAttached is the package's CheckAttached for the host ref names
// (node UUID or name), for a plan: nil when the host does not exist yet or
// cannot be read now (the apply checks again).
func (m *Machine) CheckAttached(ctx context.Context, ref, action string) error {
	obs, err := m.Observe(ctx, HostRef{ID: ref})
	if err != nil {
		m.log(ctx, "could not read the host at plan; the apply checks whether it is detached",
			map[string]any{"host": ref, "error": err.Error()})
		return nil //nolint:nilerr // unreadable at plan is judged at apply
	}
	return CheckAttached(obs, action)
}

// AsDetached returns the *DetachedError in err's chain, or nil.
func AsDetached(err error) *DetachedError {
	var d *DetachedError
	if errors.As(err, &d) {
		return d
	}
	return nil
}

func hostLabel(obs Observation) string {
	if obs.Name != "" {
		return obs.Name
	}
	return obs.ID
}
