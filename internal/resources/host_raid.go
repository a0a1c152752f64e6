package resources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// raidModel is BMO's spec.raid on baremetal_host.
type raidModel struct {
	HardwareVolumes []hardwareVolumeModel `tfsdk:"hardware_volumes"`
	SoftwareVolumes []softwareVolumeModel `tfsdk:"software_volumes"`
}

type hardwareVolumeModel struct {
	SizeGigabytes         types.Int64  `tfsdk:"size_gigabytes"`
	Level                 types.String `tfsdk:"level"`
	Name                  types.String `tfsdk:"name"`
	Rotational            types.Bool   `tfsdk:"rotational"`
	NumberOfPhysicalDisks types.Int64  `tfsdk:"number_of_physical_disks"`
	Controller            types.String `tfsdk:"controller"`
	PhysicalDisks         types.List   `tfsdk:"physical_disks"`
}

type softwareVolumeModel struct {
	SizeGigabytes types.Int64      `tfsdk:"size_gigabytes"`
	Level         types.String     `tfsdk:"level"`
	PhysicalDisks []rootHintsModel `tfsdk:"physical_disks"`
}

func raidSchema() schema.SingleNestedAttribute {
	hints := rootDeviceHintsSchema("")
	// volumes is a list of volumes of one kind: their size, their level
	// (levels lists those the kind takes) and the kind's own attributes.
	volumes := func(desc, levels string, own map[string]schema.Attribute) schema.ListNestedAttribute {
		own["size_gigabytes"] = schema.Int64Attribute{Optional: true, Description: "Size in GiB; unset uses all the space left (Ironic's `MAX`)."}
		own["level"] = schema.StringAttribute{Required: true, Description: "RAID level: " + levels + "."}
		return schema.ListNestedAttribute{
			Optional: true, Description: desc,
			NestedObject: schema.NestedAttributeObject{Attributes: own},
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "RAID as in BMO's `spec.raid`, applied while the host is prepared: Ironic's `target_raid_config` is set " +
			"from it, and manual cleaning runs `raid.delete_configuration` then `raid.create_configuration` (with " +
			"`deploy.erase_devices_metadata` between them for software RAID) ahead of any BIOS step. An empty block " +
			"deletes the RAID configuration. Changing it on an available host prepares the host again; on a " +
			"provisioned host the plan fails (deprovision first). Checked at plan time: hardware and software volumes " +
			"are exclusive, levels are checked, sizes are positive, the first software volume is RAID-1, and the raid " +
			"interface must support the kind asked for.",
		Attributes: map[string]schema.Attribute{
			"hardware_volumes": volumes("Hardware RAID volumes (Ironic logical disks), built by the BMC's RAID controller.",
				"`0`, `1`, `2`, `5`, `6`, `1+0`, `5+0` or `6+0`", map[string]schema.Attribute{
					"name":       schema.StringAttribute{Optional: true, Description: "Volume name."},
					"rotational": schema.BoolAttribute{Optional: true, Description: "true: spinning disks (hdd); false: SSD; unset: any."},
					"number_of_physical_disks": schema.Int64Attribute{
						Optional: true, Description: "How many physical disks the volume uses.",
					},
					"controller": schema.StringAttribute{Optional: true, Description: "The RAID controller (required with `physical_disks`)."},
					"physical_disks": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						Description: "Names of the physical disks to use, as the controller names them.",
					},
				}),
			"software_volumes": volumes("Software RAID volumes (built by the agent ramdisk; the raid interface must be `agent`). "+
				"At most two; the first is RAID-1.", "`0`, `1` or `1+0`", map[string]schema.Attribute{
				"physical_disks": schema.ListNestedAttribute{
					Optional:     true,
					Description:  "The disks, each selected by root device hints.",
					NestedObject: schema.NestedAttributeObject{Attributes: hints.Attributes},
				},
			}),
		},
	}
}

// config is the lifecycle RAID configuration (nil without a raid block).
func (r *raidModel) config(ctx context.Context) *lifecycle.RAIDConfig {
	if r == nil {
		return nil
	}
	c := &lifecycle.RAIDConfig{}
	for _, v := range r.HardwareVolumes {
		hv := lifecycle.HardwareRAIDVolume{
			SizeGigabytes: int(v.SizeGigabytes.ValueInt64()), Level: v.Level.ValueString(), Name: v.Name.ValueString(),
			NumberOfPhysicalDisks: int(v.NumberOfPhysicalDisks.ValueInt64()), Controller: v.Controller.ValueString(),
		}
		if !v.Rotational.IsNull() && !v.Rotational.IsUnknown() {
			rot := v.Rotational.ValueBool()
			hv.Rotational = &rot
		}
		if !v.PhysicalDisks.IsNull() && !v.PhysicalDisks.IsUnknown() {
			_ = v.PhysicalDisks.ElementsAs(ctx, &hv.PhysicalDisks, false)
		}
		c.HardwareVolumes = append(c.HardwareVolumes, hv)
	}
	for _, v := range r.SoftwareVolumes {
		sv := lifecycle.SoftwareRAIDVolume{SizeGigabytes: int(v.SizeGigabytes.ValueInt64()), Level: v.Level.ValueString()}
		for i := range v.PhysicalDisks {
			if h := v.PhysicalDisks[i].hints(); h != nil {
				sv.PhysicalDisks = append(sv.PhysicalDisks, *h)
			} else {
				sv.PhysicalDisks = append(sv.PhysicalDisks, lifecycle.RootDeviceHints{})
			}
		}
		c.SoftwareVolumes = append(c.SoftwareVolumes, sv)
	}
	return c
}

// raidInterface is the host's raid interface as far as the configuration
// says: interfaces.raid, else the BMC address scheme's; "" when unknown.
func (m *hostModel) raidInterface(ctx context.Context) string {
	if !tfglue.Known(m.Interfaces) {
		return "" // interfaces.raid may name one
	}
	if !m.Interfaces.IsNull() {
		var ifaces map[string]string
		if m.Interfaces.ElementsAs(ctx, &ifaces, false) == nil && ifaces["raid"] != "" {
			return ifaces["raid"]
		}
	}
	if m.BMC != nil && !m.BMC.Address.IsUnknown() && !m.BMC.Address.IsNull() {
		if d, err := bmcaddr.Parse(m.BMC.Address.ValueString()); err == nil {
			return d.Access("", "", false).Interfaces["raid_interface"]
		}
	}
	return ""
}

// checkRAID checks the raid block at plan time (no Ironic needed). The
// caller runs it once the block is known: config reads an unknown level or
// controller as "".
func checkRAID(ctx context.Context, m *hostModel, diags *diag.Diagnostics) {
	if m.RAID == nil {
		return
	}
	for _, err := range lifecycle.ValidateRAID(m.RAID.config(ctx), m.raidInterface(ctx)) {
		diags.AddAttributeError(path.Root("raid"), "Invalid RAID configuration", err.Error())
	}
}

// checkRAIDChange refuses, at plan, a RAID change on a host that is
// deployed: the RAID is built while preparing, which would wipe the disks
// under the OS. A raid block not known yet is judged at apply, when the
// final plan knows it.
func checkRAIDChange(ctx context.Context, p tfsdk.Plan, plan, state *hostModel, diags *diag.Diagnostics) {
	if !tfglue.KnownAt(ctx, p, path.Root("raid")) {
		return
	}
	want := plan.RAID.config(ctx)
	if want == nil || lifecycle.RAIDEqual(want, state.RAID.config(ctx)) {
		return
	}
	switch st := lifecycle.State(state.ProvisioningState.ValueString()); st {
	case lifecycle.StateProvisioning, lifecycle.StateProvisioned, lifecycle.StateExternallyProvisioned:
		diags.AddAttributeError(path.Root("raid"), "RAID cannot change on a provisioned host",
			fmt.Sprintf("Host %q is %q: its RAID is built while it is prepared, which would wipe the disks of the running "+
				"system. Deprovision it first (destroy its baremetal_deployment), then change raid.", state.Name.ValueString(), st))
	}
}
