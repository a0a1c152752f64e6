package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

const addressReplaceDoc = "Replaces the host when it changes, except while the host has not finished registering " +
	"(or its registration failed), or when an imported host's state does not hold it yet."

// addressDescription documents bmc.address and its replace rule.
const addressDescription = "BMC address, e.g. `redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1` or `ipmi://10.0.0.6:623`. " +
	"It can change in place while the host has not finished registering (`provisioning_state` `registering`) or when its " +
	"registration failed (`error_type` `registration error`), as the Bare Metal Operator allows: the node keeps its id and " +
	"gets the driver, interfaces and driver_info of the new address. Otherwise a change replaces the host (another BMC is " +
	"another machine). A create that failed leaves the host tainted, and Terraform replaces tainted resources: run " +
	"`terraform untaint` on it first to fix the address on the same node. A scheme whose Ironic hardware type (driver) the " +
	"Ironic in use does not enable (`GET /v1/drivers`, read once per run) is refused at plan on create and when the address " +
	"changes, naming the driver, the enabled hardware types and the generic Redfish scheme to use instead (`idrac-redfish://` " +
	"-> `redfish://`, `idrac-virtualmedia://` -> `redfish-virtualmedia://`)."

// replaceAddress is the plan modifier of bmc.address: see addressDescription.
func replaceAddress(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	replaceUnlessImported(ctx, req, resp)
	if !resp.RequiresReplace || req.State.Raw.IsNull() {
		return
	}
	var state, errType types.String
	if req.State.GetAttribute(ctx, path.Root("provisioning_state"), &state).HasError() ||
		req.State.GetAttribute(ctx, path.Root("error_type"), &errType).HasError() {
		return
	}
	if lifecycle.AddressChangeInPlace(lifecycle.State(state.ValueString()), lifecycle.ErrorType(errType.ValueString())) {
		resp.RequiresReplace = false
	}
}
