package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

const inspectionDescription = "How the host is inspected on registration, as BMO's `inspectionMode`; it picks the node's inspect interface " +
	"(unless `interfaces.inspect` names one). " +
	"`enabled` (default): in-band inspection, the host boots the agent ramdisk, which reports its inventory: Ironic's `agent` " +
	"inspect interface, or `inspector` (ironic-inspector) on an Ironic that has no `agent` one; the inventory (CPUs, memory, " +
	"every disk and NIC with names, vendor) is stored in Ironic and read by `baremetal_hardware`. " +
	"`out-of-band`: the BMC is asked (`redfish`, `idrac-redfish`, `ilo` or `irmc` by driver, refused at plan time for `ipmi`): " +
	"Ironic stores CPUs, memory, `local_gb` and the NICs' MACs as ports, but no inventory. " +
	"`disabled`: no inspection (`no-inspect`); nothing is stored, and `boot_mac_address` is required. " +
	"`fake-hardware` nodes inspect with `fake` unless disabled. Takes effect on registration."

// inspectionValidator refuses, at plan time, an inspection mode the
// host's driver cannot do (out-of-band on ipmi).
type inspectionValidator struct{}

func (inspectionValidator) Description(context.Context) string {
	return "checks that the host's driver can inspect in the inspection mode asked for"
}

func (v inspectionValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (inspectionValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m hostModel
	if req.Config.Get(ctx, &m).HasError() || m.Inspection.IsUnknown() || m.Inspection.IsNull() || m.Driver.IsUnknown() {
		return
	}
	var ifaces map[string]string
	if m.Interfaces.IsUnknown() || m.Interfaces.ElementsAs(ctx, &ifaces, false).HasError() || ifaces["inspect"] != "" {
		return
	}
	driver := m.Driver.ValueString()
	if driver == "" && m.BMC != nil && !m.BMC.Address.IsUnknown() {
		d, err := bmcaddr.Parse(m.BMC.Address.ValueString())
		if err != nil {
			return // the address's own validator reports it
		}
		driver = d.Driver
	}
	if driver == "" {
		return
	}
	if _, err := lifecycle.InspectInterfaces(driver, lifecycle.InspectionMode(m.Inspection.ValueString())); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("inspection"), "Inspection mode not supported by this driver", err.Error())
	}
}
