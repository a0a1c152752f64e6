package sim

import (
	"strings"
	"testing"
)

// startProfile serves one system "sys-0" of the dialect's profile.
func startProfile(t *testing.T, dialect string) (*Server, *caller) {
	t.Helper()
	p, err := ProfileFor(dialect, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	if err := s.AddSystem(SystemConfig{ID: "sys-0", Username: user, Password: pass, Profile: p}); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, newCaller(t, s.URL())
}

type errorInfo struct {
	Error struct {
		Code    string
		Message string
		Infos   []map[string]any `json:"@Message.ExtendedInfo"`
	}
}

func TestILODialect(t *testing.T) {
	s, c := startProfile(t, DialectILO)

	// Lower-case links with a trailing slash, which lead where they say.
	var sys struct {
		ID   string `json:"@odata.id"`
		Bios struct {
			ID string `json:"@odata.id"`
		}
		Name string
	}
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0", nil, &sys)
	if sys.ID != "/redfish/v1/systems/sys-0/" || sys.Bios.ID != "/redfish/v1/systems/sys-0/bios/" {
		t.Errorf("links = %q, %q", sys.ID, sys.Bios.ID)
	}
	var bios struct {
		AttributeRegistry string
		Attributes        map[string]any
	}
	c.expect(200, "GET", sys.Bios.ID, nil, &bios)

	// A registry larger than the Bios, with its dependencies.
	var file struct {
		Location []struct{ URI string }
	}
	c.expect(200, "GET", "/redfish/v1/registries/"+strings.ToLower(bios.AttributeRegistry)+"/", nil, &file)
	var reg struct {
		RegistryEntries struct {
			Attributes   []struct{ AttributeName string }
			Dependencies []map[string]any
		}
	}
	c.expect(200, "GET", file.Location[0].URI, nil, &reg)
	if n, m := len(reg.RegistryEntries.Attributes), len(bios.Attributes); n <= m || m == 0 {
		t.Errorf("registry has %d attributes, the Bios %d", n, m)
	}
	if len(reg.RegistryEntries.Dependencies) != 2 {
		t.Errorf("dependencies = %v", reg.RegistryEntries.Dependencies)
	}

	// 23 inventory items; the drives relate to the chassis' drives.
	var inv struct {
		Members []struct {
			ID string `json:"@odata.id"`
		}
	}
	c.expect(200, "GET", "/redfish/v1/updateservice/firmwareinventory/", nil, &inv)
	if len(inv.Members) != 23 {
		t.Fatalf("inventory has %d members", len(inv.Members))
	}
	var drive struct {
		Name        string
		RelatedItem []struct {
			ID string `json:"@odata.id"`
		}
	}
	c.expect(200, "GET", inv.Members[20].ID, nil, &drive)
	if drive.Name != "Drive" || len(drive.RelatedItem) != 1 || drive.RelatedItem[0].ID != "/redfish/v1/chassis/sys-0-de00a000/drives/0/" {
		t.Errorf("drive item = %+v", drive)
	}
	c.expect(200, "GET", drive.RelatedItem[0].ID, nil, nil)
	// The drive is in a storage enclosure, as on an iLO: contained by the
	// system's chassis and linked from its Storage, not from the system.
	var enc struct {
		ChassisType string
		Links       struct {
			ContainedBy struct {
				ID string `json:"@odata.id"`
			}
		}
	}
	c.expect(200, "GET", "/redfish/v1/chassis/sys-0-de00a000/", nil, &enc)
	if enc.ChassisType != "StorageEnclosure" || enc.Links.ContainedBy.ID != "/redfish/v1/chassis/sys-0/" {
		t.Errorf("enclosure = %+v", enc)
	}
	var storage struct {
		Links struct {
			Enclosures []struct {
				ID string `json:"@odata.id"`
			}
		}
	}
	c.expect(200, "GET", "/redfish/v1/systems/sys-0/storage/1/", nil, &storage)
	if len(storage.Links.Enclosures) != 1 || storage.Links.Enclosures[0].ID != "/redfish/v1/chassis/sys-0-de00a000/" {
		t.Errorf("storage links = %+v", storage.Links)
	}

	// Errors carry only the MessageId and its arguments; the text is in
	// the iLO registry the BMC serves.
	var e errorInfo
	c.expect(400, "POST", "/redfish/v1/systems/sys-0/actions/computersystem.reset/", map[string]string{"ResetType": "ForceOff"}, &e)
	if len(e.Error.Infos) != 1 || e.Error.Infos[0]["MessageId"] != "iLO.2.14.InvalidOperationForSystemState" ||
		e.Error.Infos[0]["Message"] != nil || e.Error.Message != "See @Message.ExtendedInfo for more information." {
		t.Errorf("error = %+v", e)
	}
	c.expect(200, "GET", "/redfish/v1/registries/ilo.2.14/", nil, &file)
	var msgs struct {
		Messages map[string]struct{ Message string }
	}
	c.expect(200, "GET", file.Location[0].URI, nil, &msgs)
	if !strings.Contains(msgs.Messages["InvalidOperationForSystemState"].Message, "power state") {
		t.Errorf("iLO registry = %+v", msgs)
	}
	reset(c, "sys-0", "On", 204)
	reset(c, "sys-0", "On", 400)

	// A setting the workload profile locks is refused.
	c.expect(400, "PATCH", "/redfish/v1/systems/sys-0/bios/settings/", map[string]any{"Attributes": map[string]any{"PowerRegulator": "OsControl"}}, &e)
	c.expect(400, "PATCH", "/redfish/v1/systems/sys-0/bios/settings/", map[string]any{"Attributes": map[string]any{"ProcSMT": "Disabled"}}, &e)
	c.expect(204, "PATCH", "/redfish/v1/systems/sys-0/bios/settings/", map[string]any{"Attributes": map[string]any{"WorkloadProfile": "Custom"}}, nil)

	// NICs have no name, and an unknown speed is null.
	var nic map[string]any
	c.expect(200, "GET", "/redfish/v1/systems/sys-0/ethernetinterfaces/2/", nil, &nic)
	if nic["Name"] != "" || nic["SpeedMbps"] != nil {
		t.Errorf("nic = %v", nic)
	}
	if st, _ := s.State("sys-0"); st.PowerState != PowerOn {
		t.Errorf("power = %s", st.PowerState)
	}
}

func TestIDRACDialect(t *testing.T) {
	_, c := startProfile(t, DialectIDRAC)
	var e errorInfo
	c.expect(409, "POST", "/redfish/v1/Systems/sys-0/Actions/ComputerSystem.Reset", map[string]string{"ResetType": "ForceOff"}, &e)
	if len(e.Error.Infos) != 1 || e.Error.Infos[0]["MessageId"] != "IDRAC.2.8.PSU501" || e.Error.Infos[0]["Message"] != "Server is already powered OFF." {
		t.Errorf("error = %+v", e)
	}
	reset(c, "sys-0", "On", 204)
	reset(c, "sys-0", "On", 409)
	var nic map[string]any
	c.expect(200, "GET", "/redfish/v1/Systems/sys-0/EthernetInterfaces/NIC.Integrated.1-1-1", nil, &nic)
	if nic["Name"] != "System Ethernet Interface" {
		t.Errorf("nic = %v", nic)
	}
	var fw struct{ ID, Name string }
	c.expect(200, "GET", "/redfish/v1/UpdateService/FirmwareInventory/Previous-159-1.6.5", nil, &fw)
	if fw.ID != "Previous-159-1.6.5" || fw.Name != "BIOS" {
		t.Errorf("previous BIOS = %+v", fw)
	}
}

func TestSupermicroDialect(t *testing.T) {
	s, c := startProfile(t, DialectSupermicro)
	var e errorInfo
	c.expect(400, "PATCH", "/redfish/v1/Systems/sys-0/Bios/Settings", map[string]any{"Attributes": map[string]any{"VMDSupport": "Enable"}}, &e)
	if e.Error.Code != "Base.v1_4_0.GeneralError" || len(e.Error.Infos) != 1 || e.Error.Infos[0]["MessageId"] != "Base.v1_4_0.PropertyUnknown" {
		t.Errorf("error = %+v", e)
	}
	if err := s.SetFaults("sys-0", Faults{RefuseUpdates: true}); err != nil {
		t.Fatal(err)
	}
	c.expect(400, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
		map[string]any{"ImageURI": "http://x/bios.bin", "Targets": []string{"/redfish/v1/UpdateService/FirmwareInventory/BIOS"}}, &e)
	if e.Error.Infos[0]["MessageId"] != "SMC.1.0.OemLicenseNotPassed" {
		t.Errorf("error = %+v", e)
	}
}

// A staged update that powers the system off when applied.
func TestPowerOffAfterUpdate(t *testing.T) {
	s, c := startProfile(t, DialectILO)
	if err := s.SetFaults("sys-0", Faults{UpdateAtBoot: true, PowerOffAfterUpdate: true}); err != nil {
		t.Fatal(err)
	}
	var task struct{ ID string }
	c.expect(202, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
		map[string]any{"ImageURI": "http://x/rom-1.70.bin", "Targets": []string{"/redfish/v1/updateservice/firmwareinventory/2/"}}, &task)
	for range 3 {
		c.expect(200, "GET", "/redfish/v1/TaskService/Tasks/"+task.ID, nil, nil)
	}
	reset(c, "sys-0", "On", 204)
	var done struct{ TaskState string }
	c.expect(200, "GET", "/redfish/v1/TaskService/Tasks/"+task.ID, nil, &done)
	st, _ := s.State("sys-0")
	if done.TaskState != "Completed" || st.PowerState != PowerOff || st.Firmware["2"] != "1.70" || st.Firmware["7"] != "U46 v1.60 (05/21/2022)" {
		t.Errorf("task %s, state %+v", done.TaskState, st)
	}
}
