package bmc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// These tests serve payloads shaped like captured BMC answers (only the
// links that decide ownership) from an httptest server.

// bmcPayloads is a Redfish service made of resources by path; paths are
// compared with case (as Dell's are) but without a trailing slash.
type bmcPayloads map[string]map[string]any

func links(uris ...string) []map[string]string {
	out := []map[string]string{}
	for _, u := range uris {
		out = append(out, map[string]string{"@odata.id": u})
	}
	return out
}

// add puts a resource at uri.
func (p bmcPayloads) add(uri string, body map[string]any) {
	body["@odata.id"] = uri
	body["Id"] = uri[strings.LastIndex(uri, "/")+1:]
	p[trimLink(uri)] = body
}

func (p bmcPayloads) collection(uri string, members ...string) {
	p.add(uri, map[string]any{"Members": links(members...), "Members@odata.count": len(members)})
}

// firmware adds the UpdateService with one inventory item per id, each
// relating to related[id] ("" for no RelatedItem).
func (p bmcPayloads) firmware(related map[string]string) {
	p.add("/redfish/v1/UpdateService", map[string]any{"FirmwareInventory": map[string]string{"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory"}})
	var members []string
	for id, rel := range related {
		uri := "/redfish/v1/UpdateService/FirmwareInventory/" + id
		members = append(members, uri)
		item := map[string]any{"Name": id, "Version": "1.0", "Updateable": true}
		if rel != "" {
			item["RelatedItem"] = links(rel)
		}
		p.add(uri, item)
	}
	slices.Sort(members)
	p.collection("/redfish/v1/UpdateService/FirmwareInventory", members...)
}

func (p bmcPayloads) start(t *testing.T) *RedfishClient {
	t.Helper()
	p.add("/redfish/v1", map[string]any{
		"Systems": map[string]string{"@odata.id": "/redfish/v1/Systems"}, "Chassis": map[string]string{"@odata.id": "/redfish/v1/Chassis"},
		"UpdateService": map[string]string{"@odata.id": "/redfish/v1/UpdateService"},
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := p[trimLink(r.URL.Path)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	c, err := ConnectRedfish(testContext(t), RedfishConfig{Endpoint: srv.URL, Username: testUser, Password: testPassword, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// system adds a system with its chassis, its manager and a Storage whose
// Drives and Links.Enclosures are storage (a nil storage: none).
func (p bmcPayloads) system(id, chassis string, storage map[string]any) {
	sys := "/redfish/v1/Systems/" + id
	body := map[string]any{"Links": map[string]any{
		"Chassis": links("/redfish/v1/Chassis/" + chassis), "ManagedBy": links("/redfish/v1/Managers/" + id),
	}}
	if storage != nil {
		body["Storage"] = map[string]string{"@odata.id": sys + "/Storage"}
		p.collection(sys+"/Storage", sys+"/Storage/"+chassis)
		p.add(sys+"/Storage/"+chassis, storage)
	}
	p.add(sys, body)
	p.add("/redfish/v1/Chassis/"+chassis, map[string]any{"ChassisType": "RackMount", "Links": map[string]any{"ComputerSystems": links(sys)}})
	p.add("/redfish/v1/Managers/"+id, map[string]any{"Links": map[string]any{"ManagerForServers": links(sys)}})
}

// enclosure adds a chassis of type StorageEnclosure contained by another.
func (p bmcPayloads) enclosure(uri, containedBy string) {
	body := map[string]any{"ChassisType": "StorageEnclosure", "Drives": map[string]string{"@odata.id": uri + "/Drives"}}
	if containedBy != "" {
		body["Links"] = map[string]any{"ContainedBy": map[string]string{"@odata.id": containedBy}}
	}
	p.add(uri, body)
}

func firmwareIDs(t *testing.T, c *RedfishClient, systemID string) []string {
	t.Helper()
	items, err := c.Firmware(systemID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// An HPE ProLiant Gen10 Plus iLO: the SSDs' firmware relates to drives of
// the storage enclosure Chassis/DE00A000, which is not among the system's
// Links.Chassis but is linked from its Storage/DE00A000 (Drives,
// Links.Enclosures) and contained by Chassis/1. Either link makes the
// drives system 1's; a second system on the same BMC shows that they are
// held to be system 1's, not merely kept for want of ties: system 2 leaves
// them out when the containment says whose they are.
func TestFirmwareOwnershipHPEStorageEnclosure(t *testing.T) {
	const enc = "/redfish/v1/Chassis/DE00A000"
	for _, tc := range []struct {
		name               string
		storage            bool
		containedBy        string
		wantSys1, wantSys2 []string
	}{
		{"storage and containment", true, "/redfish/v1/Chassis/1", []string{"1", "2", "21", "22"}, []string{"2", "3"}},
		// Nothing ties the enclosure to system 2's side either: it stays there.
		{"storage only", true, "", []string{"1", "2", "21", "22"}, []string{"2", "21", "22", "3"}},
		{"containment only", false, "/redfish/v1/Chassis/1", []string{"1", "2", "21", "22"}, []string{"2", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := bmcPayloads{}
			var storage map[string]any
			if tc.storage {
				storage = map[string]any{
					"Drives": links(enc+"/Drives/2556", enc+"/Drives/2557"),
					"Links":  map[string]any{"Enclosures": links(enc)},
				}
			}
			p.system("1", "1", storage)
			p.system("2", "2", nil)
			p.collection("/redfish/v1/Systems", "/redfish/v1/Systems/1", "/redfish/v1/Systems/2")
			p.enclosure(enc, tc.containedBy)
			p.firmware(map[string]string{
				"1": "/redfish/v1/Managers/1", "2": "", "3": "/redfish/v1/Systems/2",
				"21": enc + "/Drives/2556", "22": enc + "/Drives/2557/",
			})
			c := p.start(t)
			if got := firmwareIDs(t, c, "1"); !slices.Equal(got, tc.wantSys1) {
				t.Errorf("system 1's firmware = %v, want %v", got, tc.wantSys1)
			}
			if got := firmwareIDs(t, c, "2"); !slices.Equal(got, tc.wantSys2) {
				t.Errorf("system 2's firmware = %v, want %v", got, tc.wantSys2)
			}
		})
	}
}

// A Dell iDRAC: the backplane Chassis/Enclosure.Internal.0-1 is contained
// by the system's chassis System.Embedded.1 and reached from nothing else.
func TestFirmwareOwnershipDellEnclosureContainedBy(t *testing.T) {
	const enc = "/redfish/v1/Chassis/Enclosure.Internal.0-1"
	p := bmcPayloads{}
	p.system("System.Embedded.1", "System.Embedded.1", nil)
	p.system("System.Embedded.2", "System.Embedded.2", nil)
	p.collection("/redfish/v1/Systems", "/redfish/v1/Systems/System.Embedded.1", "/redfish/v1/Systems/System.Embedded.2")
	p.enclosure(enc, "/redfish/v1/Chassis/System.Embedded.1")
	p.firmware(map[string]string{
		"Installed-0-2.52__Enclosure.Internal.0-1": enc,
		"Installed-0-HE55__Disk.Bay.0":             enc + "/Drives/Disk.Bay.0:Enclosure.Internal.0-1",
		"Installed-159-1.8.2":                      "/redfish/v1/Systems/System.Embedded.1",
	})
	c := p.start(t)
	want := []string{"Installed-0-2.52__Enclosure.Internal.0-1", "Installed-0-HE55__Disk.Bay.0", "Installed-159-1.8.2"}
	if got := firmwareIDs(t, c, "System.Embedded.1"); !slices.Equal(got, want) {
		t.Errorf("System.Embedded.1's firmware = %v, want %v", got, want)
	}
	if got := firmwareIDs(t, c, "System.Embedded.2"); len(got) != 0 {
		t.Errorf("System.Embedded.2's firmware = %v, want none: the enclosure is System.Embedded.1's", got)
	}
}

// Two systems on one BMC: what relates to the other system, its manager,
// its chassis, a drive there or an enclosure it contains stays out, and so
// does a blade chassis that names the other system though a frame both
// share contains it; items whose ties are unknown (a chassis that names no
// system, a link the BMC does not answer, a ContainedBy loop) stay in both.
func TestFirmwareOwnershipTwoSystems(t *testing.T) {
	p := bmcPayloads{}
	p.system("1", "1", map[string]any{"Drives": links("/redfish/v1/Chassis/1/Drives/0")})
	p.system("2", "2", map[string]any{"Drives": links("/redfish/v1/Chassis/2/Drives/0")})
	p.collection("/redfish/v1/Systems", "/redfish/v1/Systems/1", "/redfish/v1/Systems/2")
	// Enclosure -> the chassis that contains it ("" none).
	for enc, by := range map[string]string{"Enc1": "1", "Enc2": "Enc2b", "Enc2b": "2", "Mystery": "", "LoopA": "LoopB", "LoopB": "LoopA"} {
		if by != "" {
			by = "/redfish/v1/Chassis/" + by
		}
		p.enclosure("/redfish/v1/Chassis/"+enc, by)
	}
	p.add("/redfish/v1/Chassis/Frame", map[string]any{"ChassisType": "Enclosure",
		"Links": map[string]any{"ComputerSystems": links("/redfish/v1/Systems/1", "/redfish/v1/Systems/2")}})
	// Its ManagedBy is one link, not a list: the other links are read all the same.
	p.add("/redfish/v1/Chassis/Blade2", map[string]any{"ChassisType": "Blade", "Links": map[string]any{
		"ComputerSystems": links("/redfish/v1/Systems/2"), "ContainedBy": map[string]string{"@odata.id": "/redfish/v1/Chassis/Frame"},
		"ManagedBy": map[string]string{"@odata.id": "/redfish/v1/Managers/2"}}})
	p.firmware(map[string]string{
		"bios1": "/redfish/v1/Systems/1", "bios2": "/redfish/v1/Systems/2",
		"bmc1": "/redfish/v1/Managers/1", "bmc2": "/redfish/v1/Managers/2",
		"drive1": "/redfish/v1/Chassis/1/Drives/0", "drive2": "/redfish/v1/Chassis/2/Drives/0",
		"enc1": "/redfish/v1/Chassis/Enc1/Drives/7", "enc2": "/redfish/v1/Chassis/Enc2/Drives/7",
		"gone": "/redfish/v1/Chassis/Gone", "loop": "/redfish/v1/Chassis/LoopA", "mystery": "/redfish/v1/Chassis/Mystery",
		"psu2": "/redfish/v1/Chassis/2/Power#/PowerSupplies/0", "rom": "",
		"frame": "/redfish/v1/Chassis/Frame", "blade2": "/redfish/v1/Chassis/Blade2/Drives/0",
	})
	c := p.start(t)
	for sys, want := range map[string][]string{
		"1": {"bios1", "bmc1", "drive1", "enc1", "frame", "gone", "loop", "mystery", "rom"},
		"2": {"bios2", "blade2", "bmc2", "drive2", "enc2", "frame", "gone", "loop", "mystery", "psu2", "rom"},
	} {
		if got := firmwareIDs(t, c, sys); !slices.Equal(got, want) {
			t.Errorf("system %s's firmware = %v, want %v", sys, got, want)
		}
	}
}
