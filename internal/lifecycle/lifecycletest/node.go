// Package lifecycletest is the shared fake for tests of lifecycle.Machine's
// callers (the resources) and of lifecycle's own exported rules: Node, one
// Ironic node that moves through the provision states the Provisioner
// actions ask for, with scriptable failures, and NewMachine, a Machine over
// it that never sleeps. It is the fake the lifecycle_test table tests and
// the resources' tests share; lifecycle's internal call-sequence tests keep
// their scripted provisioner (they test the state handlers one call at a
// time, which a stateful node hides).
package lifecycletest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Node is a fake Ironic node behind the lifecycle.Provisioner interface:
// enough of it to deploy, fail a deploy, undeploy and power, and to be
// read by Observe. Set its fields before use; read them through the
// methods (it is safe for concurrent use).
type Node struct {
	mu sync.Mutex
	// ID and Name are the node's UUID and name; Gone makes the node not
	// exist (Observe gives Exists=false).
	ID, Name string
	Gone     bool
	// HardwareType is the node's driver ("": none said).
	HardwareType string
	// PS is Ironic's provision state ("available", "active",
	// "deploy failed", "wait call-back", "clean wait", ...).
	PS string
	// Image is what instance_info says is deployed.
	Image *lifecycle.Image
	// FailDeploy, when set, is the last_error of every deploy.
	FailDeploy string
	// FailUndeploy, when set, is the last_error of every undeploy.
	FailUndeploy string
	// ObserveErr, when set, fails every Observe.
	ObserveErr error
	// PoweredOn is the node's power state.
	PoweredOn bool
	// BootMode is read back by Observe.
	BootMode lifecycle.BootMode
	// Boot is what Observe reads back of the node's boot settings, and
	// BootInterface its boot_interface.
	Boot          lifecycle.BootObservation
	BootInterface string
	// BIOSInterface is its bios_interface ("" when not read).
	BIOSInterface string
	// BIOS holds the node's BIOS settings: manual cleaning (Prepare)
	// applies the spec's firmware settings to it, or empties it for a
	// factory reset. FailPrepare, when set, fails every cleaning.
	BIOS        map[string]string
	FailPrepare string
	// Maintenance is set by Detach (with lifecycle.DetachReason) and
	// cleared by Attach. MaintenanceReason, when set, is the reason
	// Observe reports instead of DetachReason (maintenance set by
	// someone else).
	Maintenance       bool
	MaintenanceReason string

	lastError string
	calls     []string
	registers []bool
	deployed  []*lifecycle.Host
}

// New returns an available, powered-off node "node-1" named "host-a".
func New() *Node { return &Node{ID: "node-1", Name: "host-a", PS: "available"} }

// NewMachine is a Machine over p that never sleeps: waits return at once,
// the failure backoff unit is a millisecond and jitter is zero.
func NewMachine(p lifecycle.Provisioner) *lifecycle.Machine {
	return &lifecycle.Machine{Prov: p, Wait: NoWait{}, BackoffUnit: time.Millisecond, Rand: func() float64 { return 0 }}
}

// NoWait is a Waiter that returns at once (or the context's error).
type NoWait struct{}

// Wait returns ctx.Err().
func (NoWait) Wait(ctx context.Context, _ string, _ time.Duration) error { return ctx.Err() }

// Calls lists the Provisioner methods called, in order.
func (n *Node) Calls() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.calls)
}

// Count is how many times method was called.
func (n *Node) Count(method string) int {
	c := 0
	for _, m := range n.Calls() {
		if m == method {
			c++
		}
	}
	return c
}

// CredentialsPushed reports whether any Register call asked to push
// driver_info (credentialsChanged).
func (n *Node) CredentialsPushed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Contains(n.registers, true)
}

// Deployed returns copies of the hosts Provision was called with.
func (n *Node) Deployed() []*lifecycle.Host {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.deployed)
}

// State returns the provision state, the deployed image URL and the power.
func (n *Node) State() (ps, image string, poweredOn bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Image != nil {
		image = n.Image.URL
	}
	return n.PS, image, n.PoweredOn
}

func (n *Node) call(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.calls = append(n.calls, name)
}

func (n *Node) Register(_ context.Context, h *lifecycle.Host, credentialsChanged, _ bool) (lifecycle.Result, string, error) {
	n.call("Register")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.registers = append(n.registers, credentialsChanged)
	if !h.Spec.BMC.HasCredentials() {
		return lifecycle.Result{ErrorMessage: "no BMC driver and credentials to register the host with"}, h.Status.ID, nil
	}
	return lifecycle.Result{}, h.Status.ID, nil
}

func (n *Node) Inspect(context.Context, *lifecycle.Host, bool, bool) (lifecycle.Result, bool, *lifecycle.HardwareDetails, error) {
	n.call("Inspect")
	return lifecycle.Result{}, false, nil, errors.New("lifecycletest.Node does not inspect")
}

// Prepare runs manual cleaning: it applies the firmware settings (or the
// factory reset) the spec asks for to BIOS, at once.
func (n *Node) Prepare(_ context.Context, h *lifecycle.Host, unprepared, _ bool) (lifecycle.Result, bool, error) {
	n.call("Prepare")
	n.mu.Lock()
	defer n.mu.Unlock()
	if !unprepared {
		return lifecycle.Result{}, false, nil
	}
	if n.FailPrepare != "" {
		return lifecycle.Result{ErrorMessage: n.FailPrepare, Verb: "clean", ProvisionState: "clean failed"}, true, nil
	}
	if h.Spec.FirmwareReset {
		n.BIOS = map[string]string{}
	}
	if n.BIOS == nil {
		n.BIOS = map[string]string{}
	}
	for k, v := range h.Spec.FirmwareSettings {
		n.BIOS[k] = v
	}
	return lifecycle.Result{}, true, nil
}

// Service runs servicing on an active node (Ironic API 1.87+): it applies
// the firmware settings (or the factory reset) at once, as Prepare does.
func (n *Node) Service(_ context.Context, h *lifecycle.Host, _ bool) (lifecycle.Result, bool, error) {
	n.call("Service")
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.FailPrepare != "" {
		return lifecycle.Result{ErrorMessage: n.FailPrepare, Verb: "service", ProvisionState: "service failed"}, false, nil
	}
	if h.Spec.FirmwareReset || n.BIOS == nil {
		n.BIOS = map[string]string{}
	}
	for k, v := range h.Spec.FirmwareSettings {
		n.BIOS[k] = v
	}
	return lifecycle.Result{}, false, nil
}

// Firmware is a lifecycle.FirmwareCatalog over the node's BIOS, with
// Schema as its registry and Offers as Ironic's features.
type Firmware struct {
	Node   *Node
	Schema map[string]lifecycle.BIOSSetting
	Offers lifecycle.FirmwareFeatures
	// Driver is the BIOS's driver (for the vendor switches).
	Driver string
}

// BIOS reads the node's settings, typed by Schema.
func (f *Firmware) BIOS(_ context.Context, idOrName string, _ *lifecycle.BMCAccess) (*lifecycle.BIOS, error) {
	n := f.Node
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Gone || (idOrName != n.ID && idOrName != n.Name) {
		return nil, fmt.Errorf("node %s: %w", idOrName, lifecycle.ErrNotRegistered)
	}
	b := &lifecycle.BIOS{Driver: f.Driver, SchemaSource: lifecycle.SchemaSourceNone, Settings: map[string]lifecycle.BIOSSetting{}}
	if f.Schema != nil {
		b.SchemaSource = lifecycle.SchemaSourceIronic
	}
	for k, v := range n.BIOS {
		s := f.Schema[k]
		s.Name, s.Value = k, v
		b.Settings[k] = s
	}
	return b, nil
}

// Features returns f.Offers.
func (f *Firmware) Features() lifecycle.FirmwareFeatures { return f.Offers }

// Firmware is not faked.
func (f *Firmware) Firmware(context.Context, string, *lifecycle.BMCAccess) (*lifecycle.FirmwareInventory, error) {
	return &lifecycle.FirmwareInventory{}, nil
}

func (n *Node) Provide(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	n.call("Provide")
	n.mu.Lock()
	defer n.mu.Unlock()
	return lifecycle.Result{Verb: "provide", ProvisionState: n.PS}, nil
}

// Provision deploys h.Spec.Image: available -> active (or deploy failed
// with FailDeploy); a failed deploy is re-issued only with restart.
func (n *Node) Provision(_ context.Context, h *lifecycle.Host, restart bool) (lifecycle.Result, error) {
	n.call("Provision")
	n.mu.Lock()
	defer n.mu.Unlock()
	cp := *h
	n.deployed = append(n.deployed, &cp)
	switch n.PS {
	case "available":
		if n.FailDeploy != "" {
			n.PS, n.lastError = "deploy failed", n.FailDeploy
		} else {
			n.PS = "active"
		}
		n.Image = h.Spec.Image
		return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "active", ProvisionState: "available"}, nil
	case "deploy failed":
		if !restart {
			url := ""
			if h.Spec.Image != nil {
				url = h.Spec.Image.URL
			}
			return lifecycle.Result{ErrorMessage: "Image provisioning failed (" + url + ", ): " + n.lastError,
				Verb: "active", ProvisionState: n.PS}, nil
		}
		n.PS = "available"
		return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "active", ProvisionState: "deploy failed"}, nil
	case "wait call-back", "deploying":
		n.PS = "active"
		return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "active", ProvisionState: "wait call-back"}, nil
	}
	return lifecycle.Result{Verb: "active", ProvisionState: n.PS}, nil
}

// Deprovision undeploys and cleans: back to available with no image (or
// clean failed with FailUndeploy).
func (n *Node) Deprovision(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	n.call("Deprovision")
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.PS == "available":
		return lifecycle.Result{Verb: "deleted", ProvisionState: n.PS}, nil
	case n.FailUndeploy != "":
		n.PS, n.lastError = "clean failed", n.FailUndeploy
		return lifecycle.Result{ErrorMessage: "Cleaning failed: " + n.lastError, Verb: "deleted", ProvisionState: n.PS}, nil
	}
	was := n.PS
	n.PS, n.Image, n.lastError = "available", nil, ""
	return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "deleted", ProvisionState: was}, nil
}

func (n *Node) Adopt(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	n.call("Adopt")
	n.mu.Lock()
	defer n.mu.Unlock()
	return lifecycle.Result{Verb: "adopt", ProvisionState: n.PS}, nil
}

func (n *Node) PowerOn(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	n.call("PowerOn")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.PoweredOn = true
	return lifecycle.Result{Verb: "power on", ProvisionState: n.PS}, nil
}

func (n *Node) PowerOff(context.Context, *lifecycle.Host, lifecycle.PowerMode, bool) (lifecycle.Result, error) {
	n.call("PowerOff")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.PoweredOn = false
	return lifecycle.Result{Verb: "power off", ProvisionState: n.PS}, nil
}

func (n *Node) Delete(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	n.call("Delete")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Gone = true
	return lifecycle.Result{}, nil
}

func (n *Node) Detach(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	n.call("Detach")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Maintenance = true
	return lifecycle.Result{}, nil
}

func (n *Node) Attach(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	n.call("Attach")
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Maintenance = false
	return lifecycle.Result{}, nil
}

// Observe finds the node by h's id or name, as Ironic's lookup does.
func (n *Node) Observe(_ context.Context, h *lifecycle.Host) (lifecycle.Observation, error) {
	n.call("Observe")
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ObserveErr != nil {
		return lifecycle.Observation{}, n.ObserveErr
	}
	if n.Gone || (h.Status.ID != n.ID && h.Status.ID != n.Name && h.Spec.Name != n.Name) {
		return lifecycle.Observation{}, nil
	}
	on := n.PoweredOn
	reason := ""
	if n.Maintenance {
		reason = lifecycle.DetachReason
		if n.MaintenanceReason != "" {
			reason = n.MaintenanceReason
		}
	}
	return lifecycle.Observation{
		Exists: true, ID: n.ID, Name: n.Name, Driver: n.HardwareType, State: StateOf(n.PS), ProvisionState: n.PS,
		PoweredOn: &on, LastError: n.lastError, DeployedImage: n.Image, BootMode: n.BootMode,
		Maintenance: n.Maintenance, MaintenanceReason: reason, Boot: n.Boot, BootInterface: n.BootInterface,
		BIOSInterface: n.BIOSInterface,
	}, nil
}

// StateOf is the BMO state of a deployment-related Ironic provision state,
// as internal/ironic maps them.
func StateOf(ps string) lifecycle.State {
	switch {
	case ps == "available":
		return lifecycle.StateAvailable
	case ps == "active":
		return lifecycle.StateProvisioned
	case ps == "manageable":
		return lifecycle.StatePreparing
	case strings.HasPrefix(ps, "deploy") || ps == "wait call-back":
		return lifecycle.StateProvisioning
	case strings.HasPrefix(ps, "clean") || ps == "deleting":
		return lifecycle.StateDeprovisioning
	}
	return lifecycle.State(ps)
}
