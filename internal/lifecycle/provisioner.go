package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Provisioner is the hardware side of the state machine (BMO's
// pkg/provisioner.Provisioner), implemented over Ironic by internal/ironic.
// Every call is idempotent and cheap to repeat: the state machine calls the
// action of the current state on every pass, and the provisioner looks at
// the node and either issues the next Ironic verb, says it is still working
// (Result.Dirty with RequeueAfter), says it is done (empty Result), or
// reports a permanent failure (Result.ErrorMessage, with Ironic's
// last_error). A returned Go error is transient (retried by the caller).
//
// restartOnFailure is true when the host is retrying after an error of the
// action's own type: the provisioner re-issues the Ironic verb instead of
// re-reporting the failed state's last_error.
type Provisioner interface {
	// Register finds the node (Status.ID, then Spec.Name, then a port with
	// Spec.BootMACAddress) or creates it, updates it (driver_info only when
	// credentialsChanged), creates the boot MAC port, and moves it from
	// enroll to manageable. It returns the node id as soon as it is known,
	// even with an error result, so the caller never loses track of it.
	Register(ctx context.Context, h *Host, credentialsChanged, restartOnFailure bool) (Result, string, error)
	// Inspect runs hardware inspection; done when the node is manageable
	// and inspected. started reports that this call issued the verb.
	Inspect(ctx context.Context, h *Host, restartOnFailure, refresh bool) (res Result, started bool, details *HardwareDetails, err error)
	// Prepare runs manual cleaning with the steps the spec needs (root
	// device hints, firmware settings); unprepared says whether anything
	// changed. The node ends in manageable.
	Prepare(ctx context.Context, h *Host, unprepared, restartOnFailure bool) (res Result, started bool, err error)
	// Provide moves a manageable node to available (automated cleaning).
	Provide(ctx context.Context, h *Host) (Result, error)
	// Provision writes instance_info from Spec.Image and deploys with the
	// config drive; done when the node is active.
	Provision(ctx context.Context, h *Host, restartOnFailure bool) (Result, error)
	// Deprovision undeploys and waits through cleaning back to available.
	Deprovision(ctx context.Context, h *Host, restartOnFailure bool) (Result, error)
	// Adopt adopts an externally provisioned (or provisioned) host.
	Adopt(ctx context.Context, h *Host, restartOnFailure bool) (Result, error)
	// PowerOn and PowerOff converge the node's power state. PowerOff uses
	// soft power off unless mode is hard (or errorCount > 0).
	PowerOn(ctx context.Context, h *Host, force bool) (Result, error)
	PowerOff(ctx context.Context, h *Host, mode PowerMode, force bool) (Result, error)
	// Delete removes the node (maintenance fallback as BMO does); a node
	// that is already gone counts as done.
	Delete(ctx context.Context, h *Host) (Result, error)
	// Detach takes the node out of management without touching the
	// machine: Ironic's maintenance mode with DetachReason. Attach undoes
	// it (maintenance off), only when the reason is DetachReason.
	Detach(ctx context.Context, h *Host) (Result, error)
	Attach(ctx context.Context, h *Host) (Result, error)
	// Observe reads the node behind h (Status.ID, else Spec.Name) without
	// changing anything. A node that does not exist gives Exists=false and
	// no error.
	Observe(ctx context.Context, h *Host) (Observation, error)
}

// Observation is what the provisioner sees of a node right now.
type Observation struct {
	Exists bool
	ID     string
	Name   string
	// Driver and DriverInfo are the node's driver and driver_info without
	// the values Ironic masks (passwords): what an import reads back.
	Driver     string
	DriverInfo map[string]string
	// BootInterface is the node's boot_interface ("" when not read).
	BootInterface string
	// BIOSInterface is the node's bios_interface ("" when not read).
	BIOSInterface string
	// State is the BMO state the node's Ironic provision state implies,
	// given the host's previous state (see internal/ironic's mapping).
	State                State
	ProvisionState       string
	TargetProvisionState string
	// PoweredOn is nil while Ironic does not know the power state.
	PoweredOn   *bool
	LastError   string
	Maintenance bool
	// MaintenanceReason is Ironic's maintenance_reason; DetachReason marks
	// a node detached by this provider.
	MaintenanceReason string
	// DeployedImage is read back from instance_info (nil when none).
	DeployedImage *Image
	Labels        map[string]string
	ResourceClass string
	Traits        []string
	// AllocationID is set while the node is claimed.
	AllocationID string
	// ConductorGroup and Shard are where Ironic places the node.
	ConductorGroup string
	Shard          string
	// BootMode is read back from the node's capabilities ("" when they
	// name none); AutomatedCleaning from automated_clean (nil: unset).
	BootMode          BootMode
	AutomatedCleaning *bool
	// RAIDConfig is Ironic's raid_config (the RAID the hardware reports),
	// as JSON; "" when the node has none.
	RAIDConfig string
	UpdatedAt  time.Time
	// DisablePowerOff is Ironic's disable_power_off (API 1.95+): the node
	// is never powered off, and reboots with Ironic's reboot verb.
	DisablePowerOff bool
	// OnlineSetting is what the host's baremetal_host records of its
	// online (HostSpec.OnlineSetting): "" when nothing is recorded.
	OnlineSetting string
	// Boot is what the node's agent ramdisk boots with (boot.go).
	Boot BootObservation
	// CurrentStep is the clean, deploy or service step Ironic runs on the
	// node, as interface.step ("deploy.write_image"), "" when none.
	CurrentStep string
	// ProvisionUpdatedAt is Ironic's provision_updated_at: when the
	// provision state last changed (zero when Ironic has not said).
	ProvisionUpdatedAt time.Time
	// Health is Ironic's node health (API 1.109+, FeatureHealth): what
	// its conductor last read from the BMC, "OK", "Warning" or "Critical";
	// "" when Ironic has no health or reports none for the node.
	Health string
}

// StepReporter is a Provisioner that knows, without a request, which step
// Ironic was running on a node when it last read it ("" for none): the
// wait loop names it in its progress lines.
type StepReporter interface {
	CurrentStep(id string) string
}

// DetachReason is the maintenance reason of a detached host's node (BMO's
// detached annotation): it names the provider, so that whoever looks at
// the node in Ironic knows who parked it, and so that Attach only ever
// ends a maintenance this provider started.
const DetachReason = "detached by terraform-provider-baremetal (baremetal_host detached = true)"

// ErrNotRegistered is returned (wrapped) by a Provisioner when the node does
// not exist; the delete rules use it to skip power-off.
var ErrNotRegistered = errors.New("host is not registered in Ironic")

// Waiter blocks until the node with the given id changes state, the
// duration passes, or the context ends. An empty id just waits. The Ironic
// implementation is the provider's shared watcher; tests use a fake that
// advances a fake clock.
type Waiter interface {
	Wait(ctx context.Context, id string, d time.Duration) error
}

// Clock tells the time (a fake in tests).
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// HostError is how every failure leaves the state machine: it names the
// host, the state it was in, the Ironic verb and Ironic's last_error.
type HostError struct {
	Host           string
	ID             string
	State          State
	ErrorType      ErrorType
	Verb           string
	ProvisionState string
	// Step is the Ironic step the node was running ("deploy.write_image").
	Step string
	// LastError is Ironic's last_error (or the provisioner's message).
	LastError string
	// Err is an underlying Go error (timeout, context cancelled, transport).
	Err error
	// History is the node's last Ironic history events, read when the
	// failure was reported (history.go); HistoryError why they could not be.
	History      []HistoryEvent
	HistoryError string
}

func (e *HostError) Error() string {
	msg := fmt.Sprintf("host %q", e.Host)
	if e.ID != "" {
		msg += fmt.Sprintf(" (node %s)", e.ID)
	}
	msg += fmt.Sprintf(": state %q", string(e.State))
	if e.ErrorType != NoError {
		msg += fmt.Sprintf(", %s", e.ErrorType)
	}
	if e.Verb != "" {
		msg += fmt.Sprintf(", Ironic verb %q", e.Verb)
	}
	if e.ProvisionState != "" {
		msg += fmt.Sprintf(", Ironic provision state %q", e.ProvisionState)
	}
	if e.Step != "" {
		msg += fmt.Sprintf(", Ironic step %q", e.Step)
	}
	if e.LastError != "" {
		msg += fmt.Sprintf(": last_error: %s", e.LastError)
	}
	if e.Err != nil {
		msg += fmt.Sprintf(": %v", e.Err)
	}
	return msg + renderHistory(e.History, e.HistoryError)
}

func (e *HostError) Unwrap() error { return e.Err }

// StallError is a provisioner's report that Ironic stopped working on a
// node: it sits in a state where a conductor works synchronously (holding
// the node's lock), yet no conductor holds the lock and nothing has changed
// for longer than the stall limit. The conductor's task was lost (a
// database error, a conductor that died and was taken over) and nothing in
// Ironic will move the node again. Converge gives up on it at once instead
// of waiting for its timeout.
type StallError struct {
	// ProvisionState is the Ironic provision state the node is stuck in.
	ProvisionState string
	// Idle is how long nothing has happened to the node; Limit is the
	// stall limit it passed.
	Idle, Limit time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("stalled: the node has been in Ironic provision state %q for %s with nothing happening "+
		"(stall_timeout %s), and no Ironic conductor holds a lock on it (no reservation), so Ironic lost the task "+
		"that was moving it and will not move it again. Look at the Ironic conductor's log for why (for example a "+
		"database error or a conductor that died); restarting the conductor moves such nodes to a failed state, "+
		"then run terraform apply again",
		e.ProvisionState, e.Idle.Round(time.Second), e.Limit)
}
