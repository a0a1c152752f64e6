package ironic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// agentHost is a host on a simulator system with a simulated agent: Redfish
// power, management and BIOS, deploy "direct" (in-band steps on the agent),
// boot "fake" (the simulator boots its agent at every power-on).
func agentHost(t *testing.T) (*lifecycle.Host, *sim.Server) {
	t.Helper()
	srv := sim.New(sim.Options{Agent: &agent.Config{IronicURL: ironicEndpoint(), Logf: t.Logf}})
	p := sim.DefaultProfile(0)
	for i := range p.NICs {
		p.NICs[i].MAC = randomMAC()
	}
	if err := srv.AddSystem(sim.SystemConfig{ID: "sys-0", Username: "admin", Password: "password", Profile: p}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	h := fakeHost(t)
	h.Spec.BootMACAddress = p.NICs[0].MAC
	h.Spec.BMC.Address = "redfish+" + srv.SystemURL("sys-0")
	h.Spec.BMC.DriverInfo = map[string]any{
		"redfish_address": srv.URL(), "redfish_system_id": "/redfish/v1/Systems/sys-0",
		"redfish_username": "admin", "redfish_password": "password",
	}
	for k, v := range map[string]string{"deploy_interface": "direct", "power_interface": "redfish", "management_interface": "redfish", "bios_interface": "redfish", "raid_interface": "agent"} {
		h.Spec.BMC.Interfaces[k] = v
	}
	return h, srv
}

// TestIronicAgentFirmwareAndManualClean: the host's firmware settings go
// through manual cleaning as the redfish BIOS interface's
// apply_configuration, which reboots into the agent and waits in clean wait
// until it heartbeats; the simulated BMC applies them at that boot, and
// Ironic caches them. Then manual clean steps run on the agent: one that
// the agent fails (an agent fault: the failure reaches last_error), and
// the same step healthy.
func TestIronicAgentFirmwareAndManualClean(t *testing.T) {
	t.Parallel()
	sc, w := realIronic(t)
	ctx := testCtx(t)
	p := rigProvisioner(sc, w)
	h, srv := agentHost(t)
	cleanupNode(t, sc, h)
	mustNoError(t, "register", register(t, ctx, p, w, h, true))

	h.Spec.FirmwareSettings = map[string]string{"NumLock": "Off", "ProcVirtualization": "Disabled"}
	res := drive(t, ctx, w, h, "prepare", func() (lifecycle.Result, error) {
		r, _, err := p.Prepare(ctx, h, true, false)
		return r, err
	})
	mustNoError(t, "prepare", res)
	st, _ := srv.State("sys-0")
	if st.BiosCurrent["NumLock"] != "Off" || st.BiosCurrent["ProcVirtualization"] != "Disabled" {
		t.Errorf("the simulated BMC's BIOS after prepare: %v", st.BiosCurrent)
	}
	rec, _ := srv.AgentRecord("sys-0")
	if rec.Boots == 0 || rec.Heartbeats == 0 {
		t.Errorf("the agent never ran: %+v", rec)
	}
	settings, err := nodes.ListBIOSSettings(ctx, sc, h.Status.ID, nil).Extract()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range settings {
		got[s.Name] = s.Value
	}
	if got["NumLock"] != "Off" || got["ProcVirtualization"] != "Disabled" {
		t.Errorf("Ironic's cached BIOS settings: %v", got)
	}
	n := getNode(t, ctx, sc, h.Status.ID)
	if n.ProvisionState != psManageable {
		t.Fatalf("after prepare: %s (%s)", n.ProvisionState, n.LastError)
	}

	// Manual cleaning with an in-band step that the agent fails.
	srv.Agent("sys-0").SetFaults(agent.Faults{FailCommand: "erase_devices_metadata", FailMessage: "simulated: the disk refused the wipe"})
	n = manualClean(t, ctx, sc, w, h.Status.ID)
	if n.ProvisionState != "clean failed" || !strings.Contains(n.LastError, "deploy.erase_devices_metadata") || !strings.Contains(n.LastError, "simulated: the disk refused the wipe") {
		t.Fatalf("manual cleaning with a failing agent step: %s, last_error %q", n.ProvisionState, n.LastError)
	}
	t.Logf("a failing agent clean step as Ironic reports it: %s", n.LastError)
	if err := nodes.ChangeProvisionState(ctx, sc, h.Status.ID, nodes.ProvisionStateOpts{Target: nodes.TargetManage}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	waitState(t, ctx, w, sc, h.Status.ID, psManageable)
	// A failed cleaning leaves the node in maintenance, as Ironic does.
	if err := nodes.UnsetMaintenance(ctx, sc, h.Status.ID).ExtractErr(); err != nil {
		t.Fatal(err)
	}

	srv.Agent("sys-0").SetFaults(agent.Faults{})
	before := rec.ErasedMetadata
	n = manualClean(t, ctx, sc, w, h.Status.ID)
	if n.ProvisionState != psManageable {
		t.Fatalf("manual cleaning: %s, last_error %q", n.ProvisionState, n.LastError)
	}
	rec, _ = srv.AgentRecord("sys-0")
	if rec.ErasedMetadata != before+1 || !slices.Contains(rec.CleanSteps, "deploy.erase_devices_metadata") {
		t.Errorf("the agent did not erase: %+v", rec)
	}
}

// manualClean runs deploy.erase_devices_metadata as a manual clean step
// and waits for cleaning to end; it checks that cleaning waited for the
// agent (clean wait).
func manualClean(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, w *Watcher, id string) *nodes.Node {
	t.Helper()
	err := nodes.ChangeProvisionState(ctx, sc, id, nodes.ProvisionStateOpts{Target: nodes.TargetClean,
		CleanSteps: []nodes.CleanStep{{Interface: nodes.InterfaceDeploy, Step: "erase_devices_metadata"}}}).ExtractErr()
	if err != nil {
		t.Fatalf("manual clean: %v", err)
	}
	var seen []string
	for ctx.Err() == nil {
		n := getNode(t, ctx, sc, id)
		if len(seen) == 0 || seen[len(seen)-1] != n.ProvisionState {
			seen = append(seen, n.ProvisionState)
		}
		if n.ProvisionState == psManageable || n.ProvisionState == "clean failed" {
			if !slices.Contains(seen, "clean wait") {
				t.Errorf("manual cleaning went %v, never through clean wait", seen)
			}
			t.Logf("manual cleaning went %s", strings.Join(seen, " -> "))
			return n
		}
		_ = w.Wait(ctx, id, 5*time.Second)
	}
	t.Fatalf("manual cleaning did not end: %v", seen)
	return nil
}

func waitState(t *testing.T, ctx context.Context, w *Watcher, sc *gophercloud.ServiceClient, id, want string) {
	t.Helper()
	for ctx.Err() == nil {
		if n := getNode(t, ctx, sc, id); n.ProvisionState == want {
			return
		}
		_ = w.Wait(ctx, id, 5*time.Second)
	}
	t.Fatal(fmt.Errorf("node %s never reached %s", id, want))
}
