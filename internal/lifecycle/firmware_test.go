package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func i64(v int64) *int64 { return &v }

// testRegistry is the simulator's default BIOS, as Ironic reports it with
// the redfish BIOS interface (booleans stored as "False").
func testRegistry() *BIOS {
	return &BIOS{SchemaSource: SchemaSourceIronic, Driver: "redfish", Settings: map[string]BIOSSetting{
		"BootMode":          {Name: "BootMode", Value: "Uefi", Type: AttrEnumeration, AllowableValues: []string{"Uefi", "Bios"}},
		"NumLock":           {Name: "NumLock", Value: "On", Type: AttrEnumeration, AllowableValues: []string{"On", "Off"}},
		"SriovGlobalEnable": {Name: "SriovGlobalEnable", Value: "False", Type: AttrBoolean},
		"PxeRetryCount":     {Name: "PxeRetryCount", Value: "3", Type: AttrInteger, LowerBound: i64(0), UpperBound: i64(10)},
		"MinOnly":           {Name: "MinOnly", Value: "3", Type: AttrInteger, LowerBound: i64(1)},
		"AssetTag":          {Name: "AssetTag", Value: "", Type: AttrString, MinLength: i64(0), MaxLength: i64(4)},
		"Label":             {Name: "Label", Value: "abc", Type: AttrString, MinLength: i64(2)},
		"ServiceTag":        {Name: "ServiceTag", Value: "TAG", Type: AttrString, ReadOnly: true},
		"Odd":               {Name: "Odd", Value: "x", Type: "Blob"},
		"Untyped":           {Name: "Untyped", Value: "x"},
	}}
}

func TestValidateFirmwareSettings(t *testing.T) {
	cases := []struct {
		name, value string
		want        string // "" means valid
	}{
		{"BootMode", "Bios", ""},
		{"BootMode", "bios", `not one of the allowed values ["Uefi", "Bios"]`},
		{"NoSuch", "1", "no such BIOS setting"},
		{"ServiceTag", "X", "read-only"},
		{"PxeRetryCount", "10", ""},
		{"PxeRetryCount", "0", ""},
		{"PxeRetryCount", "11", "out of bounds: allowed 0 to 10"},
		{"PxeRetryCount", "-1", "out of bounds: allowed 0 to 10"},
		{"PxeRetryCount", "3.5", "not an integer allowed 0 to 10"},
		{"PxeRetryCount", "three", "not an integer"},
		{"MinOnly", "0", "out of bounds: allowed 1 or more"},
		{"MinOnly", "99999", ""},
		{"AssetTag", "abcd", ""},
		{"AssetTag", "abcde", "length 5 is outside the allowed length (0 to 4 characters)"},
		{"Label", "a", "length 1 is outside the allowed length (2 to unbounded characters)"},
		{"SriovGlobalEnable", "true", ""},
		{"SriovGlobalEnable", "False", ""},
		{"SriovGlobalEnable", "yes", "not a boolean"},
		{"SriovGlobalEnable", "1", "not a boolean"},
		{"Odd", "x", `unknown setting type "Blob"`},
		{"Untyped", "anything", ""},
		{"AdminPassword", "secret", `"Password" cannot be set`},
	}
	for _, c := range cases {
		errs := ValidateFirmwareSettings(map[string]string{c.name: c.value}, testRegistry())
		switch {
		case c.want == "" && len(errs) != 0:
			t.Errorf("%s=%q: unexpected %v", c.name, c.value, errs)
		case c.want != "" && len(errs) != 1:
			t.Errorf("%s=%q: want one error with %q, got %v", c.name, c.value, c.want, errs)
		case c.want != "" && (!strings.Contains(errs[0].Error(), c.want) || errs[0].Name != c.name):
			t.Errorf("%s=%q: error %q does not name the setting or say %q", c.name, c.value, errs[0].Error(), c.want)
		}
	}
}

func TestValidateFirmwareSettingsSorted(t *testing.T) {
	errs := ValidateFirmwareSettings(map[string]string{"Zed": "1", "Alpha": "1", "BootMode": "Uefi"}, testRegistry())
	if len(errs) != 2 || errs[0].Name != "Alpha" || errs[1].Name != "Zed" {
		t.Fatalf("errors %v, want Alpha then Zed", errs)
	}
}

// Without a schema (Ironic's fake BIOS interface) values pass through,
// except password settings, which BMO refuses whatever the schema; their
// value is never shown.
func TestValidateFirmwareSettingsNoSchema(t *testing.T) {
	none := &BIOS{SchemaSource: SchemaSourceNone, Settings: map[string]BIOSSetting{}}
	if errs := ValidateFirmwareSettings(map[string]string{"Anything": "goes", "BootMode": "???"}, none); len(errs) != 0 {
		t.Errorf("no schema: %v", errs)
	}
	errs := ValidateFirmwareSettings(map[string]string{"SetupPassword": "hunter2"}, nil)
	if len(errs) != 1 || strings.Contains(errs[0].Error(), "hunter2") {
		t.Errorf("password setting: %v", errs)
	}
}

func TestFirmwareDiff(t *testing.T) {
	b := testRegistry()
	got := FirmwareDiff(map[string]string{
		"BootMode":          "Uefi",  // same
		"NumLock":           "Off",   // differs
		"SriovGlobalEnable": "false", // Ironic's "False": same
		"PxeRetryCount":     "03",    // same integer
		"AssetTag":          "x",     // differs
		"New":               "1",     // not reported: sent
	}, b)
	want := map[string]string{"NumLock": "Off", "AssetTag": "x", "New": "1"}
	if len(got) != len(want) {
		t.Fatalf("diff %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("diff %v, want %v", got, want)
		}
	}
	if all := FirmwareDiff(map[string]string{"A": "1"}, nil); all["A"] != "1" {
		t.Errorf("nil BIOS: %v", all)
	}
	if d := FirmwareDiff(map[string]string{"BootMode": "Uefi"}, b); len(d) != 0 {
		t.Errorf("nothing differs: %v", d)
	}
}

func TestMergeFirmwareSettings(t *testing.T) {
	on, off := true, false
	cfg := &FirmwareConfig{VirtualizationEnabled: &on, SimultaneousMultithreadingEnabled: &off, SriovEnabled: &on}
	cases := []struct {
		driver string
		want   map[string]string
	}{
		{"idrac", map[string]string{"ProcVirtualization": "Enabled", "LogicalProc": "Disabled", "SriovGlobalEnable": "Enabled", "NumLock": "On"}},
		{"ilo", map[string]string{"ProcVirtualization": "Enabled", "ProcHyperthreading": "Disabled", "Sriov": "Enabled", "NumLock": "On"}},
		{"ilo5", map[string]string{"ProcVirtualization": "Enabled", "ProcHyperthreading": "Disabled", "Sriov": "Enabled", "NumLock": "On"}},
		{"irmc", map[string]string{"cpu_vt_enabled": "True", "hyper_threading_enabled": "False", "single_root_io_virtualization_support_enabled": "True", "NumLock": "On"}},
	}
	for _, c := range cases {
		got, err := MergeFirmwareSettings(c.driver, cfg, map[string]string{"NumLock": "On"})
		if err != nil {
			t.Errorf("%s: %v", c.driver, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.driver, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", c.driver, k, got[k], v)
			}
		}
	}
	// Only the switches that are set.
	got, err := MergeFirmwareSettings("idrac", &FirmwareConfig{SriovEnabled: &off}, nil)
	if err != nil || len(got) != 1 || got["SriovGlobalEnable"] != "Disabled" {
		t.Errorf("one switch: %v %v", got, err)
	}
	// Generic Redfish, IPMI and fake refuse the switches, as BMO does...
	for _, d := range []string{"redfish", "ipmi", "fake-hardware"} {
		if _, err := MergeFirmwareSettings(d, cfg, nil); err == nil || !strings.Contains(err.Error(), d) {
			t.Errorf("%s: want an error naming the driver, got %v", d, err)
		}
	}
	// ... but not when none is set.
	if got, err := MergeFirmwareSettings("redfish", &FirmwareConfig{}, map[string]string{"A": "1"}); err != nil || got["A"] != "1" {
		t.Errorf("empty config on redfish: %v %v", got, err)
	}
	// A switch and a setting that disagree: an error naming both.
	_, err = MergeFirmwareSettings("idrac", cfg, map[string]string{"LogicalProc": "Enabled"})
	if err == nil || !strings.Contains(err.Error(), "simultaneous_multithreading_enabled") || !strings.Contains(err.Error(), "LogicalProc") {
		t.Errorf("conflict: %v", err)
	}
	// Agreeing is fine.
	if _, err := MergeFirmwareSettings("idrac", cfg, map[string]string{"LogicalProc": "Disabled"}); err != nil {
		t.Errorf("agreeing setting: %v", err)
	}
}

// An available host registered elsewhere (the firmware settings resource)
// goes through preparing for its firmware settings, and back to available.
func TestFirmwareSettingsPrepareAvailableHost(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.RegisteredElsewhere = true
	h.Spec.FirmwareSettings = map[string]string{"NumLock": "Off"}
	e.prov.on("Prepare", provReply{res: Result{Dirty: true}, started: true})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 1}); err != nil {
		t.Fatal(err)
	}
	if got := e.prov.methods(); !strings.HasPrefix(got, "Prepare,Prepare,Provide") {
		t.Errorf("calls %q, want Prepare until done, then Provide", got)
	}
	if h.Status.State != StateAvailable || h.Status.AppliedFirmware["NumLock"] != "Off" {
		t.Errorf("state %q applied %v", h.Status.State, h.Status.AppliedFirmware)
	}
	// Started as unprepared; once started, the next pass only waits.
	if c := e.prov.callsTo("Prepare"); !c[0].Unprepared || c[1].Unprepared {
		t.Errorf("prepare calls %+v", c)
	}
	// A host registered elsewhere without firmware settings never prepares.
	e2 := newEnv()
	h2 := newHost(StateAvailable)
	h2.Spec.RegisteredElsewhere = true
	h2.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sda"}
	if err := e2.m.Converge(context.Background(), h2, ConvergeOptions{Retries: 1}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e2.prov.methods(), "Prepare") {
		t.Errorf("calls %q: prepared without firmware settings", e2.prov.methods())
	}
}

// A factory reset is asked once: recorded when started.
func TestFirmwareResetOnce(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.RegisteredElsewhere = true
	h.Spec.FirmwareReset = true
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 1}); err != nil {
		t.Fatal(err)
	}
	if !h.Status.FirmwareResetDone || len(e.prov.callsTo("Prepare")) != 1 {
		t.Errorf("reset done %v, prepare calls %d", h.Status.FirmwareResetDone, len(e.prov.callsTo("Prepare")))
	}
}

// fakeServicer adds Service to the fake provisioner.
type fakeServicer struct {
	*fakeProv
}

func (f fakeServicer) Service(_ context.Context, h *Host, restart bool) (Result, bool, error) {
	r := f.next(provCall{Method: "Service", Host: h.Spec.Name, Restart: restart})
	return r.res, r.started, r.err
}

// servicedHost is a provisioned host registered elsewhere whose firmware
// settings (NumLock Off) the env's provisioner applies by servicing.
func servicedHost() (*testEnv, *Host) {
	e := newEnv()
	e.m.Prov = fakeServicer{e.prov}
	h := provisionedHost("http://img/a")
	h.Spec.RegisteredElsewhere = true
	h.Spec.FirmwareSettings = map[string]string{"NumLock": "Off"}
	return e, h
}

func TestServiceFirmware(t *testing.T) {
	e, h := servicedHost()
	e.prov.on("Service",
		provReply{res: Result{Dirty: true, Verb: "service", ProvisionState: "active"}, started: true},
		provReply{res: Result{Dirty: true, Verb: "service", ProvisionState: "service wait"}},
	)
	if err := e.m.ServiceFirmware(context.Background(), h, 1); err != nil {
		t.Fatal(err)
	}
	if got := e.prov.methods(); got != "Service,Service,Service" {
		t.Errorf("calls %q", got)
	}
	if h.Status.State != StateProvisioned || h.Status.AppliedFirmware["NumLock"] != "Off" || h.Status.OperationalStatus != OperationalOK {
		t.Errorf("status %+v", h.Status)
	}
}

// A failed servicing is retried with restartOnFailure, then reported as a
// servicing error with Ironic's last_error.
func TestServiceFirmwareFailure(t *testing.T) {
	e, h := servicedHost()
	e.prov.always("Service", provReply{res: Result{ErrorMessage: "BIOS said no", Verb: "service", ProvisionState: "service failed"}})
	err := e.m.ServiceFirmware(context.Background(), h, 1)
	var he *HostError
	if !errors.As(err, &he) || he.ErrorType != ServicingError || !strings.Contains(err.Error(), "BIOS said no") ||
		!strings.Contains(err.Error(), `"service"`) || !strings.Contains(err.Error(), "host-0") {
		t.Fatalf("error %v", err)
	}
	calls := e.prov.callsTo("Service")
	if len(calls) != 2 || calls[0].Restart || !calls[1].Restart {
		t.Errorf("calls %+v: want a first try, then one retry with restartOnFailure", calls)
	}
}

// A provisioner without servicing, or an Ironic below 1.87, gives
// ErrServicingUnsupported.
func TestServiceFirmwareUnsupported(t *testing.T) {
	e := newEnv()
	h := provisionedHost("http://img/a")
	if err := e.m.ServiceFirmware(context.Background(), h, 1); !errors.Is(err, ErrServicingUnsupported) {
		t.Errorf("no Servicer: %v", err)
	}
	e.m.Prov = fakeServicer{e.prov}
	e.prov.on("Service", provReply{err: ErrServicingUnsupported})
	err := e.m.ServiceFirmware(context.Background(), h, 1)
	if !errors.Is(err, ErrServicingUnsupported) || !strings.Contains(err.Error(), "1.87") {
		t.Errorf("old Ironic: %v", err)
	}
}

// The registry's dependencies lock a setting with the values the BIOS
// will have: the current ones with the wanted ones applied.
func TestValidateFirmwareSettingsDependencies(t *testing.T) {
	b := &BIOS{SchemaSource: SchemaSourceRedfish, Settings: map[string]BIOSSetting{
		"WorkloadProfile": {Name: "WorkloadProfile", Value: "GeneralPowerEfficientCompute", Type: AttrEnumeration,
			AllowableValues: []string{"GeneralPowerEfficientCompute", "Custom"}},
		"PowerRegulator": {Name: "PowerRegulator", Value: "DynamicPowerSavings", Type: AttrEnumeration,
			AllowableValues: []string{"DynamicPowerSavings", "OsControl"},
			Locks:           []BIOSLock{{Property: "ReadOnly", When: []BIOSCondition{{Attribute: "WorkloadProfile", Condition: "NEQ", Value: "Custom"}}}}},
		"ProcVirtualization": {Name: "ProcVirtualization", Value: "Disabled", Type: AttrEnumeration, AllowableValues: []string{"Enabled", "Disabled"}},
		"Cores":              {Name: "Cores", Value: "8", Type: AttrInteger},
		"NicDma": {Name: "NicDma", Value: "Enabled", Type: AttrEnumeration, AllowableValues: []string{"Enabled", "Disabled"},
			Locks: []BIOSLock{{Property: "Hidden", When: []BIOSCondition{
				{Attribute: "ProcVirtualization", Condition: "EQU", Value: "Disabled"},
				{Attribute: "Cores", Condition: "LSS", Value: "4", Or: true},
			}}}},
	}}
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"PowerRegulator": "OsControl"}, `BIOS setting "PowerRegulator" = "OsControl": the setting is read-only while ` +
			`WorkloadProfile = "GeneralPowerEfficientCompute" (the BIOS registry makes it read-only when WorkloadProfile is not ` +
			`"Custom"): change WorkloadProfile in these settings, or first`},
		{map[string]string{"PowerRegulator": "OsControl", "WorkloadProfile": "Custom"}, ""},
		{map[string]string{"NicDma": "Disabled"}, `the setting is hidden while ProcVirtualization = "Disabled", Cores = "8"`},
		{map[string]string{"NicDma": "Disabled", "ProcVirtualization": "Enabled"}, ""},
		{map[string]string{"NicDma": "Disabled", "ProcVirtualization": "Enabled", "Cores": "2"}, "hidden"},
	} {
		errs := ValidateFirmwareSettings(c.settings, b)
		switch {
		case c.want == "" && len(errs) != 0:
			t.Errorf("%v: %v", c.settings, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%v: %v\nwant %s", c.settings, errs, c.want)
		}
	}
}
