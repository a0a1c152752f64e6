package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// This file is Ironic's runbooks (API 1.92+, baremetal_runbook): a named
// list of clean or service steps that a node runs by name (provision
// target clean or service with `runbook`). The runbook's name is a custom
// trait, and Ironic runs it only on a node that carries that trait: the
// trait is the operator's approval of the runbook for the node.

// RunbookStep is one step of a runbook: Ironic runs them by Order, lowest
// first.
type RunbookStep struct {
	Interface string
	Step      string
	Args      map[string]any
	Order     int
}

// Runbook is an Ironic runbook.
type Runbook struct {
	// ID is Ironic's UUID ("" before it is created).
	ID     string
	Name   string
	Steps  []RunbookStep
	Public bool
	Owner  string
	Extra  map[string]string
}

// RunbookStore keeps runbooks in Ironic. Implemented by internal/ironic.
type RunbookStore interface {
	// CreateRunbook creates rb and returns it as Ironic holds it.
	CreateRunbook(ctx context.Context, rb Runbook) (Runbook, error)
	// Runbook reads the runbook of UUID or name ref; found is false when
	// there is none.
	Runbook(ctx context.Context, ref string) (rb Runbook, found bool, err error)
	// UpdateRunbook changes runbook id to rb (name, steps, public, owner, extra).
	UpdateRunbook(ctx context.Context, id string, rb Runbook) (Runbook, error)
	// DeleteRunbook deletes runbook id; one that is gone already is no error.
	DeleteRunbook(ctx context.Context, id string) error
}

// RunbookInterfaces are the driver interfaces a runbook step may name:
// Ironic 2025.1's runbook step schema (its cleaning interfaces).
var RunbookInterfaces = []string{"bios", "deploy", "firmware", "management", "power", "raid", "vendor"}

var customTrait = regexp.MustCompile(`^CUSTOM_[A-Z0-9_]+$`)

// CheckRunbookName checks a runbook name: Ironic 2025.1 wants a custom
// trait name (the trait a node must carry to run it).
func CheckRunbookName(name string) error {
	if !customTrait.MatchString(name) || len(name) > 255 {
		return fmt.Errorf("%q is not a custom trait name: CUSTOM_ then upper-case letters, digits and _ (at most 255 "+
			"characters), e.g. CUSTOM_FIRMWARE_RESET; a node runs the runbook only when it carries that trait", name)
	}
	return nil
}

// CheckRunbookSteps checks runbook steps before anything is sent: at least
// one, each with a step name as host steps are checked (ValidateManualSteps),
// an interface a runbook takes, an order not below 0, and no interface and
// step twice (Ironic refuses duplicates).
func CheckRunbookSteps(steps []RunbookStep) error {
	if len(steps) == 0 {
		return errors.New("no steps: give at least one")
	}
	seen := map[string]bool{}
	for i, s := range steps {
		if !stepName.MatchString(s.Step) {
			return fmt.Errorf("step %d: step %q is not an Ironic step name (lower case, digits and _)", i, s.Step)
		}
		if !slices.Contains(RunbookInterfaces, s.Interface) {
			return fmt.Errorf("step %d: interface %q is not one a runbook step takes (%s)", i, s.Interface, strings.Join(RunbookInterfaces, ", "))
		}
		if s.Order < 0 {
			return fmt.Errorf("step %d: order %d is negative", i, s.Order)
		}
		key := s.Interface + "." + s.Step
		if seen[key] {
			return fmt.Errorf("step %d: %s is in the runbook twice; Ironic takes each interface and step once", i, key)
		}
		seen[key] = true
	}
	return nil
}

// CheckRunbook checks a runbook definition: its name, steps, and that a
// public runbook has no owner (Ironic refuses both).
func CheckRunbook(rb Runbook) error {
	if err := CheckRunbookName(rb.Name); err != nil {
		return err
	}
	if err := CheckRunbookSteps(rb.Steps); err != nil {
		return err
	}
	if rb.Public && rb.Owner != "" {
		return errors.New("a public runbook has no owner: set public or owner, not both")
	}
	return nil
}

// RunbookTraitError refuses a runbook on a host that lacks its trait.
type RunbookTraitError struct {
	Host, Runbook string
	Traits        []string
}

func (e *RunbookTraitError) Error() string {
	have := "none"
	if len(e.Traits) > 0 {
		have = strings.Join(e.Traits, ", ")
	}
	return fmt.Sprintf("host %s does not carry the trait %s, so Ironic refuses to run runbook %s on it (its traits: %s). "+
		"Add %q to the traits of its baremetal_host to approve the runbook for it", e.Host, e.Runbook, e.Runbook, have, e.Runbook)
}

// CheckRunbookTraits refuses a runbook whose name traits lacks, naming the
// trait to add.
func CheckRunbookTraits(host, runbook string, traits []string) error {
	if slices.Contains(traits, runbook) {
		return nil
	}
	return &RunbookTraitError{Host: host, Runbook: runbook, Traits: slices.Clone(traits)}
}

// RunbookServiceMicroversion is the first Ironic API microversion that
// runs a runbook through servicing: below it (Ironic 2025.1's 1.96) Ironic
// passes every runbook's disable_ramdisk to the service verb and refuses
// it ("disable_ramdisk is supported only with manual cleaning").
const RunbookServiceMicroversion = "1.108"

// RunbookServiceError refuses a runbook on a provisioned host of an Ironic
// below RunbookServiceMicroversion.
type RunbookServiceError struct {
	Host, Runbook, ServerMax string
}

func (e *RunbookServiceError) Error() string {
	return fmt.Sprintf("host %s is provisioned, and this Ironic (API up to %s) cannot run runbook %s through servicing: it "+
		"passes every runbook's disable_ramdisk with the service verb, which its API takes from microversion %s on only "+
		"(Ironic 2025.1 answers \"disable_ramdisk is supported only with manual cleaning\"). Run the runbook's steps with "+
		"steps = [...] instead, or run the runbook on the host while it is available (manual cleaning)",
		e.Host, e.ServerMax, e.Runbook, RunbookServiceMicroversion)
}

// CheckHostRunbook checks, before a runbook is run (at plan), that the host
// ref names carries the runbook's trait and, when it is provisioned, that
// Ironic (api, when known) runs runbooks through servicing; a host that
// does not exist yet is not judged (the apply decides).
func (m *Machine) CheckHostRunbook(ctx context.Context, ref, runbook string, api APIFeatures) error {
	obs, err := m.Observe(ctx, HostRef{ID: ref})
	if err != nil {
		return &HostError{Host: ref, Verb: "runbook", Err: fmt.Errorf("reading the host: %w", err)}
	}
	if !obs.Exists {
		return nil
	}
	if err := CheckRunbookTraits(hostLabel(obs), runbook, obs.Traits); err != nil {
		return err
	}
	if obs.State == StateProvisioned && api.ServerMax != "" && microversionLess(api.ServerMax, RunbookServiceMicroversion) {
		return &RunbookServiceError{Host: hostLabel(obs), Runbook: runbook, ServerMax: api.ServerMax}
	}
	return nil
}
