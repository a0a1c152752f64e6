package ironic

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TargetRAIDConfig is Ironic's target_raid_config for r (BMO raid.go):
// hardware volumes become logical disks; software volumes use controller
// "software" with the physical disks as hint maps. Sizes of 0 are "MAX".
func TargetRAIDConfig(r *lifecycle.RAIDConfig) map[string]any {
	disks := []map[string]any{}
	size := func(gb int) any {
		if gb <= 0 {
			return "MAX"
		}
		return gb
	}
	for _, v := range r.HardwareVolumes {
		d := map[string]any{"size_gb": size(v.SizeGigabytes), "raid_level": v.Level}
		if v.Name != "" {
			d["volume_name"] = v.Name
		}
		if v.Controller != "" {
			d["controller"] = v.Controller
		}
		if len(v.PhysicalDisks) > 0 {
			d["physical_disks"] = v.PhysicalDisks
		}
		if v.Rotational != nil {
			d["disk_type"] = "ssd"
			if *v.Rotational {
				d["disk_type"] = "hdd"
			}
		}
		if v.NumberOfPhysicalDisks > 0 {
			d["number_of_physical_disks"] = v.NumberOfPhysicalDisks
		}
		disks = append(disks, d)
	}
	for _, v := range r.SoftwareVolumes {
		d := map[string]any{"size_gb": size(v.SizeGigabytes), "raid_level": v.Level, "controller": "software"}
		if len(v.PhysicalDisks) > 0 {
			hints := make([]map[string]any, 0, len(v.PhysicalDisks))
			for i := range v.PhysicalDisks {
				hints = append(hints, RootDeviceHintMap(&v.PhysicalDisks[i]))
			}
			d["physical_disks"] = hints
		}
		disks = append(disks, d)
	}
	return map[string]any{"logical_disks": disks}
}

// raidSteps are the RAID clean steps (BMO BuildRAIDCleanSteps):
// delete_configuration, then for volumes create_configuration, with
// deploy.erase_devices_metadata between them for software RAID.
func raidSteps(r *lifecycle.RAIDConfig) []nodes.CleanStep {
	steps := []nodes.CleanStep{{Interface: nodes.InterfaceRAID, Step: "delete_configuration", Args: map[string]any{}}}
	switch {
	case len(r.SoftwareVolumes) > 0:
		steps = append(steps,
			nodes.CleanStep{Interface: nodes.InterfaceDeploy, Step: "erase_devices_metadata", Args: map[string]any{}},
			nodes.CleanStep{Interface: nodes.InterfaceRAID, Step: "create_configuration", Args: map[string]any{}})
	case len(r.HardwareVolumes) > 0:
		steps = append(steps, nodes.CleanStep{Interface: nodes.InterfaceRAID, Step: "create_configuration", Args: map[string]any{}})
	}
	return steps
}

// setTargetRAID PUTs the node's target_raid_config (BMO does it just
// before the manual clean). ok is false when the caller must return.
func (p *Provisioner) setTargetRAID(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, bool, error) {
	if !lifecycle.RAIDPending(h) {
		return lifecycle.Result{}, true, nil
	}
	cfg := TargetRAIDConfig(h.Spec.RAID)
	logInfo(ctx, "setting target RAID configuration", h, node, "clean")
	err := nodes.SetRAIDConfig(ctx, p.sc, node.UUID, rawRAIDConfig(cfg)).ExtractErr()
	switch {
	case err == nil:
		return lifecycle.Result{}, true, nil
	case isConflict(err):
		return p.continuing("clean", node.ProvisionState, p.fastPoll), false, nil
	default:
		return lifecycle.Result{Verb: "clean", ProvisionState: node.ProvisionState}, false,
			fmt.Errorf("set target RAID config of node %s: %s", node.UUID, ironicError(err))
	}
}

// rawRAIDConfig sends a prebuilt target_raid_config body.
type rawRAIDConfig map[string]any

func (r rawRAIDConfig) ToRAIDConfigMap() (map[string]any, error) { return r, nil }
