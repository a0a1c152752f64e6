package ironic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 170*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// nodeTest is one test of the provisioner on the real Ironic: the shared
// client and watcher, the test's context, a provisioner, and a
// fake-hardware host whose node is deleted when the test ends.
type nodeTest struct {
	t   *testing.T
	sc  *gophercloud.ServiceClient
	w   *Watcher
	ctx context.Context
	p   *Provisioner
	h   *lifecycle.Host
}

// newNodeTest runs t in parallel with the other node tests and sets it
// up; mod, when not nil, changes the host before anything registers it.
func newNodeTest(t *testing.T, mod func(h *lifecycle.Host)) *nodeTest {
	t.Parallel()
	sc, w := realIronic(t)
	n := &nodeTest{t: t, sc: sc, w: w, ctx: testCtx(t), p: rigProvisioner(sc, w), h: fakeHost(t)}
	if mod != nil {
		mod(n.h)
	}
	cleanupNode(t, sc, n.h)
	return n
}

// drive drives f on the test's host until it is done.
func (n *nodeTest) drive(what string, f func() (lifecycle.Result, error)) lifecycle.Result {
	n.t.Helper()
	return drive(n.t, n.ctx, n.w, n.h, what, f)
}

// must drives f and fails the test on an error message.
func (n *nodeTest) must(what string, f func() (lifecycle.Result, error)) {
	n.t.Helper()
	mustNoError(n.t, what, n.drive(what, f))
}

// register registers the host, pushing its credentials.
func (n *nodeTest) register() {
	n.t.Helper()
	mustNoError(n.t, "register", register(n.t, n.ctx, n.p, n.w, n.h, true))
}

// provide makes the registered host available.
func (n *nodeTest) provide() {
	n.t.Helper()
	n.must("provide", func() (lifecycle.Result, error) { return n.p.Provide(n.ctx, n.h) })
}

// deployFrom registers the host, makes it available and deploys the
// qcow2 image at url, returning the result once the node has settled.
func (n *nodeTest) deployFrom(url string) lifecycle.Result {
	n.t.Helper()
	n.register()
	n.provide()
	n.h.Spec.Image = qcow2(url)
	return n.drive("provision", func() (lifecycle.Result, error) { return n.p.Provision(n.ctx, n.h, false) })
}

// node reads the host's node.
func (n *nodeTest) node() *nodes.Node {
	n.t.Helper()
	return getNode(n.t, n.ctx, n.sc, n.h.Status.ID)
}

// qcow2 is a qcow2 image at url with an MD5 checksum.
func qcow2(url string) *lifecycle.Image {
	return &lifecycle.Image{URL: url, Checksum: "0123456789abcdef0123456789abcdef", Format: "qcow2"}
}

// TestIronicLifecycle drives one fake-hardware node through the whole
// life: register, inspect, prepare, provide, power, provision, deprovision
// and delete.
func TestIronicLifecycle(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) { h.Spec.BootMACAddress = randomMAC() })
	ctx, p, w, h := nt.ctx, nt.p, nt.w, nt.h

	nt.register()
	if h.Status.ID == "" {
		t.Fatal("register returned no node id")
	}
	n := nt.node()
	if n.ProvisionState != psManageable {
		t.Fatalf("after register: provision state %q", n.ProvisionState)
	}
	if n.Properties["capabilities"] != "boot_mode:uefi" || n.ResourceClass != "baremetal" || n.AutomatedClean == nil || !*n.AutomatedClean {
		t.Errorf("node not configured: capabilities %v, resource class %q, automated_clean %v", n.Properties["capabilities"], n.ResourceClass, n.AutomatedClean)
	}
	if len(n.Traits) != 1 || n.Traits[0] != "CUSTOM_TEST" {
		t.Errorf("traits = %v", n.Traits)
	}
	if labelsOf(n)["rack"] != "r1" {
		t.Errorf("extra = %v", n.Extra)
	}
	h.Status.State = lifecycle.StateRegistering

	// Inspect.
	var details *lifecycle.HardwareDetails
	started := false
	nt.must("inspect", func() (lifecycle.Result, error) {
		r, s, d, err := p.Inspect(ctx, h, false, false)
		started = started || s
		details = d
		return r, err
	})
	if !started || details == nil {
		t.Fatalf("inspect: started=%v details=%v", started, details)
	}
	if len(details.NICs) != 1 || details.NICs[0].MAC != h.Spec.BootMACAddress {
		t.Errorf("details NICs = %+v, want the boot MAC port", details.NICs)
	}
	if n := nt.node(); n.InspectionFinishedAt == nil {
		t.Error("inspection_finished_at not set")
	}
	h.Status.State = lifecycle.StateInspecting

	// Prepare without steps: root hints only.
	h.Spec.RootDeviceHints = &lifecycle.RootDeviceHints{DeviceName: "/dev/vda", MinSizeGigabytes: 10}
	nt.must("prepare", func() (lifecycle.Result, error) {
		r, _, err := p.Prepare(ctx, h, true, false)
		return r, err
	})
	n = nt.node()
	if rd, _ := n.Properties["root_device"].(map[string]any); rd["name"] != "s== /dev/vda" || rd["size"] != ">= 10" {
		t.Errorf("properties.root_device = %v", n.Properties["root_device"])
	}
	h.Status.State = lifecycle.StatePreparing

	// Provide.
	nt.provide()
	obs, err := p.Observe(ctx, h)
	if err != nil || obs.ProvisionState != psAvailable || obs.State != lifecycle.StateAvailable {
		t.Fatalf("observe after provide: %+v, %v", obs, err)
	}
	h.Status.State = lifecycle.StateAvailable

	// Power on, then off (soft).
	nt.must("power on", func() (lifecycle.Result, error) { return p.PowerOn(ctx, h, false) })
	if obs, _ := p.Observe(ctx, h); obs.PoweredOn == nil || !*obs.PoweredOn {
		t.Fatalf("after power on: PoweredOn=%v", obs.PoweredOn)
	}
	nt.must("power off", func() (lifecycle.Result, error) { return p.PowerOff(ctx, h, lifecycle.PowerSoft, false) })
	if obs, _ := p.Observe(ctx, h); obs.PoweredOn == nil || *obs.PoweredOn {
		t.Fatalf("after power off: PoweredOn=%v", obs.PoweredOn)
	}

	// Provision.
	h.Spec.Image = qcow2("http://127.0.0.1/image.qcow2")
	h.Spec.InstanceUUID = "8f0f6ab6-2d1e-4a53-9a0e-3f9d3b0b1c11"
	h.Spec.UserData = "#cloud-config\n"
	h.Spec.MetaData = map[string]any{"role": "worker"}
	nt.must("provision", func() (lifecycle.Result, error) { return p.Provision(ctx, h, false) })
	n = nt.node()
	if n.ProvisionState != psActive || n.InstanceUUID != h.Spec.InstanceUUID {
		t.Fatalf("after provision: %q instance_uuid %q", n.ProvisionState, n.InstanceUUID)
	}
	if n.InstanceInfo["image_source"] != h.Spec.Image.URL || n.InstanceInfo["image_checksum"] != h.Spec.Image.Checksum {
		t.Errorf("instance_info = %v", n.InstanceInfo)
	}
	if rd, _ := n.InstanceInfo["root_device"].(map[string]any); rd["name"] != "s== /dev/vda" {
		t.Errorf("instance_info.root_device = %v", n.InstanceInfo["root_device"])
	}
	obs, _ = p.Observe(ctx, h)
	if obs.State != lifecycle.StateProvisioned || obs.DeployedImage == nil || obs.DeployedImage.URL != h.Spec.Image.URL {
		t.Errorf("observe after provision: state %q image %+v", obs.State, obs.DeployedImage)
	}
	h.Status.State = lifecycle.StateProvisioned

	// Deprovision.
	nt.must("deprovision", func() (lifecycle.Result, error) { return p.Deprovision(ctx, h, false) })
	if n := nt.node(); n.ProvisionState != psAvailable {
		t.Fatalf("after deprovision: %q", n.ProvisionState)
	}

	// Delete (available: straight DELETE), then again: already gone.
	nt.must("delete", func() (lifecycle.Result, error) { return p.Delete(ctx, h) })
	if _, err := nodes.Get(ctx, nt.sc, h.Status.ID).Extract(); !isNotFound(err) {
		t.Fatalf("node still there after delete: %v", err)
	}
	if res, err := p.Delete(ctx, h); err != nil || res.Dirty || res.ErrorMessage != "" {
		t.Fatalf("second delete: %+v %v", res, err)
	}
	if _, err := p.Provide(ctx, h); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Fatalf("provide on a deleted node: %v, want ErrNotRegistered", err)
	}
	obs, err = p.Observe(ctx, h)
	if err != nil || obs.Exists {
		t.Fatalf("observe a deleted node: %+v %v", obs, err)
	}
	st := w.Stats()
	t.Logf("watcher stats: %+v", st)
	if st.ListRequests == 0 || st.Wakeups == 0 {
		t.Errorf("the watcher never listed nodes or woke anyone: %+v", st)
	}
}

// TestIronicRegisterFindsExisting: a second Register finds the same node
// by name, and by boot MAC with no id or name; a MAC on a node with another
// name is a conflict.
func TestIronicRegisterFindsExisting(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) { h.Spec.BootMACAddress = randomMAC() })
	ctx, p, h := nt.ctx, nt.p, nt.h

	res, id, err := p.Register(ctx, h, true, false)
	if err != nil || id == "" {
		t.Fatalf("register: %+v %q %v", res, id, err)
	}
	h.Status.ID = id

	// By name (no id).
	byName := *h
	byName.Status.ID = ""
	_, id2, err := p.Register(ctx, &byName, false, false)
	if err != nil || id2 != id {
		t.Fatalf("register by name: id %q (want %q) %v", id2, id, err)
	}

	// By MAC (no id, no name).
	byMAC := *h
	byMAC.Status.ID = ""
	byMAC.Spec.Name = ""
	_, id3, err := p.Register(ctx, &byMAC, false, false)
	if err != nil || id3 != id {
		t.Fatalf("register by MAC found %q (want %q): %v", id3, id, err)
	}
	if n := nt.node(); n.Name != h.Spec.Name {
		t.Errorf("register by MAC renamed the node to %q", n.Name)
	}

	// Same MAC, different name: conflict.
	other := *h
	other.Status.ID = ""
	other.Spec.Name = h.Spec.Name + "-other"
	res, _, err = p.Register(ctx, &other, false, false)
	if err != nil || !strings.Contains(res.ErrorMessage, "conflicts") {
		t.Fatalf("register with a taken MAC: %+v %v", res, err)
	}
	if _, err := nodes.Get(ctx, nt.sc, other.Spec.Name).Extract(); !isNotFound(err) {
		t.Fatalf("a node was created for the conflicting host: %v", err)
	}

	// Only one node has the name.
	mustNoError(t, "register", register(t, ctx, p, nt.w, h, false))
	if h.Status.ID != id {
		t.Fatalf("id changed: %q -> %q", id, h.Status.ID)
	}
}

// TestIronicPrepareFirmware: firmware settings go through manual cleaning
// as bios.apply_configuration on the fake bios interface.
func TestIronicPrepareFirmware(t *testing.T) {
	nt := newNodeTest(t, nil)
	ctx, p, h := nt.ctx, nt.p, nt.h
	nt.register()

	h.Spec.FirmwareSettings = map[string]string{"ProcVirtualization": "Enabled", "BootMode": "Uefi"}
	started := false
	nt.must("prepare", func() (lifecycle.Result, error) {
		r, s, err := p.Prepare(ctx, h, true, false)
		if s {
			started = true
		}
		return r, err
	})
	if !started {
		t.Fatal("prepare never started cleaning")
	}
	settings, err := nodes.ListBIOSSettings(ctx, nt.sc, h.Status.ID, nil).Extract()
	if err != nil {
		t.Fatalf("list bios: %v", err)
	}
	got := map[string]string{}
	for _, s := range settings {
		got[s.Name] = s.Value
	}
	for k, v := range h.Spec.FirmwareSettings {
		if got[k] != v {
			t.Errorf("bios %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if n := nt.node(); n.ProvisionState != psManageable {
		t.Errorf("after prepare: %q, want manageable", n.ProvisionState)
	}
	// Nothing differs any more: no second cleaning.
	res, started, err := p.Prepare(ctx, h, true, false)
	if err != nil || res.Dirty || res.ErrorMessage != "" || !started {
		t.Errorf("second prepare: %+v started=%v %v", res, started, err)
	}
}

// TestIronicInspectFailure: inspection through an unreachable Redfish BMC
// fails, and the error carries Ironic's last_error.
func TestIronicInspectFailure(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) {
		h.Spec.BMC.Interfaces["inspect_interface"] = "redfish"
		h.Spec.BMC.DriverInfo = map[string]any{
			"redfish_address":  "http://127.0.0.1:1",
			"redfish_username": "admin",
			"redfish_password": "secret",
		}
	})
	ctx, p, h := nt.ctx, nt.p, nt.h
	nt.register()

	res := nt.drive("inspect", func() (lifecycle.Result, error) {
		r, _, _, err := p.Inspect(ctx, h, false, false)
		return r, err
	})
	if res.ErrorMessage == "" {
		t.Fatalf("inspection did not fail: %+v", res)
	}
	n := nt.node()
	if n.ProvisionState != psInspectFail || n.LastError == "" || !strings.Contains(res.ErrorMessage, n.LastError) {
		t.Fatalf("error %q, node %q last_error %q", res.ErrorMessage, n.ProvisionState, n.LastError)
	}
	if res.Verb != "inspect" || res.ProvisionState != psInspectFail {
		t.Errorf("result verb %q state %q", res.Verb, res.ProvisionState)
	}
	if strings.Contains(res.ErrorMessage, "secret") {
		t.Error("password in the error message")
	}
	// Retrying re-issues inspect.
	res, started, _, err := p.Inspect(ctx, h, true, false)
	if err != nil || !started || !res.Dirty {
		t.Errorf("retry: %+v started=%v %v", res, started, err)
	}
}

// TestIronicDeployValidationFailure: a boot interface that lacks its
// deploy ramdisk fails GET /validate: "host validation error".
func TestIronicDeployValidationFailure(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) {
		h.Spec.BMC.Interfaces["boot_interface"] = "redfish-virtual-media"
		h.Spec.BMC.Interfaces["deploy_interface"] = "direct"
		h.Spec.AutomatedCleaningMode = lifecycle.CleaningDisabled
	})
	res := nt.deployFrom("http://127.0.0.1/image.qcow2")
	if !strings.HasPrefix(res.ErrorMessage, "host validation error") {
		t.Fatalf("provision: %+v, want a host validation error", res)
	}
	if res.Verb != "validate" || res.ProvisionState != psAvailable {
		t.Errorf("result verb %q state %q", res.Verb, res.ProvisionState)
	}
	if n := nt.node(); n.ProvisionState != psAvailable {
		t.Errorf("node left available: %q", n.ProvisionState)
	}
}

// TestIronicDeployFailure: direct deploy of an image nobody serves ends in
// deploy failed; Provision reports "Image provisioning failed (url,
// checksum): last_error", and re-issues active when retrying.
func TestIronicDeployFailure(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) {
		h.Spec.BMC.Interfaces["deploy_interface"] = "direct"
		h.Spec.AutomatedCleaningMode = lifecycle.CleaningDisabled
	})
	res := nt.deployFrom("http://127.0.0.1:1/image.qcow2")
	want := "Image provisioning failed (http://127.0.0.1:1/image.qcow2, 0123456789abcdef0123456789abcdef): "
	n := nt.node()
	if !strings.HasPrefix(res.ErrorMessage, want) || n.LastError == "" || !strings.HasSuffix(res.ErrorMessage, n.LastError) {
		t.Fatalf("provision: %q, last_error %q", res.ErrorMessage, n.LastError)
	}
	if res.Verb != "active" || res.ProvisionState != psDeployFail {
		t.Errorf("result verb %q state %q", res.Verb, res.ProvisionState)
	}
	// Deprovision from deploy failed goes back to available.
	nt.must("deprovision", func() (lifecycle.Result, error) { return nt.p.Deprovision(nt.ctx, nt.h, false) })
}

// TestIronicObserveMissing: Observe on a node that does not exist.
func TestIronicObserveMissing(t *testing.T) {
	nt := newNodeTest(t, nil)
	ctx, p, h := nt.ctx, nt.p, nt.h
	h.Status.ID = "2a1f2a5e-9a8e-4a4e-8a43-000000000000"
	obs, err := p.Observe(ctx, h)
	if err != nil || obs.Exists {
		t.Fatalf("observe: %+v %v", obs, err)
	}
	if _, _, _, err := p.Inspect(ctx, h, false, false); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Fatalf("inspect: %v, want ErrNotRegistered", err)
	}
	for name, f := range map[string]func() (lifecycle.Result, error){
		"power on": func() (lifecycle.Result, error) { return p.PowerOn(ctx, h, false) },
		"provision": func() (lifecycle.Result, error) {
			h.Spec.Image = &lifecycle.Image{URL: "x"}
			return p.Provision(ctx, h, false)
		},
		"deprovision": func() (lifecycle.Result, error) { return p.Deprovision(ctx, h, false) },
	} {
		if _, err := f(); !errors.Is(err, lifecycle.ErrNotRegistered) {
			t.Errorf("%s: %v, want ErrNotRegistered", name, err)
		}
	}
	if res, err := p.Delete(ctx, h); err != nil || res.Dirty {
		t.Errorf("delete: %+v %v", res, err)
	}
}

// A deployment does not own the host's registration: undeploying it keeps
// the automated cleaning setting the host's owner gave the node.
func TestIronicDeprovisionKeepsOwnersCleaningSetting(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) { h.Spec.AutomatedCleaningMode = lifecycle.CleaningDisabled })
	ctx, p, w, h := nt.ctx, nt.p, nt.w, nt.h
	nt.register()
	nt.provide()

	// The deployment's view of the host: no cleaning mode of its own.
	d := &lifecycle.Host{
		Spec:   lifecycle.HostSpec{Name: h.Spec.Name, RegisteredElsewhere: true, Online: true},
		Status: lifecycle.HostStatus{ID: h.Status.ID, State: lifecycle.StateAvailable},
	}
	d.Spec.Image = qcow2("http://127.0.0.1/image.qcow2")
	mustNoError(t, "provision", drive(t, ctx, w, d, "provision", func() (lifecycle.Result, error) { return p.Provision(ctx, d, false) }))
	mustNoError(t, "deprovision", drive(t, ctx, w, d, "deprovision", func() (lifecycle.Result, error) { return p.Deprovision(ctx, d, false) }))
	if n := nt.node(); n.AutomatedClean == nil || *n.AutomatedClean {
		t.Fatal("automated_clean is on after undeploy, want off (the host's owner disabled it)")
	}
}
