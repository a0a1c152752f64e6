package bmc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// TestUpdateFirmware: SimpleUpdate on the simulator, its task polled to the
// end with progress after every poll: success installs the version, a slow
// task's percent moves, a failing one is ErrUpdateFailed with the BMC's
// message and the version unchanged.
func TestUpdateFirmware(t *testing.T) {
	srv := startSim(t, sim.Options{})
	const fail = "Firmware image rejected: signature check failed"
	if err := srv.SetFaults("sys-0", sim.Faults{UpdateFailure: fail}); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetFaults("sys-1", sim.Faults{UpdateTaskPolls: 4}); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	update := func(sys, component, image string) (FirmwareComponent, []UpdateTask, UpdateTask, error) {
		c, err := ConnectRedfish(ctx, testConfig(srv, sys))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		items, err := c.Firmware(sys)
		if err != nil {
			t.Fatal(err)
		}
		item, err := ResolveFirmwareComponent(items, component)
		if err != nil {
			t.Fatal(err)
		}
		var seen []UpdateTask
		task, err := c.UpdateFirmware(ctx, item, image, UpdateOptions{PollInterval: time.Millisecond, MaxPollInterval: time.Millisecond,
			Progress: func(t UpdateTask) { seen = append(seen, t) }})
		return item, seen, task, err
	}

	item, seen, task, err := update("sys-1", "bios", "http://images/bios-3.0.1.bin")
	if err != nil || item.ID != "sys-1-BIOS" || task.State != "Completed" {
		t.Fatalf("slow update: %+v %+v %v", item, task, err)
	}
	var pcts []int
	for _, s := range seen {
		pcts = append(pcts, s.Percent)
	}
	if len(pcts) != 4 || pcts[0] != 25 || pcts[1] != 50 || pcts[2] != 75 || pcts[3] != 100 {
		t.Errorf("progress %v", pcts)
	}
	if st, _ := srv.State("sys-1"); st.Firmware["BIOS"] != "3.0.1" {
		t.Errorf("after update: %v", st.Firmware)
	}

	_, _, task, err = update("sys-0", "bmc", "http://images/bmc-7.0.bin")
	if !errors.Is(err, ErrUpdateFailed) || !strings.Contains(err.Error(), fail) || task.State != "Exception" {
		t.Fatalf("failed update: %+v %v", task, err)
	}
	if st, _ := srv.State("sys-0"); st.Firmware["BMC"] != sim.DefaultProfile(0).BMCVersion {
		t.Errorf("failed update changed the version: %v", st.Firmware)
	}
}

// TestResolveFirmwareComponent: Ironic's names map to inventory items;
// redfish:<Id> names one exactly; misses and ambiguity list the items.
func TestResolveFirmwareComponent(t *testing.T) {
	items := []FirmwareComponent{
		{ID: "sys-0-BIOS", Name: "System BIOS", Updateable: true},
		{ID: "sys-0-BMC", Name: "BMC Firmware", Updateable: true},
		{ID: "sys-0-NIC.1", Name: "NIC", Updateable: true},
		{ID: "Installed-1", Name: "iDRAC", Updateable: false},
	}
	for comp, want := range map[string]string{"bios": "sys-0-BIOS", "nic:NIC.1": "sys-0-NIC.1", "redfish:sys-0-BMC": "sys-0-BMC"} {
		if got, err := ResolveFirmwareComponent(items, comp); err != nil || got.ID != want {
			t.Errorf("%s: %+v %v", comp, got, err)
		}
	}
	if _, err := ResolveFirmwareComponent(items, "bmc"); err == nil || !strings.Contains(err.Error(), "matches 2 items") {
		t.Errorf("ambiguous bmc: %v", err)
	}
	if _, err := ResolveFirmwareComponent(items, "nic:NIC.9"); err == nil || !strings.Contains(err.Error(), "sys-0-NIC.1 (NIC)") {
		t.Errorf("missing nic: %v", err)
	}
	if _, err := ResolveFirmwareComponent(items, "redfish:Installed-1"); err == nil || !strings.Contains(err.Error(), "not updateable") {
		t.Errorf("not updateable: %v", err)
	}
}

func TestVerifyImage(t *testing.T) {
	img := []byte("firmware image bytes")
	sum := sha256.Sum256(img)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/fw.bin" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(img)
	}))
	t.Cleanup(srv.Close)
	ctx := testContext(t)
	if err := VerifyImage(ctx, nil, srv.URL+"/fw.bin", "sha256", hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	err := VerifyImage(ctx, nil, srv.URL+"/fw.bin", "sha256", strings.Repeat("0", 64))
	if err == nil || !strings.Contains(err.Error(), hex.EncodeToString(sum[:])) {
		t.Errorf("mismatch: %v", err)
	}
	if err := VerifyImage(ctx, nil, srv.URL+"/nope.bin", "sha256", strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("missing image: %v", err)
	}
}

// TestUpdateFirmwareStagedForBoot: a BMC that stages the image keeps the
// task Pending until the system boots; OnPending is called once, and after
// the reset the task completes with the new version.
func TestUpdateFirmwareStagedForBoot(t *testing.T) {
	srv := startSim(t, sim.Options{})
	if err := srv.SetFaults("sys-0", sim.Faults{UpdateAtBoot: true}); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	c := connect(t, srv)
	items, _ := c.Firmware("sys-0")
	item, err := ResolveFirmwareComponent(items, "bios")
	if err != nil {
		t.Fatal(err)
	}
	resets := 0
	var states []string
	task, err := c.UpdateFirmware(ctx, item, "http://images/bios-4.0.0.bin", UpdateOptions{
		PollInterval: time.Millisecond, MaxPollInterval: time.Millisecond,
		Progress: func(t UpdateTask) { states = append(states, t.State) },
		OnPending: func() error {
			resets++
			return c.ResetSystem("sys-0", "On")
		},
	})
	if err != nil || task.State != "Completed" || resets != 1 {
		t.Fatalf("task %+v, resets %d, err %v (states %v)", task, resets, err, states)
	}
	if !slices.Contains(states, "Pending") {
		t.Errorf("never Pending: %v", states)
	}
	st, _ := srv.State("sys-0")
	if st.Firmware["BIOS"] != "4.0.0" || st.PowerState != "On" || !slices.Equal(st.Resets, []string{"On"}) {
		t.Errorf("after: firmware %v, power %s, resets %v", st.Firmware, st.PowerState, st.Resets)
	}
}
