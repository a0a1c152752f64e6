package resources

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// What the host's agent ramdisk boots with (issue 25): its network data on
// networks without DHCP, its architecture, its deploy image.

// hostBootModel is embedded in hostModel.
type hostBootModel struct {
	PreprovisioningNetworkData types.String      `tfsdk:"preprovisioning_network_data"`
	Architecture               types.String      `tfsdk:"architecture"`
	DeployImage                *DeployImageModel `tfsdk:"deploy_image"`
}

// DeployImageModel is a deploy image's arguments: the host's deploy_image
// and each of the provider's deploy_images.
type DeployImageModel struct {
	Kernel       types.String `tfsdk:"kernel"`
	Ramdisk      types.String `tfsdk:"ramdisk"`
	ISO          types.String `tfsdk:"iso"`
	Bootloader   types.String `tfsdk:"bootloader"`
	KernelParams types.String `tfsdk:"kernel_params"`
}

// Architectures are the cpu_arch values architecture accepts.
var Architectures = []string{"x86_64", "aarch64", "ppc64le", "s390x"}

// addBootAttributes adds them to the host's schema.
func addBootAttributes(attrs map[string]schema.Attribute) {
	for k, v := range bootAttributes() {
		attrs[k] = v
	}
}

func bootAttributes() map[string]schema.Attribute {
	image := map[string]schema.Attribute{}
	for k, p := range DeployImageParts() {
		image[k] = schema.StringAttribute{Optional: true, Description: p.Description, Validators: p.Validators}
	}
	return map[string]schema.Attribute{
		"preprovisioning_network_data": schema.StringAttribute{
			Optional: true,
			Description: "OpenStack network_data.json for the agent ramdisk on networks without DHCP (routed or edge racks), " +
				"as a JSON object, e.g. `data.baremetal_network_data.x.json` (the Bare Metal Operator's preprovisioningNetworkDataName). " +
				"Written to the node's `network_data` (Ironic API 1.66 or later; an older Ironic is an error): virtual-media boot " +
				"(`redfish-virtualmedia://` and similar BMCs) puts it on the ISO, so the ramdisk configures its address from it for " +
				"inspection, cleaning and deployment. Without it, a virtual-media host on a network without DHCP never reaches Ironic and " +
				"waits in `clean wait` or `inspect wait` until Ironic's timeout. It is also the network data of a `baremetal_deployment` " +
				"on the host that gives no `network_data` of its own. Changes are made in place; removing it leaves the node's as it is. " +
				"Read back from the node: a change made behind Terraform's back shows in the plan.",
			Validators: []validator.String{validators.NetworkData()},
		},
		"architecture": schema.StringAttribute{
			Optional: true,
			Description: "CPU architecture: `x86_64`, `aarch64`, `ppc64le` or `s390x`. Set as the node's `properties.cpu_arch` before " +
				"inspection (as the Bare Metal Operator does); inspection finding another architecture is an error naming both. " +
				"Give an `aarch64` host a `deploy_image` of that architecture, or the provider a default one in `deploy_images`: " +
				"the conductor's default agent ramdisk is usually x86_64. Read back from the node's `cpu_arch` (Ironic's `arm` reads " +
				"as `aarch64`): a change made behind Terraform's back shows in the plan, and an apply sets it again.",
			Validators: []validator.String{stringvalidator.OneOf(Architectures...)},
		},
		"deploy_image": schema.SingleNestedAttribute{
			Optional: true,
			Description: "The agent ramdisk this host boots instead of the provider's `deploy_images` default for its `architecture`, " +
				"or the conductor's default (the Bare Metal Operator's " +
				"PreprovisioningImage or `DEPLOY_KERNEL_URL`/`DEPLOY_RAMDISK_URL`/`DEPLOY_ISO_URL`), e.g. one per architecture: either " +
				"`kernel` and `ramdisk`, or `iso`. Written to the node's `driver_info` (`deploy_kernel`, `deploy_ramdisk`, `deploy_iso`, " +
				"`bootloader`, `kernel_append_params`); removing an argument removes its key. Locations are http(s) URLs, or file:// URLs " +
				"of absolute paths on the conductor. Read back from `driver_info`: a change made behind Terraform's back shows in the plan.",
			Attributes: image,
			Validators: []validator.Object{DeployImageForm()},
		},
	}
}

// DeployImagePart is one argument of a deploy image: shared by the host's
// deploy_image and the provider's deploy_images, so both check the same.
type DeployImagePart struct {
	Description string
	Validators  []validator.String
}

// DeployImageParts are the arguments of a deploy image.
func DeployImageParts() map[string]DeployImagePart {
	sibling := func(n string) path.Expression { return path.MatchRelative().AtParent().AtName(n) }
	file := func(d string, also ...validator.String) DeployImagePart {
		return DeployImagePart{Description: d, Validators: append([]validator.String{validators.BootFile()}, also...)}
	}
	return map[string]DeployImagePart{
		"kernel":  file("Deploy kernel (`deploy_kernel`). Needs `ramdisk`.", stringvalidator.AlsoRequires(sibling("ramdisk"))),
		"ramdisk": file("Deploy ramdisk (`deploy_ramdisk`). Needs `kernel`.", stringvalidator.AlsoRequires(sibling("kernel"))),
		"iso": file("Deploy ISO (`deploy_iso`), instead of `kernel` and `ramdisk`.",
			stringvalidator.ConflictsWith(sibling("kernel"), sibling("ramdisk"))),
		"bootloader": file("UEFI bootloader, an EFI system partition image (`bootloader`), for virtual-media boot of `kernel` and `ramdisk`."),
		"kernel_params": {Description: "Kernel command line of the ramdisk (`kernel_append_params`); `%default%` stands for Ironic's own, " +
			"e.g. `%default% console=ttyAMA0`."},
	}
}

// DeployImageForm checks that a deploy image is kernel and ramdisk, or an ISO.
func DeployImageForm() validator.Object { return deployImageForm{} }

type deployImageForm struct{}

func (deployImageForm) Description(context.Context) string {
	return "either kernel and ramdisk, or iso"
}
func (v deployImageForm) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (deployImageForm) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	set := func(k string) bool { v := attrs[k]; return v != nil && !v.IsNull() }
	unknown := func(k string) bool { v := attrs[k]; return v != nil && v.IsUnknown() }
	if unknown("kernel") || unknown("ramdisk") || unknown("iso") {
		return
	}
	if !set("iso") && !(set("kernel") && set("ramdisk")) {
		resp.Diagnostics.AddAttributeError(req.Path, "Incomplete deploy image",
			req.Path.String()+" needs either kernel and ramdisk, or iso.")
	}
}

// bootSpec is the lifecycle form.
func (m *hostBootModel) bootSpec() lifecycle.BootSpec {
	b := lifecycle.BootSpec{
		NetworkData:  m.PreprovisioningNetworkData.ValueString(),
		Architecture: m.Architecture.ValueString(),
	}
	if d := m.DeployImage; d != nil {
		spec := d.Spec()
		b.DeployImage = &spec
	}
	return b
}

// Spec is the lifecycle form.
func (d DeployImageModel) Spec() lifecycle.DeployImage {
	return lifecycle.DeployImage{
		Kernel: d.Kernel.ValueString(), Ramdisk: d.Ramdisk.ValueString(), ISO: d.ISO.ValueString(),
		Bootloader: d.Bootloader.ValueString(), KernelParams: d.KernelParams.ValueString(),
	}
}

// readBoot reads the node's boot settings back into the arguments the
// user set, so a plan shows a change made behind Terraform's back; those
// never set stay null (inspection writes cpu_arch on every node, the
// provider's deploy_images fill driver_info). An import (imported) reads
// the network data and deploy image the node has, not the architecture,
// which inspection wrote whether or not anyone asked for one.
func (m *hostBootModel) readBoot(b lifecycle.BootObservation, imported bool) {
	if !m.PreprovisioningNetworkData.IsNull() || (imported && b.NetworkData != nil) {
		switch {
		case b.NetworkData == nil:
			m.PreprovisioningNetworkData = types.StringNull()
		case !lifecycle.SameNetworkData(m.PreprovisioningNetworkData.ValueString(), b.NetworkData):
			if raw, err := json.Marshal(b.NetworkData); err == nil {
				m.PreprovisioningNetworkData = types.StringValue(string(raw))
			}
		}
	}
	if !m.Architecture.IsNull() {
		m.Architecture = tfglue.NullableString(b.Architecture)
	}
	if m.DeployImage != nil || (imported && b.DeployImage.Complete()) {
		m.DeployImage = nil
		if d := b.DeployImage; d != nil {
			m.DeployImage = &DeployImageModel{Kernel: tfglue.NullableString(d.Kernel), Ramdisk: tfglue.NullableString(d.Ramdisk),
				ISO: tfglue.NullableString(d.ISO), Bootloader: tfglue.NullableString(d.Bootloader), KernelParams: tfglue.NullableString(d.KernelParams)}
		}
	}
}
