package acctest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// StartSim serves n simulated Redfish systems "sys-0".."sys-{n-1}" that
// accept user/pass, with the default hardware profiles but random NIC MACs:
// Ironic refuses a second port with a MAC, so hosts of tests running side
// by side on one Ironic must never share one. profiles[i] is sys-i's. The
// simulator closes when the test ends, after Terraform destroyed the hosts.
func StartSim(t *testing.T, n int, user, pass string) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	return startSim(t, sim.Options{}, n, user, pass)
}

// StartSimDialect is StartSim with the hardware and answers of a vendor's
// BMC (sim.DialectILO, sim.DialectIDRAC, sim.DialectSupermicro):
// sim.ProfileFor(dialect, i), with random NIC MACs.
func StartSimDialect(t *testing.T, dialect string, n int, user, pass string) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	return startSim(t, sim.Options{Dialect: dialect}, n, user, pass)
}

// StartAgentSim is StartSim with a simulated Ironic Python Agent on every
// system, talking to the test Ironic: whenever a system powers on, its
// agent looks its node up and runs the steps Ironic asks for, after
// posting its inventory to ironic-inspector when the rig runs one
// (InspectorURL), else to Ironic's built-in inspection when the rig's
// Ironic has it (BuiltinInspection). Hosts on it use SimAgentHostDriver.
// configure adjusts the agents' Config, e.g. an HTTPClient that trusts a
// test registry's certificate.
func StartAgentSim(t *testing.T, n int, user, pass string, configure ...func(*agent.Config)) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	cfg := &agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), InspectIronic: BuiltinInspection(), Logf: t.Logf}
	for _, c := range configure {
		c(cfg)
	}
	srv, profiles = startSim(t, sim.Options{Agent: cfg}, n, user, pass)
	// A failed test says what each agent saw: its boots, lookups,
	// heartbeats and commands are the other half of Ironic's last_error.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, id := range srv.SystemIDs() {
			if r, err := srv.AgentRecord(id); err == nil {
				t.Logf("agent %s: %d boots, %d lookups, %d heartbeats (%d failed, last: %q), commands %v, events:\n  %s",
					id, r.Boots, r.Lookups, r.Heartbeats, r.HeartbeatErrors, r.LastHeartbeatError, r.CommandLog, strings.Join(r.Events, "\n  "))
			}
		}
	})
	return srv, profiles
}

// StartAgentSimWith is StartAgentSim with each system's profile changed
// by edit first (edit(i, &profile) for sys-i): more or less memory, other
// NICs.
func StartAgentSimWith(t *testing.T, n int, user, pass string, edit func(i int, p *sim.Profile)) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	opts := sim.Options{Agent: &agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), InspectIronic: BuiltinInspection(), Logf: t.Logf}}
	srv, profiles = startSimEdited(t, opts, n, user, pass, edit)
	return srv, profiles
}

// InspectorURL is the rig's ironic-inspector (BAREMETAL_INSPECTOR_URL;
// scripts/ironic.sh starts one with IRONIC_INSPECTOR=1), or "".
func InspectorURL() string { return os.Getenv("BAREMETAL_INSPECTOR_URL") }

// BuiltinInspection reports whether the rig's Ironic inspects by itself
// (inspect interface "agent", API 1.84's /v1/continue_inspection: Ironic
// 2024.1 and later) and runs no ironic-inspector: scripts/ironic.sh env
// prints BAREMETAL_TEST_BUILTIN_INSPECTION=1 for such releases.
func BuiltinInspection() bool {
	return InspectorURL() == "" && os.Getenv("BAREMETAL_TEST_BUILTIN_INSPECTION") == "1"
}

// InspectionURL is where the rig's agents post their inventory: inspector's
// /v1/continue, Ironic's /v1/continue_inspection, or "".
func InspectionURL() string {
	return agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), InspectIronic: BuiltinInspection()}.InspectionURL()
}

// AgentInspectInterface is the rig Ironic's in-band inspect interface:
// "agent" (built-in inspection), else "inspector" (ironic-inspector).
func AgentInspectInterface() string {
	if BuiltinInspection() {
		return "agent"
	}
	return "inspector"
}

// PreCheckInspector skips the test, saying why, unless the rig inspects
// with the agent: through ironic-inspector (Ironic 2023.1) or by itself
// (2024.1 and later).
func PreCheckInspector(t *testing.T) {
	t.Helper()
	PreCheck(t)
	if InspectionURL() == "" {
		t.Skip("agent inspection test: neither BAREMETAL_INSPECTOR_URL nor BAREMETAL_TEST_BUILTIN_INSPECTION=1 is set " +
			"(scripts/ironic.sh env prints one: ironic-inspector with IRONIC_INSPECTOR=1 on IRONIC_RELEASE=2023.1, built-in on later releases)")
	}
}

func startSim(t *testing.T, opts sim.Options, n int, user, pass string) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	return startSimEdited(t, opts, n, user, pass, nil)
}

func startSimEdited(t *testing.T, opts sim.Options, n int, user, pass string, edit func(i int, p *sim.Profile)) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	srv = sim.New(opts)
	for i := range n {
		p, err := sim.ProfileFor(opts.Dialect, i)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(i, &p)
		}
		for j := range p.NICs {
			p.NICs[j].MAC = MAC()
		}
		if err := srv.AddSystem(sim.SystemConfig{ID: fmt.Sprintf("sys-%d", i), Username: user, Password: pass, Profile: p}); err != nil {
			t.Fatalf("add simulator system: %v", err)
		}
		profiles = append(profiles, p)
	}
	if err := srv.Start(); err != nil {
		t.Fatalf("start BMC simulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, profiles
}

// SimHostDriver is the part of a baremetal_host that points Ironic at a
// simulator system: fake-hardware with Redfish power, management and
// inspection, and fake boot and deploy (no agent ramdisk runs here).
const SimHostDriver = `  driver = "fake-hardware"
  interfaces = {
    boot       = "fake"
    deploy     = "fake"
    power      = "redfish"
    management = "redfish"
    inspect    = "redfish"
    bios       = "fake"
    raid       = "fake"
    vendor     = "fake"
  }`

// SimAgentHostDriver is SimHostDriver for a simulator system whose agent
// does the in-band work: deploy "direct" (cleaning, write_image, config
// drive and bootloader through the agent), raid "agent" and Redfish BIOS;
// boot stays "fake" (the simulator boots its agent itself at every
// power-on).
var SimAgentHostDriver = driverWith(driverWith(driverWith(SimHostDriver,
	"deploy", "direct"), "bios", "redfish"), "raid", "agent")
