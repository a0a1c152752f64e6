package tfglue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// BMCModel is the `bmc` block of the resources and data sources that reach
// a host's BMC over Redfish themselves (firmware settings, firmware
// updates, the hardware and firmware data sources): Ironic masks the BMC
// password, so they take the credentials again. One model and one
// conversion to lifecycle.BMCAccess serve them all; the host's own bmc
// block (write-only password, credential check) is another.
type BMCModel struct {
	Address                        types.String `tfsdk:"address"`
	Username                       types.String `tfsdk:"username"`
	Password                       types.String `tfsdk:"password"`
	DisableCertificateVerification types.Bool   `tfsdk:"disable_certificate_verification"`
}

// BMCFromObject reads a bmc block held as an object (a model that must
// stand unknown blocks): nil when it is null or unknown.
func BMCFromObject(ctx context.Context, o types.Object, diags *diag.Diagnostics) *BMCModel {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	var b BMCModel
	if diags.Append(o.As(ctx, &b, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})...); diags.HasError() {
		return nil
	}
	return &b
}

// Access is the BMC access the block at the root attribute `bmc` gives:
// nil without a block, or while its address or password is unknown. An
// address that does not parse is an error on bmc.address.
func (b *BMCModel) Access(diags *diag.Diagnostics) *lifecycle.BMCAccess {
	if b == nil || b.Address.IsUnknown() || b.Password.IsUnknown() {
		return nil
	}
	addr, err := bmcaddr.Parse(b.Address.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("bmc").AtName("address"), "Invalid bmc.address", err.Error())
		return nil
	}
	a := addr.Access(b.Username.ValueString(), b.Password.ValueString(), b.DisableCertificateVerification.ValueBool())
	return &a
}
