package acctest

import (
	"net/http"
	"net/http/httptest"
	"os"
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
	return startOneAgentSim(t, agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), InspectIronic: BuiltinInspection(), DHCPLess: dhcpLess, Logf: t.Logf}, arch)
}

// BootURL is the rig's boot HTTP server, which serves Ironic's http_root
// at its http_url (BAREMETAL_TEST_IRONIC_HTTP_URL; scripts/ironic.sh
// starts one), or "".
func BootURL() string { return os.Getenv("BAREMETAL_TEST_IRONIC_HTTP_URL") }

// PreCheckNetworkBoot is PreCheck, and skips the test, saying why, unless
// the rig serves Ironic's http_root (its ipxe and pxe boot interfaces).
func PreCheckNetworkBoot(t *testing.T) {
	t.Helper()
	PreCheck(t)
	if BootURL() == "" {
		t.Skip("network boot test: BAREMETAL_TEST_IRONIC_HTTP_URL is not set (a rig started by this scripts/ironic.sh serves http_root and prints it in `env`)")
	}
}

// StartNetbootAgentSim is StartBootAgentSim (x86_64, DHCP) on a simulated
// network whose DHCP points iPXE at the rig's boot server: a power-on
// with a PXE boot override starts the agent only when iPXE finds the
// per-MAC config Ironic wrote there, and the agent then talks to the
// Ironic (ipa-api-url) and inspector its kernel command line names (see
// agent.Config.BootURL). Other power-ons start the agent as in
// StartAgentSim.
func StartNetbootAgentSim(t *testing.T) (*sim.Server, sim.Profile) {
	t.Helper()
	return startOneAgentSim(t, agent.Config{IronicURL: Endpoint(), InspectorURL: InspectorURL(), InspectIronic: BuiltinInspection(), BootURL: BootURL(), Logf: t.Logf}, "x86_64")
}

func startOneAgentSim(t *testing.T, cfg agent.Config, arch string) (*sim.Server, sim.Profile) {
	t.Helper()
	srv := sim.New(sim.Options{Agent: &cfg})
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
