package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// fwFakeIronic is an in-process Ironic with one node, its BIOS settings
// (with registry fields from API 1.74) and the provision verbs that
// firmware changes use: manage/clean/provide and service (1.87). A
// service applies its bios.apply_configuration settings, or fails with
// failWith as last_error; the node then reads "servicing" once and ends
// "active" (or "service failed").
type fwFakeIronic struct {
	t  *testing.T
	mu sync.Mutex

	node     map[string]any
	bios     map[string]map[string]any // name -> setting (name, value, registry fields)
	failWith string
	pending  string // state after the next GET
	verbs    []string
	bodies   []map[string]any
	detail   []bool
}

const fwNodeUUID = "0d1c5d4e-1111-4a52-9b6e-2b1bb0b0e0f1"

func newFwFakeIronic(t *testing.T, state string) *fwFakeIronic {
	return &fwFakeIronic{
		t: t,
		node: map[string]any{
			"uuid": fwNodeUUID, "name": "fw-0", "provision_state": state, "driver": "idrac",
			"bios_interface": "idrac-redfish", "power_state": "power on", "last_error": nil,
		},
		bios: map[string]map[string]any{
			"ProcVirtualization": {"name": "ProcVirtualization", "value": "Disabled", "attribute_type": "Enumeration",
				"allowable_values": []string{"Enabled", "Disabled"}, "read_only": false, "reset_required": true},
			"NumLock": {"name": "NumLock", "value": "On", "attribute_type": "Enumeration",
				"allowable_values": []string{"On", "Off"}, "read_only": false},
			"SetupPassword": {"name": "SetupPassword", "value": "", "attribute_type": "Password"},
		},
	}
}

func (f *fwFakeIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "v1" || parts[1] != "nodes" || (parts[2] != fwNodeUUID && parts[2] != "fw-0") {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_message": "{\"faultstring\": \"Node could not be found.\"}"}`))
		return
	}
	switch {
	case r.Method == http.MethodGet && len(parts) == 3:
		_ = json.NewEncoder(w).Encode(f.node)
		if f.pending != "" {
			f.node["provision_state"], f.pending = f.pending, ""
		}
	case r.Method == http.MethodGet && len(parts) == 4 && parts[3] == "bios":
		detail := r.URL.Query().Get("detail") == "True" || r.URL.Query().Get("detail") == "true"
		f.detail = append(f.detail, detail)
		var list []map[string]any
		for _, s := range f.bios {
			item := map[string]any{"name": s["name"], "value": s["value"]}
			if detail {
				for k, v := range s {
					item[k] = v
				}
			}
			list = append(list, item)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"bios": list})
	case r.Method == http.MethodGet && len(parts) == 4 && parts[3] == "firmware":
		if clients.CompareMicroversions(r.Header.Get("X-OpenStack-Ironic-API-Version"), "1.86") < 0 {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`{"firmware": [
		  {"component": "bios", "initial_version": "1.0.0", "current_version": "2.1.0", "last_version_flashed": "2.1.0"},
		  {"component": "bmc", "initial_version": "5.0", "current_version": "5.10"},
		  {"component": "nic:NIC.Integrated.1-1", "initial_version": "22.0", "current_version": "22.5"},
		  {"component": "psu:1", "initial_version": "1", "current_version": "1"}]}`))
	case r.Method == http.MethodPut && len(parts) == 5 && parts[3] == "states" && parts[4] == "raid":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.node["target_raid_config"] = body
		f.verbs = append(f.verbs, "raid")
		f.bodies = append(f.bodies, body)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPut && len(parts) == 5 && parts[3] == "states" && parts[4] == "provision":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			f.t.Errorf("bad provision body: %v", err)
		}
		target, _ := body["target"].(string)
		f.verbs = append(f.verbs, target)
		f.bodies = append(f.bodies, body)
		switch target {
		case "service":
			if mv := r.Header.Get("X-OpenStack-Ironic-API-Version"); clients.CompareMicroversions(mv, "1.87") < 0 {
				w.WriteHeader(http.StatusNotAcceptable)
				return
			}
			f.node["provision_state"] = "servicing"
			if f.failWith != "" {
				f.node["last_error"] = f.failWith
				f.pending = "service failed"
			} else {
				f.applySteps(body["service_steps"])
				f.pending = "active"
			}
		case "abort":
			f.node["provision_state"] = "active"
		case "clean":
			f.node["provision_state"] = "cleaning"
			f.applySteps(body["clean_steps"])
			f.pending = "manageable"
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (f *fwFakeIronic) applySteps(steps any) {
	list, _ := steps.([]any)
	for _, s := range list {
		step, _ := s.(map[string]any)
		if step["step"] != "apply_configuration" {
			continue
		}
		args, _ := step["args"].(map[string]any)
		settings, _ := args["settings"].([]any)
		for _, st := range settings {
			m, _ := st.(map[string]any)
			name, _ := m["name"].(string)
			if f.bios[name] == nil {
				f.bios[name] = map[string]any{"name": name}
			}
			f.bios[name]["value"] = m["value"]
		}
	}
}

func (f *fwFakeIronic) start(mv string) *gophercloud.ServiceClient {
	f.t.Helper()
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1/"})
	if err != nil {
		f.t.Fatal(err)
	}
	sc.Microversion = mv
	return sc
}

func (f *fwFakeIronic) seenVerbs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.verbs)
}

// instantWaiter lets ServiceFirmware loop without waiting.
type instantWaiter struct{}

func (instantWaiter) Wait(ctx context.Context, _ string, _ time.Duration) error { return ctx.Err() }

func fwMachine(sc *gophercloud.ServiceClient) *lifecycle.Machine {
	return &lifecycle.Machine{Prov: NewProvisioner(sc, nil), Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
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
	f := newFwFakeIronic(t, "active")
	b, err := NewCatalog(f.start("1.82")).BIOS(context.Background(), "fw-0", nil)
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
	old := newFwFakeIronic(t, "active")
	b, err = NewCatalog(old.start("1.72")).BIOS(context.Background(), "fw-0", nil)
	if err != nil || b.SchemaSource != lifecycle.SchemaSourceNone || len(b.Settings) != 2 {
		t.Errorf("1.72: %+v %v", b, err)
	}
	if len(old.detail) != 1 || old.detail[0] {
		t.Errorf("1.72 asked for detail: %v", old.detail)
	}
	if _, err := NewCatalog(old.start("1.82")).BIOS(context.Background(), "nope", nil); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Errorf("missing node: %v", err)
	}
}

// TestServiceFirmware: on a provisioned host at API 1.87+ only the settings
// that differ go out, as service_steps of the "service" verb; the host ends
// active with them applied. A second run sends nothing.
func TestServiceFirmware(t *testing.T) {
	f := newFwFakeIronic(t, "active")
	m := fwMachine(f.start("1.87"))
	h := fwHost(map[string]string{"ProcVirtualization": "Enabled", "NumLock": "On"})
	if err := m.ServiceFirmware(context.Background(), h, 1); err != nil {
		t.Fatal(err)
	}
	if v := f.seenVerbs(); len(v) != 1 || v[0] != "service" {
		t.Fatalf("verbs %v, want one service", v)
	}
	raw, _ := json.Marshal(f.bodies[0]["service_steps"])
	want := `[{"args":{"settings":[{"name":"ProcVirtualization","value":"Enabled"}]},"interface":"bios","step":"apply_configuration"}]`
	if string(raw) != want {
		t.Errorf("service_steps %s\nwant %s", raw, want)
	}
	if f.bios["ProcVirtualization"]["value"] != "Enabled" || f.node["provision_state"] != "active" {
		t.Errorf("after servicing: bios %v, state %v", f.bios["ProcVirtualization"], f.node["provision_state"])
	}
	// Nothing differs any more: no second service.
	h = fwHost(map[string]string{"ProcVirtualization": "Enabled"})
	if err := m.ServiceFirmware(context.Background(), h, 1); err != nil {
		t.Fatal(err)
	}
	if v := f.seenVerbs(); len(v) != 1 {
		t.Errorf("no-op servicing sent %v", v)
	}
}

// TestServiceFirmwareFailure: a failed servicing is retried once with the
// same steps, then reported with Ironic's last_error and the verb.
func TestServiceFirmwareFailure(t *testing.T) {
	f := newFwFakeIronic(t, "active")
	f.failWith = "iDRAC job JID_1 failed: invalid value"
	m := fwMachine(f.start("1.87"))
	m.BackoffUnit = time.Millisecond
	err := m.ServiceFirmware(context.Background(), fwHost(map[string]string{"ProcVirtualization": "Enabled"}), 1)
	var he *lifecycle.HostError
	if !errors.As(err, &he) || he.ErrorType != lifecycle.ServicingError || !strings.Contains(err.Error(), "JID_1") ||
		!strings.Contains(err.Error(), `"service"`) || !strings.Contains(err.Error(), "service failed") {
		t.Fatalf("error %v", err)
	}
	if v := f.seenVerbs(); len(v) != 2 || v[0] != "service" || v[1] != "service" {
		t.Errorf("verbs %v, want service then one retry", v)
	}
}

// TestServiceFirmwareBelow187: Ironic 21.4 offers 1.82: nothing is sent and
// the error says what to do.
func TestServiceFirmwareBelow187(t *testing.T) {
	f := newFwFakeIronic(t, "active")
	m := fwMachine(f.start("1.82"))
	err := m.ServiceFirmware(context.Background(), fwHost(map[string]string{"ProcVirtualization": "Enabled"}), 1)
	if !errors.Is(err, lifecycle.ErrServicingUnsupported) || !strings.Contains(err.Error(), "deprovision the host first") ||
		!strings.Contains(err.Error(), "1.82") {
		t.Fatalf("error %v", err)
	}
	if v := f.seenVerbs(); len(v) != 0 {
		t.Errorf("sent %v below 1.87", v)
	}
	if feat := NewCatalog(f.start("1.82")).Features(); feat.Servicing || feat.Components || !feat.BIOSRegistry {
		t.Errorf("features at 1.82: %+v", feat)
	}
	if feat := NewCatalog(f.start("1.87")).Features(); !feat.Servicing || !feat.Components {
		t.Errorf("features at 1.87: %+v", feat)
	}
}

// TestFirmwareStepsReset: a factory reset goes first; on the fake BIOS
// interface the whole list is sent (it replaces what it stores), elsewhere
// only what differs.
func TestFirmwareStepsReset(t *testing.T) {
	f := newFwFakeIronic(t, "manageable")
	p := NewProvisioner(f.start("1.82"), nil)
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
	f := newFwFakeIronic(t, "active")
	inv, err := NewCatalog(f.start("1.86")).Firmware(context.Background(), "fw-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Source != lifecycle.FirmwareSourceIronic || inv.BIOSVersion != "2.1.0" || len(inv.Components) != 3 {
		t.Fatalf("inventory %+v", inv)
	}
	if c := inv.Components[2]; c.ID != "nic:NIC.Integrated.1-1" || c.Version != "22.5" {
		t.Errorf("nic component %+v", c)
	}
	inv, err = NewCatalog(f.start("1.82")).Firmware(context.Background(), "fw-0", nil)
	if err != nil || inv.Source != lifecycle.FirmwareSourceNone || len(inv.Components) != 0 {
		t.Errorf("1.82: %+v %v", inv, err)
	}
}

// TestPrepareRAIDThenBIOS: a manageable node gets target_raid_config, then
// one manual clean with RAID delete and create ahead of the BIOS step (BMO's
// order), only the BIOS settings that differ; software RAID puts
// erase_devices_metadata between the RAID steps.
func TestPrepareRAIDThenBIOS(t *testing.T) {
	f := newFwFakeIronic(t, "manageable")
	f.node["raid_interface"] = "idrac-redfish"
	p := NewProvisioner(f.start("1.82"), nil)
	h := fwHost(map[string]string{"ProcVirtualization": "Enabled", "NumLock": "On"})
	h.Status.State = lifecycle.StatePreparing
	h.Spec.RegisteredElsewhere = false
	h.Spec.RAID = &lifecycle.RAIDConfig{HardwareVolumes: []lifecycle.HardwareRAIDVolume{{Level: "1", SizeGigabytes: 50, Controller: "RAID.1", PhysicalDisks: []string{"a", "b"}}}}
	res, started, err := p.Prepare(context.Background(), h, true, false)
	if err != nil || !started || !res.Dirty {
		t.Fatalf("prepare: %+v %v %v", res, started, err)
	}
	if v := f.seenVerbs(); len(v) != 2 || v[0] != "raid" || v[1] != "clean" {
		t.Fatalf("verbs %v, want raid then clean", v)
	}
	raw, _ := json.Marshal(f.bodies[0])
	if want := `{"logical_disks":[{"controller":"RAID.1","physical_disks":["a","b"],"raid_level":"1","size_gb":50}]}`; string(raw) != want {
		t.Errorf("target_raid_config %s\nwant %s", raw, want)
	}
	raw, _ = json.Marshal(f.bodies[1]["clean_steps"])
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
