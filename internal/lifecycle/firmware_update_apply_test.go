package lifecycle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// bmcUpdater records the BMC-path calls UpdateFirmware makes.
type bmcUpdater struct {
	calls  []string
	on     bool
	reason string
}

func (u *bmcUpdater) Maintenance(context.Context, string) (bool, string, error) {
	return u.on, u.reason, nil
}
func (u *bmcUpdater) SetMaintenance(_ context.Context, _ string, on bool, reason string) error {
	u.on, u.reason = on, reason
	u.calls = append(u.calls, map[bool]string{true: "maintenance on", false: "maintenance off"}[on])
	return nil
}
func (u *bmcUpdater) VerifyImage(_ context.Context, f lifecycle.FirmwareUpdate) error {
	u.calls = append(u.calls, "verify "+f.Component)
	return nil
}
func (u *bmcUpdater) BMCUpdate(_ context.Context, _ string, _ lifecycle.BMCAccess, f lifecycle.FirmwareUpdate,
	_ func(lifecycle.FirmwareTask)) (lifecycle.FirmwareUpdateResult, error) {
	u.calls = append(u.calls, "update "+f.Component)
	return lifecycle.FirmwareUpdateResult{Component: f.Component, Target: f.Component, PreviousVersion: "1", Version: "2"}, nil
}

// TestUpdateFirmware: which host states take an update, which way it goes
// (Ironic's step by manual cleaning or servicing, else the BMC), and each
// refusal on its attribute, with nothing done.
func TestUpdateFirmware(t *testing.T) {
	bios := []lifecycle.FirmwareUpdate{{Component: "bios", URL: "http://img/bios.bin"}}
	byID := []lifecycle.FirmwareUpdate{{Component: "bios", URL: "http://img/bios.bin"}, {Component: "redfish:BMC", URL: "http://img/bmc.bin"}}
	for _, c := range []struct {
		name     string
		ps       string
		gone     bool
		offers   lifecycle.FirmwareFeatures
		updates  []lifecycle.FirmwareUpdate
		noBMC    bool
		ask      string // the method asked for ("" for the default)
		method   string
		calls    string // the Provisioner call or the BMC calls that must happen
		refusal  string // "attribute: summary"
		refIndex int
	}{
		{name: "firmware API, available: manual cleaning", ps: "available", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: bios, method: lifecycle.FirmwareUpdateIronic, calls: "Prepare"},
		{name: "firmware API, provisioned with servicing", ps: "active", offers: lifecycle.FirmwareFeatures{Components: true, Servicing: true},
			updates: bios, method: lifecycle.FirmwareUpdateIronic, calls: "Service"},
		{name: "firmware API, provisioned without servicing", ps: "active", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: bios, refusal: "host_id: Firmware cannot be updated on a provisioned host"},
		{name: "firmware API refuses a redfish: component", ps: "available", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: byID, refusal: "updates: Component not known to Ironic", refIndex: 1},
		{name: "firmware API, busy host", ps: "clean wait", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: bios, refusal: "host_id: Host cannot take firmware updates now"},
		{name: "BMC path in maintenance", ps: "active", updates: byID, method: lifecycle.FirmwareUpdateRedfish,
			calls: "maintenance on,update bios,update redfish:BMC,maintenance off"},
		{name: "BMC path without credentials", ps: "available", updates: bios, noBMC: true,
			refusal: "bmc: BMC credentials needed"},
		{name: "BMC path, busy host", ps: "inspect wait", updates: bios, refusal: "host_id: Host cannot take firmware updates now"},
		{name: "no such host", gone: true, updates: bios, refusal: "host_id: Host not found"},
		{name: "BMC path asked for where Ironic has the firmware API", ps: "available", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: byID, ask: lifecycle.FirmwareUpdateRedfish, method: lifecycle.FirmwareUpdateRedfish,
			calls: "maintenance on,update bios,update redfish:BMC,maintenance off"},
		{name: "BMC path asked for without credentials", ps: "available", offers: lifecycle.FirmwareFeatures{Components: true},
			updates: bios, ask: lifecycle.FirmwareUpdateRedfish, noBMC: true, refusal: "bmc: BMC credentials needed"},
		{name: "Ironic's step asked for without the firmware API", ps: "available", updates: bios,
			ask: lifecycle.FirmwareUpdateIronic, refusal: "method: Ironic has no firmware API"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.PS, n.Gone = c.ps, c.gone
			up := &bmcUpdater{}
			clients := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n), Updater: up,
				Firmware: &lifecycletest.Firmware{Node: n, Offers: c.offers}}
			var access *lifecycle.BMCAccess
			if !c.noBMC {
				access = &lifecycle.BMCAccess{}
			}
			if !c.gone {
				plan := clients.CheckFirmwareUpdate(context.Background(), "host-a", c.updates, !c.noBMC, c.ask)
				if (len(plan) > 0) != (c.refusal != "") {
					t.Errorf("plan-time refusals %+v, want %q", plan, c.refusal)
				}
			}
			out, refusals, err := clients.UpdateFirmware(context.Background(),
				lifecycle.FirmwareUpdateRequest{Ref: "host-a", Updates: c.updates, Redfish: access, Method: c.ask})
			if err != nil {
				t.Fatal(err)
			}
			if c.refusal != "" {
				if len(refusals) != 1 || refusals[0].Attribute+": "+refusals[0].Summary != c.refusal || refusals[0].Update != c.refIndex {
					t.Fatalf("refusals %+v, want %q at %d", refusals, c.refusal, c.refIndex)
				}
				if n.Count("Prepare")+n.Count("Service") != 0 || len(up.calls) != 0 {
					t.Errorf("a refused update did something: %v %v", n.Calls(), up.calls)
				}
				return
			}
			if len(refusals) != 0 || out.Method != c.method || len(out.Results) != len(c.updates) || out.Host.ID != "node-1" {
				t.Fatalf("outcome %+v, refusals %+v; want method %s", out, refusals, c.method)
			}
			if c.method == lifecycle.FirmwareUpdateIronic {
				if n.Count(c.calls) != 1 || n.Count("Prepare")+n.Count("Service") != 1 || len(up.calls) != 0 {
					t.Errorf("calls %v, BMC %v; want one %s", n.Calls(), up.calls, c.calls)
				}
			} else if got := strings.Join(up.calls, ","); got != c.calls {
				t.Errorf("BMC calls %s, want %s", got, c.calls)
			}
		})
	}
}
