package bmc

import (
	"context"
	"errors"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

const (
	testUser     = "admin"
	testPassword = "s3cret-Passw0rd"
)

func startSim(t *testing.T, opts sim.Options) *sim.Server {
	t.Helper()
	srv, err := sim.Start(opts, 2, testUser, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func testConfig(srv *sim.Server, id string) RedfishConfig {
	return RedfishConfig{
		Endpoint: srv.Endpoint(id), Username: testUser, Password: testPassword,
		Timeout: 5 * time.Second, RetryWaitMax: 20 * time.Millisecond,
	}
}

// connect is a Redfish client of system sys-0 of srv, closed when the
// test ends.
func connect(t *testing.T, srv *sim.Server) *RedfishClient {
	t.Helper()
	c, err := ConnectRedfish(testContext(t), testConfig(srv, "sys-0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestReadInventoryFromProfile(t *testing.T) {
	srv := startSim(t, sim.Options{})
	want := sim.DefaultProfile(1)
	inv, err := ReadInventory(testContext(t), testConfig(srv, "sys-1"), "sys-1")
	if err != nil {
		t.Fatal(err)
	}

	f := inv.System
	if f.ID != "sys-1" || f.Manufacturer != want.Manufacturer || f.Model != want.Model ||
		f.SerialNumber != want.SerialNumber || f.UUID != want.UUID || f.HostName != want.HostName ||
		f.BIOSVersion != want.BIOSVersion || f.PowerState != "Off" {
		t.Errorf("facts = %+v", f)
	}

	c := inv.CPU
	if c.Count != 2 || c.Model != want.CPU.Model || c.Arch != "x86_64" || c.SpeedMHz != 2100 || c.Cores != 40 || c.Threads != 80 {
		t.Errorf("cpu = %+v", c)
	}
	if inv.MemoryMiB != 128*1024 {
		t.Errorf("memory = %d MiB", inv.MemoryMiB)
	}

	if len(inv.NICs) != len(want.NICs) {
		t.Fatalf("nics = %+v", inv.NICs)
	}
	for i, n := range inv.NICs {
		w := want.NICs[i]
		if n.ID != w.Name || n.MAC != w.MAC || n.SpeedMbps != w.SpeedMbps || n.LinkUp != w.LinkUp {
			t.Errorf("nic %d = %+v, want %+v", i, n, w)
		}
	}

	if len(inv.Drives) != len(want.Disks) {
		t.Fatalf("drives = %+v", inv.Drives)
	}
	wantTypes := []string{DriveSSD, DriveNVMe, DriveHDD}
	for i, d := range inv.Drives {
		w := want.Disks[i]
		if d.Name != w.Name || d.SizeBytes != w.SizeBytes || d.Model != w.Model || d.Vendor != w.Vendor ||
			d.Serial != w.Serial || d.Rotational != w.Rotational || d.Type != wantTypes[i] {
			t.Errorf("drive %d = %+v, want %+v", i, d, w)
		}
	}

	if inv.BIOS.Registry != want.BIOSRegistry || len(inv.BIOS.Attributes) != len(want.BIOS) {
		t.Fatalf("bios = %+v", inv.BIOS)
	}
	attrs := map[string]BIOSAttribute{}
	for _, a := range inv.BIOS.Attributes {
		attrs[a.Name] = a
	}
	if a := attrs["ProcVirtualization"]; a.Type != "Enumeration" || !slices.Equal(a.AllowedValues, []string{"Enabled", "Disabled"}) ||
		a.CurrentValue != "Enabled" || a.ReadOnly || !a.ResetRequired {
		t.Errorf("ProcVirtualization = %+v", a)
	}
	if a := attrs["PxeRetryCount"]; a.Type != "Integer" || a.LowerBound == nil || *a.LowerBound != 0 ||
		a.UpperBound == nil || *a.UpperBound != 10 || a.CurrentValue != float64(3) {
		t.Errorf("PxeRetryCount = %+v", a)
	}
	if a := attrs["AssetTag"]; a.Type != "String" || a.MaxLength == nil || *a.MaxLength != 32 {
		t.Errorf("AssetTag = %+v", a)
	}
	if a := attrs["SriovGlobalEnable"]; a.Type != "Boolean" || a.CurrentValue != false {
		t.Errorf("SriovGlobalEnable = %+v", a)
	}
	if a := attrs["SystemServiceTag"]; !a.ReadOnly {
		t.Errorf("SystemServiceTag = %+v", a)
	}

	// Only sys-1's components, though the simulator serves two systems.
	const fwItem = "/redfish/v1/UpdateService/FirmwareInventory/"
	wantFW := []FirmwareComponent{
		{ID: "sys-1-BIOS", Name: "System BIOS", Version: want.BIOSVersion, Updateable: true, URI: fwItem + "sys-1-BIOS",
			RelatedTo: []string{"/redfish/v1/Systems/sys-1"}, State: "Enabled"},
		{ID: "sys-1-BMC", Name: "BMC Firmware", Version: want.BMCVersion, Updateable: true, URI: fwItem + "sys-1-BMC",
			RelatedTo: []string{"/redfish/v1/Managers/sys-1"}, State: "Enabled"},
		{ID: "sys-1-NIC.1", Name: "Simulated 25GbE NIC", Version: "21.5.9", Updateable: true, URI: fwItem + "sys-1-NIC.1",
			RelatedTo: []string{"/redfish/v1/Systems/sys-1"}, State: "Enabled"},
	}
	if !reflect.DeepEqual(inv.Firmware, wantFW) {
		t.Errorf("firmware = %+v\nwant %+v", inv.Firmware, wantFW)
	}
}

func TestSessionIsLoggedOut(t *testing.T) {
	srv := startSim(t, sim.Options{})
	cfg := testConfig(srv, "sys-0")
	cfg.UseSession = true
	if _, err := ReadInventory(testContext(t), cfg, "sys-0"); err != nil {
		t.Fatal(err)
	}
	if err := CheckCredentials(testContext(t), cfg, "sys-0"); err != nil {
		t.Fatal(err)
	}
	st, err := srv.State("sys-0")
	if err != nil {
		t.Fatal(err)
	}
	if st.SessionsCreated != 2 || st.SessionsDeleted != 2 || srv.ActiveSessions() != 0 {
		t.Errorf("sessions created %d deleted %d active %d; want 2, 2, 0",
			st.SessionsCreated, st.SessionsDeleted, srv.ActiveSessions())
	}
}

func TestBasicAuthOpensNoSession(t *testing.T) {
	srv := startSim(t, sim.Options{})
	if err := CheckCredentials(testContext(t), testConfig(srv, "sys-0"), "sys-0"); err != nil {
		t.Fatal(err)
	}
	st, _ := srv.State("sys-0")
	if st.SessionsCreated != 0 || st.Requests == 0 {
		t.Errorf("state = %+v; want requests and no session", st)
	}
}

func TestWrongCredentialsAreNamedWithoutPassword(t *testing.T) {
	srv := startSim(t, sim.Options{})
	for _, useSession := range []bool{false, true} {
		cfg := testConfig(srv, "sys-0")
		cfg.UseSession = useSession
		cfg.Password = "wrong-Passw0rd-xyz"
		err := CheckCredentials(testContext(t), cfg, "sys-0")
		if !errors.Is(err, ErrCredentialsRejected) {
			t.Fatalf("session=%v: err = %v; want credentials rejected", useSession, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, srv.Endpoint("sys-0")) || !strings.Contains(msg, "credentials rejected") ||
			!strings.Contains(msg, "401") {
			t.Errorf("session=%v: unclear error %q", useSession, msg)
		}
		if strings.Contains(msg, cfg.Password) || strings.Contains(msg, testPassword) {
			t.Errorf("session=%v: error leaks the password: %q", useSession, msg)
		}
	}

	// The right password, but the BMC rejects it (fault).
	if err := srv.SetFaults("sys-0", sim.Faults{WrongCredentials: true}); err != nil {
		t.Fatal(err)
	}
	err := CheckCredentials(testContext(t), testConfig(srv, "sys-0"), "sys-0")
	if !errors.Is(err, ErrCredentialsRejected) || strings.Contains(err.Error(), testPassword) {
		t.Errorf("err = %v", err)
	}
}

func TestTLSVerification(t *testing.T) {
	srv := startSim(t, sim.Options{TLS: true})
	cfg := testConfig(srv, "sys-0")
	if !strings.HasPrefix(cfg.Endpoint, "https://") {
		t.Fatalf("endpoint %s is not https", cfg.Endpoint)
	}

	err := CheckCredentials(testContext(t), cfg, "sys-0")
	if !errors.Is(err, ErrTLS) {
		t.Fatalf("verification on, self-signed: err = %v; want TLS error", err)
	}
	if !strings.Contains(err.Error(), cfg.Endpoint) {
		t.Errorf("error does not name the BMC: %v", err)
	}

	insecure := cfg
	insecure.Insecure = true
	if err := CheckCredentials(testContext(t), insecure, "sys-0"); err != nil {
		t.Errorf("insecure: %v", err)
	}

	trusted := cfg
	trusted.RootCAs = srv.CertPool()
	if err := CheckCredentials(testContext(t), trusted, "sys-0"); err != nil {
		t.Errorf("trusted CA: %v", err)
	}

	// The insecure client must not have left verification off for others.
	if err := CheckCredentials(testContext(t), cfg, "sys-0"); !errors.Is(err, ErrTLS) {
		t.Errorf("verification on again: err = %v; want TLS error", err)
	}
}

func TestErrorBurstIsRetried(t *testing.T) {
	srv := startSim(t, sim.Options{})
	if err := srv.SetFaults("sys-0", sim.Faults{ErrorBurst: 2, ErrorStatus: 503}); err != nil {
		t.Fatal(err)
	}
	if err := CheckCredentials(testContext(t), testConfig(srv, "sys-0"), "sys-0"); err != nil {
		t.Fatalf("burst of 2 not survived: %v", err)
	}

	// Without retries the burst is an error naming the status.
	if err := srv.SetFaults("sys-0", sim.Faults{ErrorBurst: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(srv, "sys-0")
	cfg.MaxRetries = -1
	err := CheckCredentials(testContext(t), cfg, "sys-0")
	var re *RedfishError
	if !errors.As(err, &re) || re.Status != 500 || !errors.Is(err, ErrBMC) {
		t.Errorf("err = %v; want HTTP 500 failure", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cfg := RedfishConfig{Endpoint: "http://" + addr, Username: testUser, Password: testPassword,
		Timeout: time.Second, MaxRetries: 1, RetryWaitMax: 10 * time.Millisecond}
	err = CheckCredentials(testContext(t), cfg, "sys-0")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "connection refused") ||
		!strings.Contains(err.Error(), addr) {
		t.Errorf("err = %v; want unreachable, connection refused", err)
	}

	// A BMC that drops connections.
	srv := startSim(t, sim.Options{PerSystemListeners: true})
	if err := srv.SetFaults("sys-0", sim.Faults{Unreachable: true}); err != nil {
		t.Fatal(err)
	}
	cfg = testConfig(srv, "sys-0")
	cfg.MaxRetries = 1
	if err := CheckCredentials(testContext(t), cfg, "sys-0"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("dropped connections: err = %v; want unreachable", err)
	}
}

func TestSlowBMCTimesOut(t *testing.T) {
	srv := startSim(t, sim.Options{PerSystemListeners: true})
	if err := srv.SetFaults("sys-0", sim.Faults{Delay: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(srv, "sys-0")
	cfg.Timeout = 100 * time.Millisecond
	cfg.MaxRetries = -1
	start := time.Now()
	err := CheckCredentials(testContext(t), cfg, "sys-0")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v; want timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s; the timeout did not bound it", d)
	}
}

func TestContextDeadlineBoundsRetries(t *testing.T) {
	srv := startSim(t, sim.Options{})
	if err := srv.SetFaults("sys-0", sim.Faults{ErrorBurst: 1000}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(srv, "sys-0")
	cfg.MaxRetries = 1000
	cfg.RetryWaitMax = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := CheckCredentials(ctx, cfg, "sys-0"); err == nil {
		t.Fatal("want an error")
	}
	if ctx.Err() == nil {
		t.Error("gave up before the deadline with 1000 retries allowed")
	}
}

// TestBIOSSettingsThroughGofish writes settings the way gofish does (PATCH
// to the @Redfish.Settings object) and sees them applied only after a reset.
func TestBIOSSettingsThroughGofish(t *testing.T) {
	srv := startSim(t, sim.Options{})
	cfg := testConfig(srv, "sys-0")
	cfg.UseSession = true
	c, err := ConnectRedfish(testContext(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sys, err := schemas.GetComputerSystem(c.api, "/redfish/v1/Systems/sys-0")
	if err != nil {
		t.Fatal(err)
	}
	bios, err := sys.Bios()
	if err != nil {
		t.Fatal(err)
	}
	if err := bios.UpdateBiosAttributes(schemas.SettingsAttributes{"ProcVirtualization": "Disabled", "PxeRetryCount": 7}); err != nil {
		t.Fatal(err)
	}
	current := func() map[string]any {
		info, err := c.BIOS("sys-0")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for _, a := range info.Attributes {
			m[a.Name] = a.CurrentValue
		}
		return m
	}
	if got := current()["ProcVirtualization"]; got != "Enabled" {
		t.Errorf("before reset ProcVirtualization = %v; want Enabled (pending)", got)
	}
	if _, err := sys.Reset(schemas.OnResetType); err != nil {
		t.Fatal(err)
	}
	got := current()
	if got["ProcVirtualization"] != "Disabled" || got["PxeRetryCount"] != float64(7) {
		t.Errorf("after reset = %v", got)
	}
	facts, err := c.SystemFacts("sys-0")
	if err != nil || facts.PowerState != "On" {
		t.Errorf("facts = %+v, %v", facts, err)
	}
}

func TestSystemIDOptionalWithOneSystem(t *testing.T) {
	srv := startSim(t, sim.Options{PerSystemListeners: true})
	inv, err := ReadInventory(testContext(t), testConfig(srv, "sys-1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if inv.System.ID != "sys-1" {
		t.Errorf("system = %s", inv.System.ID)
	}
	// The shared listener serves two systems: the caller must choose.
	cfg := testConfig(srv, "sys-1")
	cfg.Endpoint = srv.URL()
	if err := CheckCredentials(testContext(t), cfg, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v; want not found (ambiguous)", err)
	}
	if err := CheckCredentials(testContext(t), cfg, "sys-9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v; want not found", err)
	}
}

func TestBadEndpoint(t *testing.T) {
	err := CheckCredentials(context.Background(), RedfishConfig{Endpoint: "ftp://user:pw@host"}, "")
	if err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("err = %v", err)
	}
}
