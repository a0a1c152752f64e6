package acctest

import (
	"fmt"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// StartSim serves n simulated Redfish systems "sys-0".."sys-{n-1}" that
// accept user/pass, with the default hardware profiles but random NIC MACs:
// Ironic refuses a second port with a MAC, so hosts of tests running side
// by side on one Ironic must never share one. profiles[i] is sys-i's. The
// simulator closes when the test ends, after Terraform destroyed the hosts.
func StartSim(t *testing.T, n int, user, pass string) (srv *sim.Server, profiles []sim.Profile) {
	t.Helper()
	srv = sim.New(sim.Options{})
	for i := range n {
		p := sim.DefaultProfile(i)
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
