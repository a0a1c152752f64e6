package ironic

// The provider's per-architecture deploy images, cpu_arch after
// inspection, and the boot settings Observe reads back (issue 25).

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// A host with an architecture and no deploy image of its own gets the
// provider's default of its architecture in driver_info; one with its own
// gets its own; Observe reads them back with the network data and the
// architecture.
func TestFakeRegisterDefaultDeployImage(t *testing.T) {
	arm := lifecycle.DeployImage{Kernel: "http://img/aarch64/vmlinuz", Ramdisk: "http://img/aarch64/initramfs", KernelParams: "console=ttyAMA0"}
	p, srv := onFake(t, WithDeployImages(lifecycle.DefaultDeployImages{"aarch64": arm}))
	h := fakeSpecHost("h1")
	h.Spec.Boot = lifecycle.BootSpec{Architecture: "aarch64", NetworkData: testNetworkData}
	registered(t, p, h)
	n := srv.MustNode("h1")
	if n.DriverInfo["deploy_kernel"] != arm.Kernel || n.DriverInfo["deploy_ramdisk"] != arm.Ramdisk || n.DriverInfo["kernel_append_params"] != arm.KernelParams {
		t.Fatalf("driver_info %v", n.DriverInfo)
	}
	obs, err := p.Observe(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if obs.Boot.Architecture != "aarch64" || obs.Boot.DeployImage == nil || *obs.Boot.DeployImage != arm ||
		!lifecycle.SameNetworkData(testNetworkData, obs.Boot.NetworkData) {
		t.Fatalf("observed %+v (deploy image %+v)", obs.Boot, obs.Boot.DeployImage)
	}

	h2 := fakeSpecHost("h2")
	h2.Spec.Boot = lifecycle.BootSpec{Architecture: "aarch64", DeployImage: &lifecycle.DeployImage{ISO: "http://img/own.iso"}}
	registered(t, p, h2)
	if n := srv.MustNode("h2"); n.DriverInfo["deploy_iso"] != "http://img/own.iso" || n.DriverInfo["deploy_kernel"] != nil {
		t.Fatalf("own deploy image: driver_info %v", n.DriverInfo)
	}
	h3 := fakeSpecHost("h3")
	h3.Spec.Boot = lifecycle.BootSpec{Architecture: "x86_64"}
	registered(t, p, h3)
	if n := srv.MustNode("h3"); n.DriverInfo["deploy_kernel"] != nil {
		t.Fatalf("x86_64 without default: driver_info %v", n.DriverInfo)
	}
}

// After inspection, cpu_arch is set again on a host at rest whose cpu_arch
// was changed behind Terraform's back, never while it is inspecting; the
// spelling Ironic's inspection uses ("arm") is not a change.
func TestBootPatchArchAfterInspection(t *testing.T) {
	now := time.Now()
	h := fakeSpecHost("h1")
	h.Spec.Boot.Architecture = "aarch64"
	n := nodesNode("h1", "available", "")
	n.InspectionFinishedAt = &now
	for _, c := range []struct {
		state lifecycle.State
		arch  string
		patch bool
	}{
		{lifecycle.StateAvailable, "x86_64", true},
		{lifecycle.StateProvisioned, "x86_64", true},
		{lifecycle.StateAvailable, "arm", false},
		{lifecycle.StateAvailable, "aarch64", false},
		{lifecycle.StateInspecting, "x86_64", false},
		{lifecycle.StateRegistering, "x86_64", false},
	} {
		h.Status.State = c.state
		n.Properties = map[string]any{"cpu_arch": c.arch}
		patch, err := bootPatch(h, &n, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/cpu_arch", Value: "aarch64"}}
		if got := len(patch) > 0; got != c.patch || (got && patch[0] != want[0]) {
			t.Errorf("%s with cpu_arch %s: patch %v", c.state, c.arch, patch)
		}
	}
}

// While Ironic inspects a node, its inspect interface saves what it found
// (properties.cpu_arch) before the move to manageable sets
// inspection_finished_at: a pass that reads the node in between must not
// write the configured architecture over the inspected one, or the
// mismatch Inspect reports is lost (seen in CI: an x86_64 host that was
// aarch64 went on to clean with the wrong ramdisk).
func TestBootPatchArchNotDuringInspection(t *testing.T) {
	h := fakeSpecHost("h1")
	h.Spec.Boot.Architecture = "x86_64"
	h.Status.State = lifecycle.StateInspecting
	for _, ps := range []string{"inspecting", "inspect wait"} {
		n := nodesNode("h1", ps, "")
		n.Properties = map[string]any{"cpu_arch": "aarch64"}
		patch, err := bootPatch(h, &n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(patch) != 0 {
			t.Errorf("node %s with inspected cpu_arch aarch64, not finished: patch %v, want none", ps, patch)
		}
	}
	// Before inspection starts the configured architecture is written.
	n := nodesNode("h1", "manageable", "")
	n.Properties = map[string]any{"cpu_arch": "aarch64"}
	if patch, _ := bootPatch(h, &n, nil); len(patch) != 1 {
		t.Errorf("manageable node before inspection: patch %v, want cpu_arch", patch)
	}
}
