package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeUpdater struct {
	on        bool
	reason    string
	calls     []string
	failOn    string // component whose update fails
	clearFail bool
	takeover  string // a maintenance reason someone sets during the update
}

func (f *fakeUpdater) Maintenance(context.Context, string) (bool, string, error) {
	return f.on, f.reason, nil
}

func (f *fakeUpdater) SetMaintenance(_ context.Context, _ string, on bool, reason string) error {
	if !on && f.clearFail {
		f.calls = append(f.calls, "maintenance off failed")
		return errors.New("HTTP 503")
	}
	f.on, f.reason = on, reason
	if on {
		f.calls = append(f.calls, "maintenance on")
	} else {
		f.calls = append(f.calls, "maintenance off")
	}
	return nil
}

func (f *fakeUpdater) VerifyImage(_ context.Context, u FirmwareUpdate) error {
	f.calls = append(f.calls, "verify "+u.Component)
	return nil
}

func (f *fakeUpdater) BMCUpdate(_ context.Context, _ string, _ BMCAccess, u FirmwareUpdate, progress func(FirmwareTask)) (FirmwareUpdateResult, error) {
	f.calls = append(f.calls, "update "+u.Component+" in maintenance="+map[bool]string{true: "yes", false: "no"}[f.on])
	if f.takeover != "" {
		f.reason = f.takeover
	}
	progress(FirmwareTask{Component: u.Component, State: "Running", Percent: 50})
	if u.Component == f.failOn {
		return FirmwareUpdateResult{}, errors.New("task ended Exception: flash write error")
	}
	return FirmwareUpdateResult{Component: u.Component, PreviousVersion: "1", Version: "2"}, nil
}

type recLog struct{ msgs []string }

func (l *recLog) Log(_ context.Context, msg string, f map[string]any) { l.msgs = append(l.msgs, msg) }

// TestUpdateFirmwareThroughBMC: maintenance is set with a reason for the
// whole run and cleared after it, on success and on failure; progress is
// logged; a node that cannot be taken out of maintenance is an error that
// says so; someone else's maintenance is left alone.
func TestUpdateFirmwareThroughBMC(t *testing.T) {
	ups := []FirmwareUpdate{{Component: "bios", URL: "http://x/b", Checksum: "sha256:" + strings.Repeat("a", 64)}, {Component: "bmc", URL: "http://x/m"}}
	f := &fakeUpdater{}
	log := &recLog{}
	res, err := UpdateFirmwareThroughBMC(context.Background(), f, log, "h0", "id0", BMCAccess{}, ups)
	if err != nil || len(res) != 2 || res[1].Version != "2" {
		t.Fatalf("%+v %v", res, err)
	}
	want := "verify bios,maintenance on,update bios in maintenance=yes,update bmc in maintenance=yes,maintenance off"
	if got := strings.Join(f.calls, ","); got != want {
		t.Errorf("calls %s\nwant  %s", got, want)
	}
	if !strings.Contains(strings.Join(log.msgs, ","), "firmware update progress") {
		t.Errorf("no progress logged: %v", log.msgs)
	}

	f = &fakeUpdater{failOn: "bios"}
	_, err = UpdateFirmwareThroughBMC(context.Background(), f, nil, "h0", "id0", BMCAccess{}, ups)
	if err == nil || !strings.Contains(err.Error(), `host "h0"`) || !strings.Contains(err.Error(), "component bios") ||
		!strings.Contains(err.Error(), "flash write error") || f.on {
		t.Fatalf("failure: %v, maintenance %v", err, f.on)
	}

	f = &fakeUpdater{failOn: "bios", clearFail: true}
	_, err = UpdateFirmwareThroughBMC(context.Background(), f, nil, "h0", "id0", BMCAccess{}, ups)
	if err == nil || !strings.Contains(err.Error(), "flash write error") || !strings.Contains(err.Error(), "STILL IN MAINTENANCE") {
		t.Fatalf("stuck maintenance: %v", err)
	}

	f = &fakeUpdater{on: true, reason: "disk replacement"}
	if _, err := UpdateFirmwareThroughBMC(context.Background(), f, nil, "h0", "id0", BMCAccess{}, ups[1:]); err != nil {
		t.Fatal(err)
	}
	if !f.on || f.reason != "disk replacement" || len(f.calls) != 1 {
		t.Errorf("someone else's maintenance touched: %v %v", f.calls, f.reason)
	}

	// Detached while the update ran: the detach maintenance stays.
	f = &fakeUpdater{takeover: DetachReason}
	if _, err := UpdateFirmwareThroughBMC(context.Background(), f, nil, "h0", "id0", BMCAccess{}, ups[1:]); err != nil {
		t.Fatal(err)
	}
	if !f.on || f.reason != DetachReason || strings.Contains(strings.Join(f.calls, ","), "maintenance off") {
		t.Errorf("a detach made during the update was ended: %v, reason %q", f.calls, f.reason)
	}
}

func TestValidateFirmwareUpdates(t *testing.T) {
	errs := ValidateFirmwareUpdates([]FirmwareUpdate{
		{Component: "bios", URL: "http://img/bios.bin", Checksum: strings.Repeat("b", 64)},
		{Component: "BIOS", URL: "ftp://img/x"},
		{Component: "nic:NIC.1", URL: "https://img/nic.bin", Checksum: "sha3:abcd"},
		{Component: "bios", URL: "http://img/again.bin", Checksum: strings.Repeat("c", 31)},
		{Component: "redfish:Installed-1", URL: "file:///srv/fw.bin"},
	})
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`updates[1]: component "BIOS" is not one of`,
		`updates[1]: url "ftp://img/x": scheme "ftp"`,
		`updates[2]: checksum "sha3:abcd": algorithm "sha3"`,
		`updates[3]: checksum "` + strings.Repeat("c", 31) + `": 31 hex digits`,
		`updates[3]: component "bios" is already updated by updates[0]`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
	if len(errs) != 5 {
		t.Errorf("%d errors:\n%s", len(errs), all)
	}
}
