package acctest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// StartBootAgentSim is StartAgentSim with one system, sys-0, whose CPUs are
// of architecture arch, on a simulated network without DHCP when dhcpLess:
// its agent reaches Ironic only when the boot media carries the node's
// network_data, and only from a deploy kernel of its architecture (see
// agent.Config.DHCPLess and the agent's bootPath).
func StartBootAgentSim(t *testing.T, arch string, dhcpLess bool) (*sim.Server, sim.Profile) {
	t.Helper()
	srv := sim.New(sim.Options{Agent: &agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), DHCPLess: dhcpLess, Logf: t.Logf}})
	p, err := sim.ProfileFor("", 0)
	if err != nil {
		t.Fatal(err)
	}
	p.CPU.Arch = arch
	for j := range p.NICs {
		p.NICs[j].MAC = MAC()
	}
	if err := srv.AddSystem(sim.SystemConfig{ID: "sys-0", Username: "admin", Password: "password", Profile: p}); err != nil {
		t.Fatalf("add simulator system: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatalf("start BMC simulator: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if r, err := srv.AgentRecord("sys-0"); err == nil {
				t.Logf("agent sys-0: %d boots, %d lookups, boot refused %q, events:\n  %s", r.Boots, r.Lookups, r.BootRefused, strings.Join(r.Events, "\n  "))
			}
		}
		_ = srv.Close()
	})
	return srv, p
}

// DeployImages serves fake deploy images per architecture:
// {url}/{arch}/vmlinuz (a kernel header the simulated agent reads the
// architecture from), {url}/{arch}/initramfs and {url}/{arch}/esp.img.
func DeployImages(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arch, file, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch file {
		case "vmlinuz":
			_, _ = w.Write(agent.KernelFor(arch))
		case "initramfs", "esp.img":
			_, _ = w.Write([]byte("simulated " + arch + " " + file))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
