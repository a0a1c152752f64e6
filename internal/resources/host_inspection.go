package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

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

// checkInspection refuses, at plan time, an inspection mode the host's
// driver cannot do (out-of-band on ipmi).
func checkInspection(ctx context.Context, m *hostModel, diags *diag.Diagnostics) {
	if m.Inspection.IsUnknown() || m.Inspection.IsNull() || m.Driver.IsUnknown() {
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
		diags.AddAttributeError(path.Root("inspection"), "Inspection mode not supported by this driver", err.Error())
	}
}
