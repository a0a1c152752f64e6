package lifecycle

import "fmt"

// CanReinspect says whether a re-inspection (BMO's inspect.metal3.io
// annotation) may start on a host in state st: BMO honours the request
// only where inspection is part of the way to available (available, and
// the states before it, where Ironic's node is manageable); on a deployed
// host it would take the running system down, so it is refused, with an
// error that names the host and its state.
func CanReinspect(host string, st State) error {
	switch st {
	case StateAvailable, StatePreparing, StateInspecting, StateRegistering:
		return nil
	}
	return fmt.Errorf("host %q is %q: re-inspection (a change of inspect_trigger) needs an available or manageable host, "+
		"because inspecting boots the machine away from what runs on it; deprovision it first (destroy its baremetal_deployment), "+
		"or set inspect_trigger back to its previous value", host, st)
}

// RequestInspection asks for a re-inspection of h (available -> manage ->
// inspect -> provide, through the state machine), or says why not.
func RequestInspection(h *Host) error {
	if err := CanReinspect(h.Spec.Name, h.Status.State); err != nil {
		return &HostError{Host: h.Spec.Name, ID: h.Status.ID, State: h.Status.State, Verb: "inspect", Err: err}
	}
	h.InspectRequested = true
	return nil
}
