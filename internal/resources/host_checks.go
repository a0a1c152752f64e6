package resources

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// rootDeviceHintsSchema is the typed root_device_hints block, shared by
// hosts and deployments.
func rootDeviceHintsSchema(desc string) schema.SingleNestedAttribute {
	str := func(d string) schema.StringAttribute { return schema.StringAttribute{Optional: true, Description: d} }
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: desc,
		Attributes: map[string]schema.Attribute{
			"device_name": str("Linux device name (`/dev/sda`) or by-path name (`/dev/disk/by-path/...`)."),
			"hctl": schema.StringAttribute{Optional: true, Description: "SCSI address, `host:channel:target:lun` (four numbers).",
				Validators: []validator.String{validators.HCTL()}},
			"model":         str("Disk model; matches when the device's model contains it."),
			"vendor":        str("Disk vendor; matches when the device's vendor contains it."),
			"serial_number": str("Disk serial number."),
			"min_size_gigabytes": schema.Int64Attribute{Optional: true, Description: "Smallest acceptable disk size in GiB (at least 1).",
				Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"wwn":                  str("World Wide Name."),
			"wwn_with_extension":   str("World Wide Name with vendor extension."),
			"wwn_vendor_extension": str("WWN vendor extension."),
			"rotational":           schema.BoolAttribute{Optional: true, Description: "true for spinning disks, false for SSD/NVMe."},
		},
	}
}

// ironicInterfaces are the hardware interfaces a host may override.
var ironicInterfaces = []string{"bios", "boot", "console", "deploy", "firmware", "inspect", "management", "network", "power", "raid", "rescue", "storage", "vendor"}

// requiresReplaceOnceSet replaces the resource when a value that was set
// changes (setting it the first time is made in place).
func requiresReplaceOnceSet(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull() && req.StateValue.ValueString() != ""
}

// An import cannot read back a host's bmc.address, driver and interfaces
// (Ironic stores driver_info, not the BMC address, nor whether the driver
// came from the address), so they are null in the imported state; a
// configuration that sets them must not replace (delete and re-register)
// the host it just imported (replaceUnlessImported, see imported.go).
const replaceUnlessImportedDoc = "Replaces the host when it changes, except on an imported host before its first update (the change is adopted in place)."

// ValidateConfig checks, at plan time and without Ironic, what needs
// several attributes at once. The configuration is read into the model once
// for all the checks: a plan validates every host of the fleet, and each
// read walks the whole schema. Values not known yet are skipped (see
// tfglue.Known): Terraform validates again once they are.
func (r *hostResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m hostModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkReach(&m, tfglue.KnownAt(ctx, req.Config, path.Root("bmc")), &resp.Diagnostics)
	if tfglue.KnownAt(ctx, req.Config, path.Root("raid")) {
		checkRAID(ctx, &m, &resp.Diagnostics)
	}
	checkInspection(ctx, &m, &resp.Diagnostics)
	m.checkLLDPInspection(ctx, &resp.Diagnostics)
	m.checkPortGroupMembers(&resp.Diagnostics)
}

// checkReach checks a way to reach the host, the credentials and the MAC
// rules. bmcKnown is false while the bmc block is not known (m.BMC is then
// nil, or has unknown attributes).
func checkReach(m *hostModel, bmcKnown bool, diags *diag.Diagnostics) {
	if m.BMC == nil && m.Driver.IsNull() && bmcKnown {
		diags.AddAttributeError(path.Root("bmc"), "Missing BMC",
			"Set bmc (an address and credentials) or driver with driver_info, so that Ironic can reach the host.")
		return
	}
	mac := m.BootMACAddress
	macMissing := mac.IsNull() || (!mac.IsUnknown() && mac.ValueString() == "")
	if b := m.BMC; b != nil && !b.Address.IsUnknown() {
		d, err := bmcaddr.Parse(b.Address.ValueString())
		if err == nil && !d.SupportsSecureBoot && m.Driver.IsNull() &&
			m.BootMode.ValueString() == string(lifecycle.BootModeUEFISecureBoot) {
			diags.AddAttributeError(path.Root("boot_mode"), "Secure boot not supported by this BMC",
				fmt.Sprintf("boot_mode = %q: BMC address type %q cannot do secure boot (the Bare Metal Operator refuses it). "+
					"Use a Redfish address, such as redfish-virtualmedia://, or boot_mode = \"UEFI\".", lifecycle.BootModeUEFISecureBoot, d.Type))
		}
		if err == nil && d.NeedsMAC && macMissing {
			diags.AddAttributeError(path.Root("boot_mac_address"), "Missing boot_mac_address",
				fmt.Sprintf("BMC address type %q needs boot_mac_address.", d.Type))
		}
		if b.Password.IsNull() && b.PasswordWO.IsNull() && !b.Password.IsUnknown() && !b.PasswordWO.IsUnknown() {
			diags.AddAttributeError(path.Root("bmc").AtName("password"), "Missing BMC password", "Set bmc.password or bmc.password_wo.")
		}
		if !b.Password.IsNull() && !b.PasswordWO.IsNull() {
			diags.AddAttributeError(path.Root("bmc").AtName("password_wo"), "Conflicting BMC passwords", "Set either bmc.password or bmc.password_wo, not both.")
		}
		if !b.PasswordWO.IsNull() && b.PasswordWOVersion.IsNull() {
			diags.AddAttributeError(path.Root("bmc").AtName("password_wo_version"), "Missing password_wo_version",
				"bmc.password_wo needs bmc.password_wo_version, which tells the provider when to send it again.")
		}
	}
	if !m.DriverSecretsWO.IsNull() && !m.DriverSecrets.IsNull() {
		diags.AddAttributeError(path.Root("driver_secrets_wo"), "Conflicting driver secrets",
			"Set either driver_secrets or driver_secrets_wo, not both.")
	}
	if !m.DriverSecretsWO.IsNull() && m.DriverSecretsWOVer.IsNull() {
		diags.AddAttributeError(path.Root("driver_secrets_wo_version"), "Missing driver_secrets_wo_version",
			"driver_secrets_wo needs driver_secrets_wo_version, which tells the provider when to send the secrets again.")
	}
	if m.Inspection.ValueString() == "disabled" && macMissing {
		diags.AddAttributeError(path.Root("boot_mac_address"), "Missing boot_mac_address",
			"inspection = \"disabled\" needs boot_mac_address: without inspection Ironic learns no NIC.")
	}
}

// preflight checks the BMC before the host is registered, where the
// provider can (Redfish-family addresses, check_credentials on); false,
// with the BMC's answer reported on bmcCheckPath, when the check fails.
func (r *hostResource) preflight(ctx context.Context, m *hostModel, access lifecycle.BMCAccess, diags *diag.Diagnostics) bool {
	if m.BMC == nil || !m.BMC.CheckCredentials.ValueBool() || r.clients.CheckBMC == nil {
		return true
	}
	tflog.Debug(ctx, "checking BMC credentials", map[string]any{"bmc": bmcaddr.Redact(access.Address)})
	if err := r.clients.CheckBMC(ctx, access); err != nil {
		diags.AddAttributeError(bmcCheckPath, "BMC check failed", err.Error())
		return false
	}
	return true
}

func isNotRegistered(err error) bool { return errors.Is(err, lifecycle.ErrNotRegistered) }

// bmcCheckPath is where a failed BMC check is reported: the address, not
// the bmc block, whose source Terraform would print with the error, a
// literal password included.
var bmcCheckPath = path.Root("bmc").AtName("address")
