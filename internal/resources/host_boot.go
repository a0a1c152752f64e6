package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// What the host's agent ramdisk boots with (issue 25): its network data on
// networks without DHCP, its architecture, its deploy image.

// hostBootModel is embedded in hostModel.
type hostBootModel struct {
	PreprovisioningNetworkData types.String      `tfsdk:"preprovisioning_network_data"`
	Architecture               types.String      `tfsdk:"architecture"`
	DeployImage                *deployImageModel `tfsdk:"deploy_image"`
}

type deployImageModel struct {
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
	file := func(d string, also ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: d,
			Validators: append([]validator.String{validators.BootFile()}, also...)}
	}
	return map[string]schema.Attribute{
		"preprovisioning_network_data": schema.StringAttribute{
			Optional: true,
			Description: "OpenStack network_data.json for the agent ramdisk on networks without DHCP (routed or edge racks), " +
				"as a JSON object, e.g. `data.baremetal_network_data.x.json` (the Bare Metal Operator's preprovisioningNetworkDataName). " +
				"Written to the node's `network_data` (Ironic API 1.66 or later; an older Ironic is an error): virtual-media boot " +
				"(`redfish-virtualmedia://` and similar BMCs) puts it on the ISO, so the ramdisk configures its address from it for " +
				"inspection, cleaning and deployment. Without it, a virtual-media host on a network without DHCP never reaches Ironic and " +
				"waits in `clean wait` or `inspect wait` until Ironic's timeout. Changes are made in place; removing it leaves the node's as it is.",
			Validators: []validator.String{validators.NetworkData()},
		},
		"architecture": schema.StringAttribute{
			Optional: true,
			Description: "CPU architecture: `x86_64`, `aarch64`, `ppc64le` or `s390x`. Set as the node's `properties.cpu_arch` before " +
				"inspection (as the Bare Metal Operator does); inspection finding another architecture is an error naming both. " +
				"Give an `aarch64` host a `deploy_image` of that architecture: the conductor's default agent ramdisk is usually x86_64.",
			Validators: []validator.String{stringvalidator.OneOf(Architectures...)},
		},
		"deploy_image": schema.SingleNestedAttribute{
			Optional: true,
			Description: "The agent ramdisk this host boots instead of the conductor's default (the Bare Metal Operator's " +
				"PreprovisioningImage or `DEPLOY_KERNEL_URL`/`DEPLOY_RAMDISK_URL`/`DEPLOY_ISO_URL`), e.g. one per architecture: either " +
				"`kernel` and `ramdisk`, or `iso`. Written to the node's `driver_info` (`deploy_kernel`, `deploy_ramdisk`, `deploy_iso`, " +
				"`bootloader`, `kernel_append_params`); removing an argument removes its key. Locations are http(s) URLs, or file:// URLs " +
				"of absolute paths on the conductor.",
			Attributes: map[string]schema.Attribute{
				"kernel":  file("Deploy kernel (`deploy_kernel`). Needs `ramdisk`.", stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("ramdisk"))),
				"ramdisk": file("Deploy ramdisk (`deploy_ramdisk`). Needs `kernel`.", stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("kernel"))),
				"iso": file("Deploy ISO (`deploy_iso`), instead of `kernel` and `ramdisk`.",
					stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("kernel"), path.MatchRelative().AtParent().AtName("ramdisk"))),
				"bootloader": file("UEFI bootloader, an EFI system partition image (`bootloader`), for virtual-media boot of `kernel` and `ramdisk`."),
				"kernel_params": schema.StringAttribute{
					Optional: true,
					Description: "Kernel command line of the ramdisk (`kernel_append_params`); `%default%` stands for Ironic's own, " +
						"e.g. `%default% console=ttyAMA0`.",
				},
			},
			Validators: []validator.Object{deployImageForm{}},
		},
	}
}

// deployImageForm: a deploy image is kernel and ramdisk, or an ISO.
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
			"deploy_image needs either kernel and ramdisk, or iso.")
	}
}

// bootSpec is the lifecycle form.
func (m *hostBootModel) bootSpec() lifecycle.BootSpec {
	b := lifecycle.BootSpec{
		NetworkData:  m.PreprovisioningNetworkData.ValueString(),
		Architecture: m.Architecture.ValueString(),
	}
	if d := m.DeployImage; d != nil {
		b.DeployImage = &lifecycle.DeployImage{
			Kernel: d.Kernel.ValueString(), Ramdisk: d.Ramdisk.ValueString(), ISO: d.ISO.ValueString(),
			Bootloader: d.Bootloader.ValueString(), KernelParams: d.KernelParams.ValueString(),
		}
	}
	return b
}
