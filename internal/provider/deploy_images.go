package provider

// The provider's deploy_images: a default agent ramdisk per architecture
// for hosts with an architecture and no deploy_image of their own (the
// Bare Metal Operator's per-architecture PreprovisioningImage).

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/resources"
)

// deployImagesAttribute is the schema: a map from architecture to a deploy
// image with the host's deploy_image arguments and checks.
func deployImagesAttribute() schema.MapNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for k, p := range resources.DeployImageParts() {
		attrs[k] = schema.StringAttribute{Optional: true, Description: p.Description, Validators: p.Validators}
	}
	archs := append([]string(nil), resources.Architectures...)
	sort.Strings(archs)
	return schema.MapNestedAttribute{
		Optional: true,
		Description: "Default deploy images (agent ramdisks) per architecture, the Bare Metal Operator's per-architecture " +
			"PreprovisioningImage: a `baremetal_host` with that `architecture` and no `deploy_image` of its own boots this one. " +
			"Keys are architectures (`x86_64`, `aarch64`, `ppc64le`, `s390x`); each value has the arguments of the host's " +
			"`deploy_image`: either `kernel` and `ramdisk`, or `iso`, and optionally `bootloader` and `kernel_params`. Hosts " +
			"without an `architecture`, or of an architecture not listed, boot the conductor's default. A host's `deploy_image` " +
			"(and its state) is not changed by these: the node's `driver_info` carries the default.",
		NestedObject: schema.NestedAttributeObject{
			Attributes: attrs,
			Validators: []validator.Object{resources.DeployImageForm()},
		},
		Validators: []validator.Map{mapvalidator.KeysAre(stringvalidator.OneOf(archs...))},
	}
}

// deployImages reads the attribute (unknown or null: none).
func deployImages(ctx context.Context, v basetypes.MapValue) (lifecycle.DefaultDeployImages, diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	var m map[string]resources.DeployImageModel
	diags := v.ElementsAs(ctx, &m, false)
	out := lifecycle.DefaultDeployImages{}
	for arch, d := range m {
		out[arch] = d.Spec()
	}
	return out, diags
}
