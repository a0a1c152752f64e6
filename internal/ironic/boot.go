package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// syncBoot brings what the node's agent ramdisk boots with in line with
// h.Spec.Boot (BMO configureNode and the preprovisioning network data):
// network_data, properties.cpu_arch (before inspection only: inspection
// writes what it found, which Inspect compares), and the deploy image's
// driver_info keys. ok is false when the caller must return res.
func (p *Provisioner) syncBoot(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (*nodes.Node, lifecycle.Result, bool, error) {
	b := h.Spec.Boot
	if err := p.api().Require(lifecycle.FeatureNetworkData, "preprovisioning_network_data"); b.NetworkData != "" && err != nil {
		return node, failed("", node.ProvisionState, err.Error()), false, nil
	}
	patch, err := bootPatch(h, node, p.deployImages)
	if err != nil {
		return node, lifecycle.Result{Verb: "update", ProvisionState: node.ProvisionState}, false, err
	}
	return p.update(ctx, h, node, "update", patch)
}

// archSettable: cpu_arch is set before inspection, and again on a host
// at rest after it (available, provisioned, externally provisioned),
// whose inspection was already compared with its architecture: there a
// cpu_arch that differs was changed behind Terraform's back. Never while
// inspecting, where it is what Inspect compares, and never while Ironic's
// node is inspecting: the inspect interface saves the cpu_arch it found
// before the move to manageable sets inspection_finished_at.
func archSettable(h *lifecycle.Host, node *nodes.Node) bool {
	if node.ProvisionState == psInspecting || node.ProvisionState == psInspectWait {
		return false
	}
	switch h.Status.State {
	case lifecycle.StateAvailable, lifecycle.StateProvisioned, lifecycle.StateExternallyProvisioned:
		return true
	}
	return node.InspectionFinishedAt == nil
}

// bootPatch is the PATCH syncBoot sends (the host's deploy image, else
// the default of its architecture).
func bootPatch(h *lifecycle.Host, node *nodes.Node, defaults lifecycle.DefaultDeployImages) (nodes.UpdateOpts, error) {
	b := h.Spec.Boot.WithDefaults(defaults)
	var patch nodes.UpdateOpts
	if b.NetworkData != "" {
		var want map[string]any
		if err := json.Unmarshal([]byte(b.NetworkData), &want); err != nil {
			return nil, fmt.Errorf("preprovisioning_network_data: %w", err)
		}
		lifecycle.CompleteNetworkData(want)
		if !reflect.DeepEqual(want, node.NetworkData) {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: "/network_data", Value: want})
		}
	}
	if b.Architecture != "" && archSettable(h, node) {
		if cur, _ := node.Properties["cpu_arch"].(string); lifecycle.NormArch(cur) != b.Architecture {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/cpu_arch", Value: b.Architecture})
		}
	}
	// The deploy image owns its driver_info keys only when set: without
	// it the node keeps whatever deploy image the BMC details or an
	// operator gave it.
	if b.DeployImage != nil {
		want := map[string]any{}
		for k, v := range b.DeployImage.DriverInfo() {
			want[k] = nil // an argument left out: its key goes
			if v != "" {
				want[k] = v
			}
		}
		patch = append(patch, mapPatch("/driver_info/", node.DriverInfo, want)...)
	}
	return patch, nil
}

// WithDeployImages gives the provider's deploy images per architecture:
// a host with an architecture and no deploy image of its own boots the one
// of its architecture (lifecycle.BootSpec.WithDefaults).
func WithDeployImages(d lifecycle.DefaultDeployImages) Option {
	return func(p *Provisioner) { p.deployImages = d }
}

// withoutDeployImage is driver_info without the deploy image's keys,
// which Observation.Boot.DeployImage carries: an import reads them into
// deploy_image, not into driver_info as well.
func withoutDeployImage(info map[string]string) map[string]string {
	if !lifecycle.DeployImageOf(info).Complete() {
		// Parts of a deploy image (a kernel without its ramdisk, kernel
		// parameters alone) are no deploy_image an import could write:
		// they stay in driver_info.
		return info
	}
	for k := range (&lifecycle.DeployImage{}).DriverInfo() {
		delete(info, k)
	}
	return info
}

// observedBoot reads the node's boot settings back (drift).
func observedBoot(n *nodes.Node) lifecycle.BootObservation {
	b := lifecycle.BootObservation{DeployImage: lifecycle.DeployImageOf(visibleDriverInfo(n.DriverInfo))}
	if len(n.NetworkData) > 0 {
		b.NetworkData = n.NetworkData
	}
	if a, _ := n.Properties["cpu_arch"].(string); a != "" {
		b.Architecture = lifecycle.NormArch(a)
	}
	return b
}

// archMismatch compares the architecture inspection wrote to the node's
// cpu_arch with the host's.
func archMismatch(h *lifecycle.Host, node *nodes.Node) string {
	if h.Spec.Boot.Architecture == "" {
		return ""
	}
	inspected, _ := node.Properties["cpu_arch"].(string)
	if lifecycle.NormArch(inspected) == lifecycle.NormArch(h.Spec.Boot.Architecture) {
		return ""
	}
	if lifecycle.NormArch(inspected) != inspected {
		inspected = fmt.Sprintf("%s (Ironic's cpu_arch %q)", lifecycle.NormArch(inspected), inspected)
	}
	return lifecycle.ArchMismatch(h.Spec.Boot.Architecture, inspected)
}
