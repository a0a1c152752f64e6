package sim

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestVMSystem: a system that is a qemu machine (a stand-in qemu here)
// boots from the image Ironic inserts when the override says Cd: the
// simulator fetches the image and puts it in the machine's CD drive; the
// machine's NIC has the system's MAC, its agent port is forwarded on
// loopback, and ForceOff stops it.
func TestVMSystem(t *testing.T) {
	dir := t.TempDir()
	args, started := filepath.Join(dir, "args"), filepath.Join(dir, "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	qemu, img := filepath.Join(dir, "qemu"), filepath.Join(dir, "qemu-img")
	for path, body := range map[string]string{
		qemu: `printf '%s\n' "$@" >` + args + "\necho up >" + started + "\nexec sleep 600\n",
		img:  `for a; do prev=$last; last=$a; done; : >"$prev"` + "\n",
	} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	isos := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ISO")) }))
	t.Cleanup(isos.Close)
	s := startServer(t, Options{VM: &VMOptions{Dir: filepath.Join(dir, "vms"), Forwards: []int{6385},
		AgentPorts: map[string]int{"sys-0": 41000}, QEMU: qemu, QEMUImg: img}}, 1)
	c := newCaller(t, s.URL())
	c.expect(204, "POST", "/redfish/v1/Managers/sys-0/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia",
		map[string]any{"Image": isos.URL + "/deploy.iso", "Inserted": true}, nil)
	c.expect(204, "PATCH", "/redfish/v1/Systems/sys-0", map[string]any{"Boot": map[string]string{
		"BootSourceOverrideTarget": "Cd", "BootSourceOverrideEnabled": "Once"}}, nil)
	c.expect(204, "POST", "/redfish/v1/Systems/sys-0/Actions/ComputerSystem.Reset", map[string]string{"ResetType": "On"}, nil)
	if _, err := os.ReadFile(started); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	for _, want := range []string{"order=d", "mac=" + DefaultProfile(0).NICs[0].MAC, "hostfwd=tcp:127.0.0.1:41000-:9999",
		"guestfwd=tcp:10.0.2.100:6385-tcp:127.0.0.1:6385", "restrict=on", "media=cdrom"} {
		if !strings.Contains(got, want) {
			t.Errorf("qemu's arguments lack %q:\n%s", want, got)
		}
	}
	m := s.Machine("sys-0")
	fetched, _ := filepath.Glob(filepath.Join(dir, "vms", "sys-0", "media-*.iso"))
	if len(fetched) != 1 || !strings.Contains(got, "file="+fetched[0]+",media=cdrom") {
		t.Errorf("fetched %v; qemu:\n%s", fetched, got)
	}
	if !m.On() {
		t.Fatal("the machine is off after power on")
	}
	c.expect(204, "POST", "/redfish/v1/Systems/sys-0/Actions/ComputerSystem.Reset", map[string]string{"ResetType": "ForceOff"}, nil)
	s.SyncMachine("sys-0")
	if m.On() {
		t.Error("the machine runs after ForceOff")
	}
}
