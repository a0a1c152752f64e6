package resources

// deployment_oci.go owns baremetal_deployment's oci:// images: the
// write-only image.pull_secret_wo, read from the configuration at apply and
// sent to Ironic as instance_info.image_pull_secret, and the refusal of an
// oci:// image on an Ironic older than 2025.1, at plan when the provider can
// ask Ironic, else at apply before anything is written to the node.

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

var pullSecretPath = path.Root("image").AtName("pull_secret_wo")

// pullSecretFromConfig puts image.pull_secret_wo, in the form Ironic takes,
// into img. The diagnostics never quote the secret.
func pullSecretFromConfig(ctx context.Context, cfg tfsdk.Config, img *lifecycle.Image) diag.Diagnostics {
	var diags diag.Diagnostics
	if img == nil {
		return diags
	}
	var secret types.String
	diags.Append(cfg.GetAttribute(ctx, pullSecretPath, &secret)...)
	if diags.HasError() || secret.IsNull() || secret.IsUnknown() {
		return diags
	}
	host := validators.OCIHost(img.URL)
	if host == "" {
		diags.AddAttributeError(pullSecretPath, "Pull secret without an OCI image",
			"image.pull_secret_wo: a pull secret is only used with oci:// images; the image URL is "+img.URL+".")
		return diags
	}
	v, err := validators.PullSecretForIronic(host, secret.ValueString())
	if err != nil {
		diags.AddAttributeError(pullSecretPath, "Invalid image pull secret", "image.pull_secret_wo: "+err.Error()+".")
		return diags
	}
	img.PullSecret = v
	return diags
}

// apiVersions is what can tell Ironic's API maximum (nil: nothing can).
func (r *deploymentResource) apiVersions() lifecycle.APIVersions {
	if r.clients == nil {
		return nil
	}
	v, _ := r.clients.Catalog.(lifecycle.APIVersions)
	return v
}

// ociUnsupportedDiag reports a failed OCI check at image.url.
func ociUnsupportedDiag(diags *diag.Diagnostics, err error) {
	var old *lifecycle.OCIUnsupportedError
	if errors.As(err, &old) {
		diags.AddAttributeError(path.Root("image").AtName("url"), "Ironic too old for oci:// images", err.Error())
		return
	}
	diags.AddAttributeError(path.Root("image").AtName("url"), "Cannot check Ironic's OCI image support", err.Error())
}

// checkOCIAtPlan refuses a new oci:// image (a create, or an image change
// that replaces the deployment) when Ironic is too old for it. When Ironic
// cannot be asked now, the apply asks again before writing anything.
func (r *deploymentResource) checkOCIAtPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var planned, prior types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("image").AtName("url"), &planned)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("image").AtName("url"), &prior)...)
	}
	if resp.Diagnostics.HasError() || planned.IsNull() || planned.IsUnknown() || planned.Equal(prior) {
		return
	}
	err := lifecycle.CheckImageSupported(ctx, r.apiVersions(), &lifecycle.Image{URL: planned.ValueString()})
	var old *lifecycle.OCIUnsupportedError
	switch {
	case errors.As(err, &old):
		ociUnsupportedDiag(&resp.Diagnostics, err)
	case err != nil:
		resp.Diagnostics.AddAttributeWarning(path.Root("image").AtName("url"), "Cannot check Ironic's OCI image support now",
			err.Error()+" The apply checks again before it writes to the host.")
	}
}
