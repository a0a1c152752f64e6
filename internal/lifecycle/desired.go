package lifecycle

import "fmt"

// DesiredState is where a host rests when nothing is deployed on it: the
// Ironic provision state the baremetal_host resource keeps its node in.
// BMO always takes a host on to available (cleaning it, then powering it
// as online says); an adopted node may be left where it is instead, so
// that importing a fleet never cleans it.
type DesiredState string

const (
	// DesiredAvailable (the default, also for ""): registered, inspected,
	// cleaned and made available, as BMO does.
	DesiredAvailable DesiredState = "available"
	// DesiredManageable: registered and (unless inspection is disabled)
	// inspected, then left manageable: never provided, so never
	// automatically cleaned. Power still follows online; explicit
	// preparation (RAID, firmware settings, steps) still runs as manual
	// cleaning.
	DesiredManageable DesiredState = "manageable"
	// DesiredEnroll: an adopted node left in enroll: registered fields are
	// kept in line, but the node is not verified (no manage), inspected,
	// cleaned or powered.
	DesiredEnroll DesiredState = "enroll"
)

// DesiredStates lists the values, for validators and docs.
var DesiredStates = []string{string(DesiredAvailable), string(DesiredManageable), string(DesiredEnroll)}

// Ironic provision states of the stable points of a host's way to
// available.
const (
	IronicEnroll     = "enroll"
	IronicManageable = "manageable"
)

// DesiredFromIronic is what an import reads as the desired state of a node
// in Ironic provision state ps: where it is, when it is short of
// available, so that the configuration generated from the import (or the
// import of a configuration that says the same) leaves it there.
func DesiredFromIronic(ps string) DesiredState {
	switch ps {
	case IronicEnroll, "verifying":
		return DesiredEnroll
	case IronicManageable, "inspecting", "inspect wait", "inspect failed":
		return DesiredManageable
	}
	return DesiredAvailable
}

// rank orders the desired states along the way a node goes.
func (d DesiredState) rank() int {
	switch d {
	case DesiredEnroll:
		return 0
	case DesiredManageable:
		return 1
	}
	return 2
}

// StateMove is what an update does to the provision state of a node that
// is in Ironic provision state from when the host's desired state is to.
type StateMove struct {
	From, To string // Ironic provision states; To is "" when there is no move
	// What the move runs, for the plan's warning.
	Runs []string
}

// PlanStateMove decides the move of a node in provision state from (""
// when unknown) toward desired, for the host's cleaning mode, inspection
// and power. An error says the move goes backward, which the provider does
// not do (Ironic's manage would take an available node back; nothing takes
// a manageable one back to enroll).
func PlanStateMove(from string, desired DesiredState, cleaning string, inspect, online bool) (StateMove, error) {
	if desired == "" {
		desired = DesiredAvailable
	}
	mv := StateMove{From: from}
	want := desired.rank()
	if from == "" {
		return mv, nil
	}
	// An unknown provision state (deployed, cleaning, failed...) ranks
	// as available.
	have := DesiredFromIronic(from).rank()
	switch {
	case have > want:
		return mv, fmt.Errorf("the node is in Ironic provision state %q, past %q: the provider does not take a node back "+
			"(set desired_state = %q, or move the node in Ironic first)", from, desired, DesiredFromIronic(from))
	case have == want:
		return mv, nil
	}
	mv.To = string(desired)
	if have == 0 {
		mv.Runs = append(mv.Runs, "verifying: Ironic validates the BMC credentials (enroll -> manageable)")
		if inspect {
			mv.Runs = append(mv.Runs, "inspection: the host is powered on and booted into the inspection ramdisk")
		}
	}
	if want == 2 {
		switch cleaning {
		case CleaningDisabled:
			mv.Runs = append(mv.Runs, "provide: no automated cleaning (automated_cleaning_mode = \"disabled\")")
		default:
			mv.Runs = append(mv.Runs, fmt.Sprintf("automated cleaning (automated_cleaning_mode = %q): Ironic boots the host into its ramdisk "+
				"and erases the disks' metadata (partition tables, filesystem signatures)", cleaningOrDefault(cleaning)))
		}
		if !online {
			mv.Runs = append(mv.Runs, "power-off: the host is powered off once available (online = false)")
		}
	}
	return mv, nil
}

func cleaningOrDefault(c string) string {
	if c == "" {
		return CleaningMetadata
	}
	return c
}
