package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// fwFake is the shared fake Ironic (ironictest) with one node "fw-0"
// (driver idrac) in state, its BIOS settings with registry fields, and
// firmware components; mv is the highest microversion it offers.
func fwFake(t *testing.T, state, mv string) *ironictest.Server {
	t.Helper()
	srv := ironictest.New(t)
	srv.MaxMicroversion = mv
	srv.AddNode(nodes.Node{UUID: fwNodeUUID, Name: "fw-0", ProvisionState: state, Driver: "idrac",
		BIOSInterface: "idrac-redfish", PowerState: "power on"})
	yes, no := true, false
	srv.SetBIOS("fw-0", []nodes.BIOSSetting{
		{Name: "NumLock", Value: "On", AttributeType: "Enumeration", AllowableValues: []string{"On", "Off"}, ReadOnly: &no},
		{Name: "ProcVirtualization", Value: "Disabled", AttributeType: "Enumeration",
			AllowableValues: []string{"Enabled", "Disabled"}, ReadOnly: &no, ResetRequired: &yes},
		{Name: "SetupPassword", Value: "", AttributeType: "Password"},
	})
	srv.SetFirmware("fw-0", []nodes.FirmwareComponent{
		{Component: "bios", InitialVersion: "1.0.0", CurrentVersion: "2.1.0", LastVersionFlashed: "2.1.0"},
		{Component: "bmc", InitialVersion: "5.0", CurrentVersion: "5.10"},
		{Component: "nic:NIC.Integrated.1-1", InitialVersion: "22.0", CurrentVersion: "22.5"},
		{Component: "psu:1", InitialVersion: "1", CurrentVersion: "1"},
	})
	return srv
}

const fwNodeUUID = "0d1c5d4e-1111-4a52-9b6e-2b1bb0b0e0f1"

// fwClient is a client of srv speaking microversion mv.
func fwClient(t *testing.T, srv *ironictest.Server, mv string) *gophercloud.ServiceClient {
	t.Helper()
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = mv
	return sc
}

// provisionBodies returns the bodies of the provision and RAID requests, in
// order, as "verb" (the provision target, or "raid") and the decoded body.
func provisionBodies(t *testing.T, srv *ironictest.Server) (verbs []string, bodies []map[string]any) {
	t.Helper()
	for _, r := range srv.Requests() {
		if r.Method != http.MethodPut || (!strings.HasSuffix(r.Path, "/states/provision") && !strings.HasSuffix(r.Path, "/states/raid")) {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatalf("%s body %q: %v", r.Path, r.Body, err)
		}
		verb, _ := body["target"].(string)
		if strings.HasSuffix(r.Path, "/raid") {
			verb = "raid"
		}
		verbs, bodies = append(verbs, verb), append(bodies, body)
	}
	return verbs, bodies
}

func biosValue(srv *ironictest.Server, name string) string {
	for _, b := range srv.BIOS("fw-0") {
		if b.Name == name {
			return b.Value
		}
	}
	return ""
}

// instantWaiter lets ServiceFirmware loop without waiting.
type instantWaiter struct{}

func (instantWaiter) Wait(ctx context.Context, _ string, _ time.Duration) error { return ctx.Err() }

func fwMachine(sc *gophercloud.ServiceClient) *lifecycle.Machine {
	return &lifecycle.Machine{Prov: NewProvisioner(sc, nil), Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
}

// fwMachineOn is fwFake's node in state at microversion mv, and the
// machine that drives it there.
func fwMachineOn(t *testing.T, state, mv string) (*ironictest.Server, *lifecycle.Machine) {
	t.Helper()
	srv := fwFake(t, state, mv)
	return srv, fwMachine(fwClient(t, srv, mv))
}

func fwHost(settings map[string]string) *lifecycle.Host {
	return &lifecycle.Host{
		Spec:   lifecycle.HostSpec{Name: "fw-0", RegisteredElsewhere: true, FirmwareSettings: settings},
		Status: lifecycle.HostStatus{ID: fwNodeUUID, State: lifecycle.StateProvisioned},
	}
}

// TestCatalogBIOS: the registry fields come from /bios?detail=True at 1.74+
// (schema "ironic"), and "Password" settings are dropped; below 1.74 there
// is no detail and no schema.
func TestCatalogBIOS(t *testing.T) {
	srv := fwFake(t, "active", "1.82")
	b, err := NewCatalog(fwClient(t, srv, "1.82")).BIOS(context.Background(), "fw-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaSource != lifecycle.SchemaSourceIronic || b.Driver != "idrac" {
		t.Errorf("source %q driver %q", b.SchemaSource, b.Driver)
	}
	if _, ok := b.Settings["SetupPassword"]; ok {
		t.Errorf("password setting kept: %v", b.Settings)
	}
	pv := b.Settings["ProcVirtualization"]
	if pv.Type != lifecycle.AttrEnumeration || len(pv.AllowableValues) != 2 || !pv.ResetRequired || pv.Value != "Disabled" {
		t.Errorf("ProcVirtualization %+v", pv)
	}
	srv.ResetRequests()
	b, err = NewCatalog(fwClient(t, srv, "1.72")).BIOS(context.Background(), "fw-0", nil)
	if err != nil || b.SchemaSource != lifecycle.SchemaSourceNone || len(b.Settings) != 2 {
		t.Errorf("1.72: %+v %v", b, err)
	}
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/bios") && strings.Contains(r.Query, "detail") {
			t.Errorf("1.72 asked for detail: %s?%s", r.Path, r.Query)
		}
	}
	if _, err := NewCatalog(fwClient(t, srv, "1.82")).BIOS(context.Background(), "nope", nil); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Errorf("missing node: %v", err)
	}
}

// TestServiceFirmware: on a provisioned host at API 1.87+ only the settings
// that differ go out, as service_steps of the "service" verb; the host ends
// active with them applied. A second run sends nothing.
func TestServiceFirmware(t *testing.T) {
	srv, m := fwMachineOn(t, "active", "1.87")
	h := fwHost(map[string]string{"ProcVirtualization": "Enabled", "NumLock": "On"})
	if err := m.ServiceFirmware(context.Background(), h, 1); err != nil {
		t.Fatal(err)
	}
	verbs, bodies := provisionBodies(t, srv)
	if len(verbs) != 1 || verbs[0] != "service" {
		t.Fatalf("verbs %v, want one service", verbs)
	}
	raw, _ := json.Marshal(bodies[0]["service_steps"])
	want := `[{"args":{"settings":[{"name":"ProcVirtualization","value":"Enabled"}]},"interface":"bios","step":"apply_configuration"}]`
	if string(raw) != want {
		t.Errorf("service_steps %s\nwant %s", raw, want)
	}
	if v, n := biosValue(srv, "ProcVirtualization"), srv.MustNode("fw-0"); v != "Enabled" || n.ProvisionState != "active" {
		t.Errorf("after servicing: ProcVirtualization %q, state %q", v, n.ProvisionState)
	}
	// Nothing differs any more: no second service.
	h = fwHost(map[string]string{"ProcVirtualization": "Enabled"})
	if err := m.ServiceFirmware(context.Background(), h, 1); err != nil {
		t.Fatal(err)
	}
	if verbs, _ := provisionBodies(t, srv); len(verbs) != 1 {
		t.Errorf("no-op servicing sent %v", verbs)
	}
}

// TestServiceFirmwareFailure: a failed servicing is retried with the same
// steps; without retries left it is reported with Ironic's last_error and
// the verb.
func TestServiceFirmwareFailure(t *testing.T) {
	srv, m := fwMachineOn(t, "active", "1.87")
	m.BackoffUnit = time.Millisecond
	srv.FailNext("fw-0", "iDRAC job JID_1 failed: invalid value")
	if err := m.ServiceFirmware(context.Background(), fwHost(map[string]string{"ProcVirtualization": "Enabled"}), 1); err != nil {
		t.Fatalf("retried servicing: %v", err)
	}
	if verbs, _ := provisionBodies(t, srv); strings.Join(verbs, ",") != "service,service" {
		t.Errorf("verbs %v, want service then one retry", verbs)
	}
	if v := biosValue(srv, "ProcVirtualization"); v != "Enabled" {
		t.Errorf("after the retry: %q", v)
	}

	srv = fwFake(t, "active", "1.87")
	m = fwMachine(fwClient(t, srv, "1.87"))
	srv.FailNext("fw-0", "iDRAC job JID_2 failed: invalid value")
	err := m.ServiceFirmware(context.Background(), fwHost(map[string]string{"ProcVirtualization": "Enabled"}), 0)
	var he *lifecycle.HostError
	if !errors.As(err, &he) || he.ErrorType != lifecycle.ServicingError || !strings.Contains(err.Error(), "JID_2") ||
		!strings.Contains(err.Error(), `"service"`) || !strings.Contains(err.Error(), "service failed") {
		t.Fatalf("error %v", err)
	}
}

// TestServiceFirmwareBelow187: Ironic 21.4 offers 1.82: nothing is sent and
// the error says what to do.
func TestServiceFirmwareBelow187(t *testing.T) {
	srv, m := fwMachineOn(t, "active", "1.82")
	err := m.ServiceFirmware(context.Background(), fwHost(map[string]string{"ProcVirtualization": "Enabled"}), 1)
	if !errors.Is(err, lifecycle.ErrServicingUnsupported) || !strings.Contains(err.Error(), "deprovision the host first") ||
		!strings.Contains(err.Error(), "1.82") {
		t.Fatalf("error %v", err)
	}
	if verbs, _ := provisionBodies(t, srv); len(verbs) != 0 {
		t.Errorf("sent %v below 1.87", verbs)
	}
	if feat := NewCatalog(fwClient(t, srv, "1.82")).Features(); feat.Servicing || feat.Components || !feat.BIOSRegistry {
		t.Errorf("features at 1.82: %+v", feat)
	}
	if feat := NewCatalog(fwClient(t, srv, "1.87")).Features(); !feat.Servicing || !feat.Components {
		t.Errorf("features at 1.87: %+v", feat)
	}
}

// TestFirmwareStepsReset: a factory reset goes first; on the fake BIOS
// interface the whole list is sent (it replaces what it stores), elsewhere
// only what differs.
func TestFirmwareStepsReset(t *testing.T) {
	srv := fwFake(t, "manageable", "1.82")
	p := NewProvisioner(fwClient(t, srv, "1.82"), nil)
	h := fwHost(nil)
	h.Spec.FirmwareReset = true
	node, err := p.getNode(context.Background(), h, fwNodeUUID)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := p.firmwareSteps(context.Background(), h, node)
	if err != nil || len(steps) != 1 || steps[0].Step != "factory_reset" {
		t.Fatalf("reset steps %+v %v", steps, err)
	}
	h.Status.FirmwareResetDone = true
	if steps, _ := p.firmwareSteps(context.Background(), h, node); steps != nil {
		t.Errorf("reset done: %+v", steps)
	}
	h.Spec.FirmwareSettings = map[string]string{"NumLock": "Off"}
	node.BIOSInterface = "fake"
	steps, _ = p.firmwareSteps(context.Background(), h, node)
	raw, _ := json.Marshal(steps)
	want := `[{"interface":"bios","step":"apply_configuration","args":{"settings":[{"name":"NumLock","value":"Off"},{"name":"ProcVirtualization","value":"Disabled"},{"name":"SetupPassword","value":""}]}}]`
	if string(raw) != want {
		t.Errorf("fake interface steps %s\nwant %s", raw, want)
	}
}

// TestCatalogFirmware186: at API 1.86+ the components come from Ironic's
// firmware API, filtered to bios, bmc and nic:* as BMO does; below, with no
// BMC credentials, there are none.
func TestCatalogFirmware186(t *testing.T) {
	srv := fwFake(t, "active", "1.86")
	inv, err := NewCatalog(fwClient(t, srv, "1.86")).Firmware(context.Background(), "fw-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Source != lifecycle.FirmwareSourceIronic || inv.BIOSVersion != "2.1.0" || len(inv.Components) != 3 {
		t.Fatalf("inventory %+v", inv)
	}
	if c := inv.Components[2]; c.ID != "nic:NIC.Integrated.1-1" || c.Version != "22.5" {
		t.Errorf("nic component %+v", c)
	}
	inv, err = NewCatalog(fwClient(t, srv, "1.82")).Firmware(context.Background(), "fw-0", nil)
	if err != nil || inv.Source != lifecycle.FirmwareSourceNone || len(inv.Components) != 0 {
		t.Errorf("1.82: %+v %v", inv, err)
	}
}

// TestPrepareRAIDThenBIOS: a manageable node gets target_raid_config, then
// one manual clean with RAID delete and create ahead of the BIOS step (BMO's
// order), only the BIOS settings that differ; software RAID puts
// erase_devices_metadata between the RAID steps.
func TestPrepareRAIDThenBIOS(t *testing.T) {
	srv := fwFake(t, "manageable", "1.82")
	srv.UpdateNode("fw-0", func(n *nodes.Node) { n.RAIDInterface = "idrac-redfish" })
	p := NewProvisioner(fwClient(t, srv, "1.82"), nil)
	h := fwHost(map[string]string{"ProcVirtualization": "Enabled", "NumLock": "On"})
	h.Status.State = lifecycle.StatePreparing
	h.Spec.RegisteredElsewhere = false
	h.Spec.RAID = &lifecycle.RAIDConfig{HardwareVolumes: []lifecycle.HardwareRAIDVolume{{Level: "1", SizeGigabytes: 50, Controller: "RAID.1", PhysicalDisks: []string{"a", "b"}}}}
	res, started, err := p.Prepare(context.Background(), h, true, false)
	if err != nil || !started || !res.Dirty {
		t.Fatalf("prepare: %+v %v %v", res, started, err)
	}
	verbs, bodies := provisionBodies(t, srv)
	if len(verbs) != 2 || verbs[0] != "raid" || verbs[1] != "clean" {
		t.Fatalf("verbs %v, want raid then clean", verbs)
	}
	raw, _ := json.Marshal(bodies[0])
	if want := `{"logical_disks":[{"controller":"RAID.1","physical_disks":["a","b"],"raid_level":"1","size_gb":50}]}`; string(raw) != want {
		t.Errorf("target_raid_config %s\nwant %s", raw, want)
	}
	if n := srv.MustNode("fw-0"); n.TargetRAIDConfig == nil {
		t.Errorf("the fake did not store target_raid_config")
	}
	raw, _ = json.Marshal(bodies[1]["clean_steps"])
	want := `[{"interface":"raid","step":"delete_configuration"},{"interface":"raid","step":"create_configuration"},` +
		`{"args":{"settings":[{"name":"ProcVirtualization","value":"Enabled"}]},"interface":"bios","step":"apply_configuration"}]`
	if string(raw) != want {
		t.Errorf("clean_steps %s\nwant %s", raw, want)
	}
	sw := raidSteps(&lifecycle.RAIDConfig{SoftwareVolumes: []lifecycle.SoftwareRAIDVolume{{Level: "1"}}})
	if len(sw) != 3 || sw[1].Step != "erase_devices_metadata" || sw[1].Interface != "deploy" {
		t.Errorf("software RAID steps %+v", sw)
	}
	if del := raidSteps(&lifecycle.RAIDConfig{}); len(del) != 1 || del[0].Step != "delete_configuration" {
		t.Errorf("empty RAID steps %+v", del)
	}
	// Disk hints use the root device hint syntax, as BMO's MakeHintMap does.
	cfg := TargetRAIDConfig(&lifecycle.RAIDConfig{SoftwareVolumes: []lifecycle.SoftwareRAIDVolume{{Level: "1", PhysicalDisks: []lifecycle.RootDeviceHints{{DeviceName: "/dev/sda"}}}}})
	raw, _ = json.Marshal(cfg)
	if want := `{"logical_disks":[{"controller":"software","physical_disks":[{"name":"s== /dev/sda"}],"raid_level":"1","size_gb":"MAX"}]}`; string(raw) != want {
		t.Errorf("software target %s\nwant %s", raw, want)
	}
}

// TestFirmwareUpdateStep186: at API 1.86+ an available host's updates run
// as Ironic's firmware.update step in a manual clean (manage, clean,
// provide), once: the fake installs the versions, and a second converge
// sends nothing.
func TestFirmwareUpdateStep186(t *testing.T) {
	srv, m := fwMachineOn(t, "available", "1.86")
	h := fwHost(nil)
	h.Status.State = lifecycle.StateAvailable
	h.Spec.FirmwareUpdates = []lifecycle.FirmwareUpdate{
		{Component: "bios", URL: "http://img/bios-2.2.0.bin"},
		{Component: "nic:NIC.Integrated.1-1", URL: "http://img/nic-23.0.1.bin"},
	}
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	verbs, bodies := provisionBodies(t, srv)
	if strings.Join(verbs, ",") != "manage,clean,provide" {
		t.Fatalf("verbs %v, want manage,clean,provide", verbs)
	}
	raw, _ := json.Marshal(bodies[1]["clean_steps"])
	want := `[{"args":{"settings":[{"component":"bios","url":"http://img/bios-2.2.0.bin"},` +
		`{"component":"nic:NIC.Integrated.1-1","url":"http://img/nic-23.0.1.bin"}]},"interface":"firmware","step":"update"}]`
	if string(raw) != want {
		t.Errorf("clean_steps %s\nwant %s", raw, want)
	}
	inv, err := NewCatalog(fwClient(t, srv, "1.86")).Firmware(context.Background(), "fw-0", nil)
	if err != nil || inv.BIOSVersion != "2.2.0" || inv.Components[2].Version != "23.0.1" {
		t.Errorf("after the update: %+v %v", inv, err)
	}
	if n := srv.MustNode("fw-0"); n.ProvisionState != "available" || !h.Status.FirmwareUpdatesDone {
		t.Errorf("state %q, done %v", n.ProvisionState, h.Status.FirmwareUpdatesDone)
	}
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if verbs, _ := provisionBodies(t, srv); len(verbs) != 3 {
		t.Errorf("second converge sent %v", verbs)
	}
}

// TestFirmwareUpdateService187: a provisioned host's updates run as a
// service step at 1.87+, after the BIOS settings that differ (BMO's order);
// the host stays active. Below 1.86 the fake refuses the firmware step, as
// Ironic does.
func TestFirmwareUpdateService187(t *testing.T) {
	srv, m := fwMachineOn(t, "active", "1.87")
	h := fwHost(map[string]string{"NumLock": "Off"})
	h.Spec.FirmwareUpdates = []lifecycle.FirmwareUpdate{{Component: "bmc", URL: "https://img/bmc-6.1.bin"}}
	if err := m.ServiceFirmware(context.Background(), h, 0); err != nil {
		t.Fatal(err)
	}
	verbs, bodies := provisionBodies(t, srv)
	if strings.Join(verbs, ",") != "service" {
		t.Fatalf("verbs %v", verbs)
	}
	raw, _ := json.Marshal(bodies[0]["service_steps"])
	want := `[{"args":{"settings":[{"name":"NumLock","value":"Off"}]},"interface":"bios","step":"apply_configuration"},` +
		`{"args":{"settings":[{"component":"bmc","url":"https://img/bmc-6.1.bin"}]},"interface":"firmware","step":"update"}]`
	if string(raw) != want {
		t.Errorf("service_steps %s\nwant %s", raw, want)
	}
	if fw := srv.Firmware("fw-0"); fw[1].CurrentVersion != "6.1" || srv.MustNode("fw-0").ProvisionState != "active" {
		t.Errorf("after servicing: %+v", fw)
	}

	old := fwFake(t, "manageable", "1.82")
	p := NewProvisioner(fwClient(t, old, "1.82"), nil)
	h = fwHost(nil)
	h.Spec.FirmwareUpdates = []lifecycle.FirmwareUpdate{{Component: "bios", URL: "http://img/bios-9.bin"}}
	_, _, err := p.Prepare(context.Background(), h, true, false)
	if err == nil || !strings.Contains(err.Error(), "1.86") {
		t.Errorf("firmware step at 1.82: %v", err)
	}
}

// With BMC credentials the BMC's FirmwareInventory is listed, every item
// of it, even where Ironic's firmware API (1.86+) keeps a few.
func TestCatalogFirmwareBMCFirst(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 1, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	access := &lifecycle.BMCAccess{
		Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
		DriverInfo: map[string]any{"redfish_username": user, "redfish_password": pass},
	}
	srv := fwFake(t, "active", "1.86")
	inv, err := NewCatalog(fwClient(t, srv, "1.86")).Firmware(context.Background(), "fw-0", access)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, c := range inv.Components {
		ids = append(ids, c.ID)
	}
	if inv.Source != lifecycle.FirmwareSourceRedfish || !slices.Contains(ids, "sys-0-BIOS") {
		t.Errorf("bmc given on 1.86: source %s with components %v, want the BMC's (sys-0-BIOS, ...)", inv.Source, ids)
	}
}
