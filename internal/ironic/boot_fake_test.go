package ironic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

const testNetworkData = `{"links":[{"id":"enp1s0","type":"phy","ethernet_mac_address":"52:54:00:aa:bb:01"}],"networks":[{"id":"p","type":"ipv4","link":"enp1s0","ip_address":"192.0.2.10","netmask":"255.255.255.0"}],"services":[]}`

// Registration writes the boot spec: network_data, cpu_arch and the deploy
// image's driver_info keys (after the BMC's driver_info), and a second pass
// writes nothing.
func TestFakeRegisterWritesBoot(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	h.Spec.Boot = lifecycle.BootSpec{
		NetworkData:  testNetworkData,
		Architecture: "aarch64",
		DeployImage: &lifecycle.DeployImage{Kernel: "http://images/aarch64/vmlinuz", Ramdisk: "file:///images/aarch64/initramfs",
			KernelParams: "%default% console=ttyAMA0"},
	}
	registered(t, p, h)
	n := srv.MustNode("h1")
	links, _ := n.NetworkData["links"].([]any)
	networks, _ := n.NetworkData["networks"].([]any)
	if len(links) != 1 || len(networks) != 1 || networks[0].(map[string]any)["network_id"] != "p" || n.Properties["cpu_arch"] != "aarch64" {
		t.Fatalf("network_data %v, cpu_arch %v", n.NetworkData, n.Properties["cpu_arch"])
	}
	if n.DriverInfo["deploy_kernel"] != "http://images/aarch64/vmlinuz" || n.DriverInfo["deploy_ramdisk"] != "file:///images/aarch64/initramfs" ||
		n.DriverInfo["kernel_append_params"] != "%default% console=ttyAMA0" || n.DriverInfo["password"] == nil {
		t.Fatalf("driver_info %v", n.DriverInfo)
	}
	srv.ResetRequests()
	registered(t, p, h)
	if got := srv.Calls(); len(got) != 0 {
		t.Errorf("a registered host wrote %q", got)
	}
	// Switching to an ISO removes kernel and ramdisk.
	h.Spec.Boot.DeployImage = &lifecycle.DeployImage{ISO: "http://images/aarch64/ipa.iso"}
	registered(t, p, h)
	n = srv.MustNode("h1")
	if _, has := n.DriverInfo["deploy_kernel"]; has || n.DriverInfo["deploy_iso"] != "http://images/aarch64/ipa.iso" {
		t.Errorf("driver_info after the ISO %v", n.DriverInfo)
	}
}

// Below API 1.66 the node has no network_data: registration fails saying so.
func TestFakeNetworkDataNeedsMicroversion(t *testing.T) {
	srv := ironictest.New(t)
	srv.MaxMicroversion = "1.65"
	p := NewProvisioner(fwClient(t, srv, "1.65"), nil, WithJitter(0, nil))
	h := fakeSpecHost("h1")
	h.Spec.Boot.NetworkData = testNetworkData
	var res lifecycle.Result
	for range 5 {
		var id string
		var err error
		res, id, err = p.Register(context.Background(), h, true, false)
		if err != nil {
			t.Fatal(err)
		}
		h.Status.ID = id
		if !res.Dirty {
			break
		}
	}
	if !strings.Contains(res.ErrorMessage, "preprovisioning_network_data needs Ironic API microversion 1.66") || !strings.Contains(res.ErrorMessage, "1.65") {
		t.Fatalf("%+v", res)
	}
}

// cpu_arch is set before inspection only; inspection finding another
// architecture fails the inspection naming both.
func TestFakeInspectArchMismatch(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	h.Spec.Boot.Architecture = "x86_64"
	id := nodeIn(srv, h, "manageable", "")
	now := time.Now()
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.InspectionFinishedAt = &now
		n.Properties = map[string]any{"cpu_arch": "aarch64"}
	})
	if patch, _ := bootPatch(h, ptr(srv.MustNode(id)), nil); len(patch) != 0 {
		t.Errorf("cpu_arch patched after inspection: %v", patch)
	}
	res, _, _, err := p.Inspect(context.Background(), h, false, false)
	if err != nil || !strings.Contains(res.ErrorMessage, "configured as x86_64") || !strings.Contains(res.ErrorMessage, "inspection found aarch64") {
		t.Fatalf("%+v %v", res, err)
	}
	h.Spec.Boot.Architecture = "aarch64"
	if res, _, _, err := p.Inspect(context.Background(), h, false, false); err != nil || res.ErrorMessage != "" {
		t.Fatalf("matching: %+v %v", res, err)
	}
}

func TestNormArch(t *testing.T) {
	h := fakeSpecHost("h1")
	h.Spec.Boot.Architecture = "x86_64"
	n := nodesNode("h1", "manageable", "")
	n.Properties = map[string]any{"cpu_arch": "arm"}
	if msg := archMismatch(h, &n); !strings.Contains(msg, `inspection found aarch64 (Ironic's cpu_arch "arm")`) {
		t.Errorf("mismatch %q", msg)
	}
	for in, want := range map[string]string{"arm": "aarch64", "ARM64": "aarch64", "aarch64": "aarch64", "amd64": "x86_64", "x86_64": "x86_64", "ppc64le": "ppc64le"} {
		if got := lifecycle.NormArch(in); got != want {
			t.Errorf("NormArch(%q) = %q, want %q", in, got, want)
		}
	}
}
