package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// MicroversionNetworkData is the first Ironic API with the node's
// network_data field.
const MicroversionNetworkData = 66

// syncBoot brings what the node's agent ramdisk boots with in line with
// h.Spec.Boot (BMO configureNode and the preprovisioning network data):
// network_data, properties.cpu_arch (before inspection only: inspection
// writes what it found, which Inspect compares), and the deploy image's
// driver_info keys. ok is false when the caller must return res.
func (p *Provisioner) syncBoot(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (*nodes.Node, lifecycle.Result, bool, error) {
	b := h.Spec.Boot
	if b.NetworkData != "" && !p.microversionAtLeast(1, MicroversionNetworkData) {
		return node, failed("", node.ProvisionState, fmt.Sprintf(
			"preprovisioning_network_data needs Ironic API 1.%d (the node's network_data), this Ironic speaks %s",
			MicroversionNetworkData, p.sc.Microversion)), false, nil
	}
	patch, err := bootPatch(h, node)
	if err != nil {
		return node, lifecycle.Result{Verb: "update", ProvisionState: node.ProvisionState}, false, err
	}
	return p.update(ctx, h, node, "update", patch)
}

// bootPatch is the PATCH syncBoot sends.
func bootPatch(h *lifecycle.Host, node *nodes.Node) (nodes.UpdateOpts, error) {
	b := h.Spec.Boot
	var patch nodes.UpdateOpts
	if b.NetworkData != "" {
		var want map[string]any
		if err := json.Unmarshal([]byte(b.NetworkData), &want); err != nil {
			return nil, fmt.Errorf("preprovisioning_network_data: %w", err)
		}
		ironicNetworkData(want)
		if !reflect.DeepEqual(want, node.NetworkData) {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: "/network_data", Value: want})
		}
	}
	if b.Architecture != "" && node.InspectionFinishedAt == nil {
		if cur, _ := node.Properties["cpu_arch"].(string); cur != b.Architecture {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/cpu_arch", Value: b.Architecture})
		}
	}
	// The deploy image owns its driver_info keys only when set: without
	// it the node keeps whatever deploy image the BMC details or an
	// operator gave it.
	if b.DeployImage != nil {
		info := b.DeployImage.DriverInfo()
		keys := make([]string, 0, len(info))
		for k := range info {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			want := info[k]
			cur, has := node.DriverInfo[k]
			switch {
			case want == "" && has:
				patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/driver_info/" + k})
			case want != "" && cur != want:
				patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: "/driver_info/" + k, Value: want})
			}
		}
	}
	return patch, nil
}

// ironicNetworkData completes network_data.json as Ironic's schema wants
// it (baremetal_network_data renders what config drives take): links,
// networks and services present, and every network with a network_id
// (its id when it has none).
func ironicNetworkData(doc map[string]any) {
	for _, k := range []string{"links", "networks", "services"} {
		if doc[k] == nil {
			doc[k] = []any{}
		}
	}
	networks, _ := doc["networks"].([]any)
	for _, n := range networks {
		if m, ok := n.(map[string]any); ok && m["network_id"] == nil {
			m["network_id"] = m["id"]
		}
	}
}

// normArch names an architecture as Ironic's cpu_arch does (x86_64,
// aarch64), whatever spelling inspection used.
func normArch(a string) string {
	switch strings.ToLower(a) {
	case "x86_64", "amd64", "x86-64", "x64":
		return "x86_64"
	case "aarch64", "arm64", "arm", "arm-a64":
		return "aarch64"
	}
	return a
}

// archMismatch compares the architecture inspection wrote to the node's
// cpu_arch with the host's.
func archMismatch(h *lifecycle.Host, node *nodes.Node) string {
	if h.Spec.Boot.Architecture == "" {
		return ""
	}
	inspected, _ := node.Properties["cpu_arch"].(string)
	if normArch(inspected) == normArch(h.Spec.Boot.Architecture) {
		return ""
	}
	if normArch(inspected) != inspected {
		inspected = fmt.Sprintf("%s (Ironic's cpu_arch %q)", normArch(inspected), inspected)
	}
	return lifecycle.ArchMismatch(h.Spec.Boot.Architecture, inspected)
}
