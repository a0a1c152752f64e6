package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	user = "admin"
	pass = "password"
)

func startServer(t *testing.T, opts Options, n int) *Server {
	t.Helper()
	s, err := Start(opts, n, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call does one request with basic auth (or token, if set) and decodes a
// JSON answer into out when given.
type caller struct {
	t      *testing.T
	base   string
	token  string
	noAuth bool
	client *http.Client
}

func newCaller(t *testing.T, base string) *caller {
	return &caller{t: t, base: base, client: &http.Client{Timeout: 5 * time.Second}}
}

func (c *caller) do(method, path string, body any, out any) *http.Response {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	resp, data := c.send(method, path, rd)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s %s: decode %q: %v", method, path, data, err)
		}
	}
	return resp
}

// raw sends body as it is (a malformed body, a command line) and returns
// the answer's status and body.
func (c *caller) raw(method, path, body string) (int, string) {
	c.t.Helper()
	resp, data := c.send(method, path, strings.NewReader(body)) //nolint:bodyclose // send read and closed it
	return resp.StatusCode, string(data)
}

// send does the request of do and raw: body to path, with the caller's
// authentication; it returns the answer and its body, read to the end.
func (c *caller) send(method, path string, body io.Reader) (*http.Response, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	switch {
	case c.token != "":
		req.Header.Set("X-Auth-Token", c.token)
	case !c.noAuth:
		req.SetBasicAuth(user, pass)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func (c *caller) expect(code int, method, path string, body any, out any) *http.Response {
	c.t.Helper()
	resp := c.do(method, path, body, out)
	if resp.StatusCode != code {
		c.t.Fatalf("%s %s = %d; want %d", method, path, resp.StatusCode, code)
	}
	return resp
}

func (c *caller) power(id string) string {
	c.t.Helper()
	var sys struct{ PowerState string }
	c.expect(200, "GET", "/redfish/v1/Systems/"+id, nil, &sys)
	return sys.PowerState
}

func reset(c *caller, id, kind string, code int) {
	c.t.Helper()
	c.expect(code, "POST", "/redfish/v1/Systems/"+id+"/Actions/ComputerSystem.Reset", map[string]string{"ResetType": kind}, nil)
}

func TestServiceRootAndCollections(t *testing.T) {
	s := startServer(t, Options{}, 3)
	c := newCaller(t, s.URL())
	c.noAuth = true
	var root map[string]any
	resp := c.expect(200, "GET", "/redfish/v1/", nil, &root)
	if resp.Header.Get("ETag") == "" || resp.Header.Get("OData-Version") != "4.0" {
		t.Errorf("headers = %v", resp.Header)
	}
	for _, k := range []string{"Systems", "Managers", "Chassis", "SessionService", "UpdateService", "RedfishVersion", "UUID", "@odata.id", "@odata.type"} {
		if root[k] == nil {
			t.Errorf("root lacks %s", k)
		}
	}
	c.expect(401, "GET", "/redfish/v1/Systems", nil, nil)

	c.noAuth = false
	for _, coll := range []string{"Systems", "Managers", "Chassis"} {
		var col struct {
			Members []map[string]string
			Count   int `json:"Members@odata.count"`
		}
		c.expect(200, "GET", "/redfish/v1/"+coll, nil, &col)
		if col.Count != 3 || col.Members[2]["@odata.id"] != "/redfish/v1/"+coll+"/sys-2" {
			t.Errorf("%s = %+v", coll, col)
		}
	}
	var sys map[string]any
	c.expect(200, "GET", "/redfish/v1/Systems/sys-1", nil, &sys)
	for _, k := range []string{"Boot", "Actions", "ProcessorSummary", "MemorySummary", "Processors", "Memory",
		"EthernetInterfaces", "SimpleStorage", "Storage", "Bios", "Links", "@odata.id", "@odata.type"} {
		if sys[k] == nil {
			t.Errorf("system lacks %s", k)
		}
	}
	c.expect(404, "GET", "/redfish/v1/Systems/sys-9", nil, nil)
}

func TestPowerResets(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	steps := []struct{ reset, want string }{
		{"On", "On"}, {"On", "On"}, {"ForceOff", "Off"}, {"ForceRestart", "On"}, {"GracefulShutdown", "Off"},
		{"PushPowerButton", "On"}, {"PushPowerButton", "Off"}, {"GracefulRestart", "On"}, {"Nmi", "On"},
	}
	for _, st := range steps {
		reset(c, "sys-0", st.reset, 204)
		if got := c.power("sys-0"); got != st.want {
			t.Fatalf("after %s power = %s; want %s", st.reset, got, st.want)
		}
	}
	reset(c, "sys-0", "Explode", 400)
	st, _ := s.State("sys-0")
	if len(st.Resets) != len(steps)+1 || st.Resets[0] != "On" {
		t.Errorf("resets = %v", st.Resets)
	}
}

func TestBootOverride(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	c.expect(204, "PATCH", "/redfish/v1/Systems/sys-0", map[string]any{"Boot": map[string]string{
		"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Once", "BootSourceOverrideMode": "UEFI"}}, nil)
	c.expect(400, "PATCH", "/redfish/v1/Systems/sys-0", map[string]any{"Boot": map[string]string{"BootSourceOverrideTarget": "Tape"}}, nil)
	st, _ := s.State("sys-0")
	if st.Boot != (BootOverride{Target: "Pxe", Enabled: "Once", Mode: "UEFI"}) {
		t.Errorf("boot = %+v", st.Boot)
	}
}

func TestSessions(t *testing.T) {
	s := startServer(t, Options{}, 2)
	c := newCaller(t, s.URL())
	c.noAuth = true
	c.expect(401, "POST", "/redfish/v1/SessionService/Sessions", map[string]string{"UserName": user, "Password": "nope"}, nil)
	resp := c.expect(201, "POST", "/redfish/v1/SessionService/Sessions", map[string]string{"UserName": user, "Password": pass}, nil)
	token, loc := resp.Header.Get("X-Auth-Token"), resp.Header.Get("Location")
	if token == "" || !strings.HasPrefix(loc, "/redfish/v1/SessionService/Sessions/") {
		t.Fatalf("token %q location %q", token, loc)
	}
	c.token = token
	c.expect(200, "GET", "/redfish/v1/Systems/sys-1", nil, nil)
	c.expect(200, "GET", loc, nil, nil)
	if s.ActiveSessions() != 1 {
		t.Errorf("active = %d", s.ActiveSessions())
	}
	c.expect(204, "DELETE", loc, nil, nil)
	c.expect(401, "GET", "/redfish/v1/Systems/sys-1", nil, nil)
	st, _ := s.State("sys-1")
	if st.SessionsCreated != 1 || st.SessionsDeleted != 1 || st.ActiveSessions != 0 || s.ActiveSessions() != 0 {
		t.Errorf("state = %+v", st)
	}
}

func TestPerSystemCredentials(t *testing.T) {
	s := New(Options{})
	for i, pw := range []string{"pw-a", "pw-b"} {
		if err := s.AddSystem(SystemConfig{ID: []string{"a", "b"}[i], Username: "root", Password: pw, Profile: DefaultProfile(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(id, pw string) int {
		req, _ := http.NewRequest("GET", s.URL()+"/redfish/v1/Systems/"+id, nil)
		req.SetBasicAuth("root", pw)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if get("a", "pw-a") != 200 || get("b", "pw-b") != 200 || get("a", "pw-b") != 401 || get("b", "pw-a") != 401 {
		t.Error("credentials are not per system")
	}
}

func TestPerSystemListeners(t *testing.T) {
	s := startServer(t, Options{PerSystemListeners: true}, 2)
	if s.Endpoint("sys-0") == s.URL() || s.Endpoint("sys-0") == s.Endpoint("sys-1") {
		t.Fatalf("endpoints %s %s %s", s.URL(), s.Endpoint("sys-0"), s.Endpoint("sys-1"))
	}
	c := newCaller(t, s.Endpoint("sys-1"))
	var col struct{ Members []map[string]string }
	c.expect(200, "GET", "/redfish/v1/Systems", nil, &col)
	if len(col.Members) != 1 || col.Members[0]["@odata.id"] != "/redfish/v1/Systems/sys-1" {
		t.Errorf("members = %v", col.Members)
	}
	c.expect(404, "GET", "/redfish/v1/Systems/sys-0", nil, nil)
	c.expect(404, "GET", "/sim/systems", nil, nil)
	// Faults of sys-1 apply to all its listener's paths.
	if err := s.SetFaults("sys-1", Faults{ErrorBurst: 1}); err != nil {
		t.Fatal(err)
	}
	c.noAuth = true
	c.expect(500, "GET", "/redfish/v1/", nil, nil)
	c.expect(200, "GET", "/redfish/v1/", nil, nil)
}

func TestFaultsThroughAdminAPI(t *testing.T) {
	s := startServer(t, Options{}, 2)
	admin := newCaller(t, s.URL())
	admin.noAuth = true
	c := newCaller(t, s.URL())

	admin.expect(200, "POST", "/sim/systems/sys-0/faults", map[string]any{"error_burst": 2, "error_status": 503}, nil)
	c.expect(503, "GET", "/redfish/v1/Systems/sys-0", nil, nil)
	c.expect(200, "GET", "/redfish/v1/Systems/sys-1", nil, nil) // other system unaffected
	c.expect(503, "GET", "/redfish/v1/Systems/sys-0/Bios", nil, nil)
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0", nil, nil)

	admin.expect(200, "POST", "/sim/systems/sys-0/faults", map[string]any{"wrong_credentials": true, "delay_ms": 1}, nil)
	var f Faults
	admin.expect(200, "GET", "/sim/systems/sys-0/faults", nil, &f)
	if !f.WrongCredentials || f.Delay != time.Millisecond {
		t.Errorf("faults = %+v", f)
	}
	c.expect(401, "GET", "/redfish/v1/Systems/sys-0", nil, nil)
	admin.expect(204, "DELETE", "/sim/systems/sys-0/faults", nil, nil)
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0", nil, nil)

	admin.expect(204, "POST", "/sim/systems/sys-0/power", map[string]string{"state": "On"}, nil)
	var st SystemState
	admin.expect(200, "GET", "/sim/systems/sys-0", nil, &st)
	if st.PowerState != "On" || st.Requests < 5 || st.VirtualMedia["Cd"].Inserted {
		t.Errorf("state = %+v", st)
	}
	var list []SystemInfo
	admin.expect(200, "GET", "/sim/systems", nil, &list)
	if len(list) != 2 || list[1].SystemURL != s.URL()+"/redfish/v1/Systems/sys-1" {
		t.Errorf("systems = %+v", list)
	}
	admin.expect(404, "GET", "/sim/systems/nope", nil, nil)
}

func TestPowerStuckFault(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	if err := s.SetFaults("sys-0", Faults{PowerStuck: true}); err != nil {
		t.Fatal(err)
	}
	reset(c, "sys-0", "On", 204)
	if got := c.power("sys-0"); got != "Off" {
		t.Errorf("power = %s; want Off (stuck)", got)
	}
	_ = s.ClearFaults("sys-0")
	reset(c, "sys-0", "On", 204)
	if got := c.power("sys-0"); got != "On" {
		t.Errorf("power = %s", got)
	}
}

func TestUnreachableFault(t *testing.T) {
	s := startServer(t, Options{}, 1)
	if err := s.SetFaults("sys-0", Faults{Unreachable: true}); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", s.URL()+"/redfish/v1/Systems/sys-0", nil)
	req.SetBasicAuth(user, pass)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("got %d; want a dropped connection", resp.StatusCode)
	}
	_ = s.ClearFaults("sys-0")
	newCaller(t, s.URL()).expect(200, "GET", "/redfish/v1/Systems/sys-0", nil, nil)
}

func TestSlowFault(t *testing.T) {
	s := startServer(t, Options{}, 1)
	if err := s.SetFaults("sys-0", Faults{Delay: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/redfish/v1/Systems/sys-0", nil)
	req.SetBasicAuth(user, pass)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d within the deadline", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

func TestBiosSettingsApplyOnReset(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	var bios struct {
		Attributes        map[string]any
		AttributeRegistry string
		Settings          struct {
			SettingsObject map[string]string
		} `json:"@Redfish.Settings"`
	}
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/Bios", nil, &bios)
	settings := bios.Settings.SettingsObject["@odata.id"]
	if settings != "/redfish/v1/Systems/sys-0/Bios/Settings" || bios.Attributes["ProcVirtualization"] != "Enabled" {
		t.Fatalf("bios = %+v", bios)
	}
	for _, bad := range []map[string]any{
		{"ProcVirtualization": "Maybe"}, {"PxeRetryCount": 11}, {"PxeRetryCount": "3"}, {"SystemServiceTag": "X"},
		{"NoSuchAttr": 1}, {"SriovGlobalEnable": "yes"}, {"AssetTag": strings.Repeat("x", 33)},
	} {
		c.expect(400, "PATCH", settings, map[string]any{"Attributes": bad}, nil)
	}
	c.expect(204, "PATCH", settings, map[string]any{"Attributes": map[string]any{
		"ProcVirtualization": "Disabled", "PxeRetryCount": 5, "SriovGlobalEnable": true, "AssetTag": "rack-7"}}, nil)

	var pending struct{ Attributes map[string]any }
	c.expect(200, "GET", settings, nil, &pending)
	if pending.Attributes["ProcVirtualization"] != "Disabled" || len(pending.Attributes) != 4 {
		t.Errorf("pending = %v", pending.Attributes)
	}
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/Bios", nil, &bios)
	if bios.Attributes["ProcVirtualization"] != "Enabled" {
		t.Errorf("applied before a reset: %v", bios.Attributes)
	}

	reset(c, "sys-0", "On", 204)
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/Bios", nil, &bios)
	if bios.Attributes["ProcVirtualization"] != "Disabled" || bios.Attributes["PxeRetryCount"] != float64(5) ||
		bios.Attributes["SriovGlobalEnable"] != true || bios.Attributes["AssetTag"] != "rack-7" {
		t.Errorf("after reset = %v", bios.Attributes)
	}
	st, _ := s.State("sys-0")
	if len(st.BiosPending) != 0 {
		t.Errorf("pending after reset = %v", st.BiosPending)
	}

	// ResetBios restores the defaults, again on the next boot.
	c.expect(204, "POST", "/redfish/v1/Systems/sys-0/Bios/Actions/Bios.ResetBios", map[string]any{}, nil)
	reset(c, "sys-0", "ForceRestart", 204)
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/Bios", nil, &bios)
	if bios.Attributes["ProcVirtualization"] != "Enabled" || bios.Attributes["PxeRetryCount"] != float64(3) {
		t.Errorf("after ResetBios = %v", bios.Attributes)
	}
}

func TestAttributeRegistry(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	var col struct{ Members []map[string]string }
	c.expect(200, "GET", "/redfish/v1/Registries", nil, &col)
	var file struct {
		Registry string
		Location []struct{ Uri string }
	}
	c.expect(200, "GET", col.Members[0]["@odata.id"], nil, &file)
	var reg struct {
		ODataType       string `json:"@odata.type"`
		RegistryEntries struct {
			Attributes []struct {
				AttributeName string
				Type          string
				ReadOnly      bool
				Value         []struct{ ValueName string }
				UpperBound    *int
			}
		}
	}
	c.expect(200, "GET", file.Location[0].Uri, nil, &reg)
	if file.Registry != "BiosAttributeRegistry.v1_0_0" || !strings.Contains(reg.ODataType, "AttributeRegistry") ||
		len(reg.RegistryEntries.Attributes) != len(DefaultBIOS()) {
		t.Fatalf("registry = %+v", reg)
	}
	a := reg.RegistryEntries.Attributes[0]
	if a.AttributeName != "BootMode" || a.Type != "Enumeration" || len(a.Value) != 2 {
		t.Errorf("first attribute = %+v", a)
	}
}

func TestFirmwareUpdateTask(t *testing.T) {
	s := startServer(t, Options{TaskPolls: 3}, 2)
	c := newCaller(t, s.URL())
	c.expect(400, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
		map[string]any{"ImageURI": "http://images/bios-2.11.0.bin"}, nil) // no target on a shared listener
	resp := c.expect(202, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", map[string]any{
		"ImageURI": "http://images/bios-2.11.0.bin",
		"Targets":  []string{"/redfish/v1/UpdateService/FirmwareInventory/sys-1-BIOS"},
	}, nil)
	// Location is the task monitor (202 while the task runs); the task
	// itself answers 200 throughout.
	location := resp.Header.Get("Location")
	monitor, ok := strings.CutSuffix(location, "/Monitor")
	if !ok || !strings.HasPrefix(monitor, "/redfish/v1/TaskService/Tasks/") {
		t.Fatalf("location = %q", location)
	}
	if code := c.do("GET", location, nil, nil).StatusCode; code != 202 {
		t.Errorf("GET %s while the task runs = %d, want 202", location, code)
	}
	var states []string
	for range 5 {
		var task struct{ TaskState string }
		c.expect(200, "GET", monitor, nil, &task)
		states = append(states, task.TaskState)
	}
	// Three polls end the task: the monitor's above, then two here.
	if strings.Join(states, ",") != "Running,Completed,Completed,Completed,Completed" {
		t.Errorf("states = %v", states)
	}
	var fw struct{ Version string }
	c.expect(200, "GET", "/redfish/v1/UpdateService/FirmwareInventory/sys-1-BIOS", nil, &fw)
	var sys struct{ BiosVersion string }
	c.expect(200, "GET", "/redfish/v1/Systems/sys-1", nil, &sys)
	if fw.Version != "2.11.0" || sys.BiosVersion != "2.11.0" {
		t.Errorf("version = %s / %s", fw.Version, sys.BiosVersion)
	}
	st, _ := s.State("sys-0")
	if st.Firmware["BIOS"] != DefaultProfile(0).BIOSVersion {
		t.Errorf("other system updated: %v", st.Firmware)
	}

	// The task monitor answers 202 while running.
	resp = c.expect(202, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", map[string]any{
		"ImageURI": "http://images/nic.bin", "Targets": []string{"/redfish/v1/UpdateService/FirmwareInventory/sys-0-NIC.1"},
	}, nil)
	mon := resp.Header.Get("Location")
	c.expect(202, "GET", mon, nil, nil)
	c.expect(202, "GET", mon, nil, nil)
	c.expect(200, "GET", mon, nil, nil)
	st, _ = s.State("sys-0")
	if st.Firmware["NIC.1"] != "21.5.10" {
		t.Errorf("nic firmware = %v", st.Firmware)
	}
}

// Ironic 2025.1 aims SimpleUpdate at the System (redfish_system_id) when
// the service lists several, as sushy-tools expects: that system's BIOS is
// updated, and a System the service does not have is refused.
func TestFirmwareUpdateSystemTarget(t *testing.T) {
	s := startServer(t, Options{}, 2)
	c := newCaller(t, s.URL())
	c.expect(400, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", map[string]any{
		"ImageURI": "http://images/bios-2.12.0.bin", "Targets": []string{"/redfish/v1/Systems/sys-9"},
	}, nil)
	resp := c.expect(202, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", map[string]any{
		"ImageURI": "http://images/bios-2.12.0.bin", "Targets": []string{"/redfish/v1/systems/SYS-1/"}, // as iLO spells it
	}, nil)
	mon := resp.Header.Get("Location")
	for i := 0; c.do("GET", mon, nil, nil).StatusCode != 200; i++ {
		if i == 20 {
			t.Fatalf("task %s still running after 20 polls", mon)
		}
	}
	st, _ := s.State("sys-1")
	if st.Firmware["BIOS"] != "2.12.0" {
		t.Errorf("sys-1 firmware = %v, want BIOS 2.12.0", st.Firmware)
	}
	if st, _ := s.State("sys-0"); st.Firmware["BIOS"] != DefaultProfile(0).BIOSVersion {
		t.Errorf("other system updated: %v", st.Firmware)
	}
}

func TestVirtualMedia(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	var mgr struct{ VirtualMedia map[string]string }
	c.expect(200, "GET", "/redfish/v1/Managers/sys-0", nil, &mgr)
	var col struct{ Members []map[string]string }
	c.expect(200, "GET", mgr.VirtualMedia["@odata.id"], nil, &col)
	if len(col.Members) != 2 {
		t.Fatalf("members = %v", col.Members)
	}
	cd := "/redfish/v1/Managers/sys-0/VirtualMedia/Cd"
	c.expect(204, "POST", cd+"/Actions/VirtualMedia.InsertMedia", map[string]any{"Image": "http://x/boot.iso", "Inserted": true}, nil)
	var vm struct {
		Image    string
		Inserted bool
	}
	c.expect(200, "GET", cd, nil, &vm)
	st, _ := s.State("sys-0")
	if vm.Image != "http://x/boot.iso" || !vm.Inserted || !st.VirtualMedia["Cd"].Inserted {
		t.Errorf("vm = %+v state = %+v", vm, st.VirtualMedia)
	}
	c.expect(204, "POST", cd+"/Actions/VirtualMedia.EjectMedia", map[string]any{}, nil)
	c.expect(200, "GET", cd, nil, &vm)
	if vm.Inserted || vm.Image != "" {
		t.Errorf("after eject = %+v", vm)
	}
}

func TestConcurrentClients(t *testing.T) {
	s := startServer(t, Options{}, 4)
	send := func(method, path, body string) error {
		req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.SetBasicAuth(user, pass)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*10*3)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sys := "/redfish/v1/Systems/" + s.SystemIDs()[i%4]
			for range 10 {
				errs <- send("POST", sys+"/Actions/ComputerSystem.Reset", `{"ResetType":"PushPowerButton"}`)
				errs <- send("PATCH", sys+"/Bios/Settings", `{"Attributes":{"NumLock":"Off"}}`)
				errs <- send("GET", sys, "")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s.Requests() != 8*10*3 {
		t.Errorf("requests = %d", s.Requests())
	}
}

func TestTLSServer(t *testing.T) {
	s := startServer(t, Options{TLS: true}, 1)
	if !strings.HasPrefix(s.URL(), "https://127.0.0.1:") || s.CertPool() == nil {
		t.Fatalf("url %s", s.URL())
	}
	if resp, err := http.Get(s.URL() + "/redfish/v1/"); err == nil {
		resp.Body.Close()
		t.Error("self-signed certificate accepted by a verifying client")
	}
}

func TestNextVersion(t *testing.T) {
	for _, tc := range []struct{ image, current, want string }{
		{"http://x/bios-2.11.0.bin", "2.10.2", "2.11.0"},
		{"http://x/fw.bin", "2.10.2", "2.10.3"},
		{"http://x/fw.bin", "A", "A.1"},
	} {
		if got := nextVersion(tc.image, tc.current); got != tc.want {
			t.Errorf("nextVersion(%q, %q) = %q; want %q", tc.image, tc.current, got, tc.want)
		}
	}
}

func TestDefaultProfilesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := range 300 {
		p := DefaultProfile(i)
		for _, k := range []string{p.SerialNumber, p.UUID, p.NICs[0].MAC, p.NICs[1].MAC, p.Disks[0].Serial} {
			if seen[k] {
				t.Fatalf("duplicate %s at %d", k, i)
			}
			seen[k] = true
		}
	}
}

// TestFirmwareUpdateModes: a system's faults choose a failing update (the
// task ends Exception with the message, the version stays) or a slow one
// (PercentComplete moves over the polls); SimpleUpdate says how long to
// wait between polls.
func TestFirmwareUpdateModes(t *testing.T) {
	s := startServer(t, Options{TaskRetryAfter: 2}, 2)
	c := newCaller(t, s.URL())
	const fail = "Image signature verification failed for BIOS"
	if err := s.SetFaults("sys-0", Faults{UpdateFailure: fail, UpdateTaskPolls: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFaults("sys-1", Faults{UpdateTaskPolls: 4}); err != nil {
		t.Fatal(err)
	}
	type taskBody struct {
		TaskState, TaskStatus string
		PercentComplete       int
		Messages              []struct{ Message string }
	}
	update := func(target string) string {
		resp := c.expect(202, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", map[string]any{
			"ImageURI": "http://images/bios-9.9.9.bin", "Targets": []string{"/redfish/v1/UpdateService/FirmwareInventory/" + target},
		}, nil)
		if ra := resp.Header.Get("Retry-After"); ra != "2" {
			t.Errorf("Retry-After = %q", ra)
		}
		return strings.TrimSuffix(resp.Header.Get("Location"), "/Monitor")
	}
	loc := update("sys-0-BIOS")
	var tb taskBody
	c.expect(200, "GET", loc, nil, &tb)
	if tb.TaskState != "Running" || tb.PercentComplete != 50 {
		t.Errorf("first poll %+v", tb)
	}
	c.expect(200, "GET", loc, nil, &tb)
	if tb.TaskState != "Exception" || tb.TaskStatus != "Critical" || len(tb.Messages) != 1 || tb.Messages[0].Message != fail {
		t.Errorf("failed task %+v", tb)
	}
	if st, _ := s.State("sys-0"); st.Firmware["BIOS"] != DefaultProfile(0).BIOSVersion {
		t.Errorf("failed update changed the version: %v", st.Firmware)
	}

	loc = update("sys-1-BIOS")
	var pcts []int
	for range 4 {
		c.expect(200, "GET", loc, nil, &tb)
		pcts = append(pcts, tb.PercentComplete)
	}
	if !slices.Equal(pcts, []int{25, 50, 75, 100}) || tb.TaskState != "Completed" {
		t.Errorf("slow task percents %v, end %+v", pcts, tb)
	}
	if st, _ := s.State("sys-1"); st.Firmware["BIOS"] != "9.9.9" {
		t.Errorf("slow update: %v", st.Firmware)
	}
}

// A test changes a system's NICs through the admin API (a hardware change):
// Redfish's EthernetInterfaces and the agent's inventory show the new ones.
func TestSetNICsThroughAdminAPI(t *testing.T) {
	s := startServer(t, Options{}, 1)
	admin := newCaller(t, s.URL())
	admin.noAuth = true
	c := newCaller(t, s.URL())
	admin.expect(204, "PUT", "/sim/systems/sys-0/nics", []NIC{
		{Name: "eno1", MAC: "52:54:00:AB:CD:01", SpeedMbps: 25000, LinkUp: true},
		{Name: "ens9", MAC: "52:54:00:ab:cd:09", SpeedMbps: 100000, LinkUp: true},
	}, nil)
	var coll struct {
		Members []struct {
			ID string `json:"@odata.id"`
		}
	}
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/EthernetInterfaces", nil, &coll)
	if len(coll.Members) != 2 {
		t.Fatalf("EthernetInterfaces members %+v", coll.Members)
	}
	var nic struct{ MACAddress string }
	c.expect(200, "GET", coll.Members[1].ID, nil, &nic)
	if nic.MACAddress != "52:54:00:ab:cd:09" {
		t.Errorf("second NIC MAC %q", nic.MACAddress)
	}
	if got := (machine{s: s, id: "sys-0"}).MACs(); len(got) != 2 || got[0] != "52:54:00:ab:cd:01" {
		t.Errorf("agent sees MACs %q", got)
	}
	admin.expect(404, "PUT", "/sim/systems/nope/nics", []NIC{}, nil)
}
