package sim

// This file tests what the handlers share (Server.change, requestedMedia,
// renderController, numbered, numberedCollection, writeService): the
// answers to a malformed body, a missing system, device or item, and the
// numbered and service resources.

import (
	"strconv"
	"strings"
	"testing"
)

func TestChangingHandlersRefuseBadRequests(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	changes := []struct{ method, path string }{
		{"PATCH", "/redfish/v1/Systems/%s"},
		{"POST", "/redfish/v1/Systems/%s/Actions/ComputerSystem.Reset"},
		{"PATCH", "/redfish/v1/Systems/%s/Bios/Settings"},
		{"POST", "/redfish/v1/Managers/%s/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia"},
		{"POST", "/redfish/v1/Managers/%s/Actions/Manager.Reset"},
	}
	for _, ch := range changes {
		path := strings.Replace(ch.path, "%s", "sys-0", 1)
		if code, body := c.raw(ch.method, path, "{"); code != 400 || !strings.Contains(body, "MalformedJSON") {
			t.Errorf("%s %s with a malformed body = %d %s; want 400 MalformedJSON", ch.method, path, code, body)
		}
		path = strings.Replace(ch.path, "%s", "sys-9", 1)
		if code, body := c.raw(ch.method, path, "{}"); code != 404 || !strings.Contains(body, "ResourceMissingAtURI") {
			t.Errorf("%s %s = %d %s; want 404 ResourceMissingAtURI", ch.method, path, code, body)
		}
	}
	for _, p := range []string{"/redfish/v1/Systems/sys-9/Bios/Actions/Bios.ResetBios",
		"/redfish/v1/Managers/sys-9/VirtualMedia/Cd/Actions/VirtualMedia.EjectMedia"} {
		if code, body := c.raw("POST", p, ""); code != 404 || !strings.Contains(body, "ResourceMissingAtURI") {
			t.Errorf("POST %s = %d %s; want 404 ResourceMissingAtURI", p, code, body)
		}
	}
	for _, action := range []string{"InsertMedia", "EjectMedia"} {
		p := "/redfish/v1/Managers/sys-0/VirtualMedia/Usb/Actions/VirtualMedia." + action
		if code, body := c.raw("POST", p, `{"Image":"http://x/a.iso"}`); code != 404 || !strings.Contains(body, "no such virtual media device") {
			t.Errorf("POST %s = %d %s; want 404 no such virtual media device", p, code, body)
		}
	}
	st, _ := s.State("sys-0")
	if len(st.Resets) != 0 || len(st.BiosPending) != 0 || st.VirtualMedia["Cd"].Inserted || len(st.BootRequests) != 0 {
		t.Errorf("refused requests changed the system: %+v", st)
	}
}

func TestNumberedAndSingleControllerItems(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	p := DefaultProfile(0)
	sys := "/redfish/v1/Systems/sys-0"
	for _, coll := range []struct {
		kind, prefix string
		n            int
	}{{"Processors", "CPU", p.CPU.Count}, {"Memory", "DIMM", p.DIMMs}} {
		var col struct {
			Members []map[string]string
			Count   int `json:"Members@odata.count"`
		}
		c.expect(200, "GET", sys+"/"+coll.kind, nil, &col)
		if col.Count != coll.n || col.Members[coll.n-1]["@odata.id"] != sys+"/"+coll.kind+"/"+coll.prefix+strconv.Itoa(coll.n-1) {
			t.Errorf("%s = %+v", coll.kind, col)
		}
		var item struct{ Id string }
		c.expect(200, "GET", sys+"/"+coll.kind+"/"+strings.ToLower(coll.prefix)+"0", nil, &item)
		if item.Id != coll.prefix+"0" {
			t.Errorf("%s item 0 = %+v", coll.kind, item)
		}
		c.expect(404, "GET", sys+"/"+coll.kind+"/"+coll.prefix+strconv.Itoa(coll.n), nil, nil)
	}
	for _, kind := range []string{"SimpleStorage", "Storage"} {
		var col struct{ Members []map[string]string }
		c.expect(200, "GET", sys+"/"+kind, nil, &col)
		if len(col.Members) != 1 || col.Members[0]["@odata.id"] != sys+"/"+kind+"/1" {
			t.Errorf("%s = %+v", kind, col)
		}
		c.expect(200, "GET", sys+"/"+kind+"/1", nil, nil)
		c.expect(404, "GET", sys+"/"+kind+"/2", nil, nil)
	}
	for id, extra := range map[string]string{"SessionService": "Sessions", "UpdateService": "FirmwareInventory", "TaskService": "Tasks"} {
		var svc map[string]any
		c.expect(200, "GET", "/redfish/v1/"+id, nil, &svc)
		if svc["@odata.id"] != "/redfish/v1/"+id || svc["Id"] != id || svc["ServiceEnabled"] != true ||
			!strings.HasPrefix(svc["@odata.type"].(string), "#"+id+".v1_") || svc[extra] == nil {
			t.Errorf("%s = %v", id, svc)
		}
	}
}
