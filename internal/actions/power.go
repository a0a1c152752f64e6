package actions

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The power actions: baremetal_host_reboot, baremetal_host_power and
// baremetal_host_boot_once.

const powerTimeout = 20 * time.Minute

const powerRefusals = " Refused while Ironic is moving the host (inspecting, cleaning, deploying, ...) and on a host " +
	"that is not available, manageable or provisioned; the error names the host, its state, the verb and Ironic's `last_error`."

// rebootAction is baremetal_host_reboot.
type rebootAction struct{ base }

type rebootModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Mode    types.String `tfsdk:"mode"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *rebootAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_reboot"
}

func (a *rebootAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reboots a powered-on host in place, as the `reboot_trigger` of `baremetal_host` (the Bare Metal Operator's " +
			"`reboot.metal3.io` annotation) does, without a change to the configuration: `terraform apply -invoke=action.baremetal_host_reboot.<name>`, " +
			"or from a resource's `lifecycle.action_trigger`. Soft: Ironic's soft power off (hard when that fails or times out), then power on; " +
			"hard: power off, then on. A host whose power off is disabled (`disable_power_off`) is rebooted with Ironic's reboot verb instead " +
			"(`soft rebooting`, `rebooting`) and never goes off. The host keeps its provisioning state and ends powered on; nothing in any " +
			"Terraform state changes. A powered-off host has nothing to reboot and is refused." + powerRefusals + " Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"mode":    modeAttribute("`soft` (default): the operating system is asked to shut down first; `hard`: the power is cut."),
			"timeout": timeoutAttribute(powerTimeout),
		},
	}
}

func (a *rebootAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m rebootModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	a.run(ctx, m.HostID, m.Timeout, powerTimeout, resp, "Rebooting host "+m.HostID.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.Machine.RebootHost(ctx, req, powerMode(m.Mode, lifecycle.PowerSoft))
		})
}

// powerAction is baremetal_host_power.
type powerAction struct{ base }

type powerModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Power   types.String `tfsdk:"power"`
	Mode    types.String `tfsdk:"mode"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *powerAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_power"
}

func (a *powerAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Powers a host on or off, or cycles it (off, then on), for hosts whose power no `baremetal_host` keeps. " +
			"A `baremetal_host` keeps the power of its host at `online` (default false) until the host is deployed, and of a deployed host " +
			"only when `online` is set; it records that on the Ironic node (`extra." + lifecycle.OnlineSettingKey + "`), and a power change that would " +
			"contradict it is refused (the host's next apply would undo it: change `online` instead). A host whose `baremetal_host` was last " +
			"applied by a provider version before this action carries no record and is not checked. Powering off a host whose power off is " +
			"disabled (`disable_power_off`) is refused; cycling it uses Ironic's reboot verb." + powerRefusals + " Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"power": schema.StringAttribute{
				Required:    true,
				Description: "`on`, `off`, or `cycle` (off, then on; a host that is off is powered on).",
				Validators:  []validator.String{stringvalidator.OneOf("on", "off", "cycle")},
			},
			"mode": modeAttribute("How the power goes off for `off` and `cycle`: `soft` (Ironic's soft power off, hard when that fails or times out) " +
				"or `hard`. Default `soft` for `off`, `hard` for `cycle`. Ignored for `on`."),
			"timeout": timeoutAttribute(powerTimeout),
		},
	}
}

func (a *powerAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m powerModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	op := lifecycle.PowerOp(m.Power.ValueString())
	def := lifecycle.PowerSoft
	if op == lifecycle.PowerOpCycle {
		def = lifecycle.PowerHard
	}
	a.run(ctx, m.HostID, m.Timeout, powerTimeout, resp, "Power "+string(op)+" of host "+m.HostID.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.Machine.SetHostPower(ctx, req, op, powerMode(m.Mode, def))
		})
}

// bootOnceAction is baremetal_host_boot_once.
type bootOnceAction struct{ base }

type bootOnceModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Device  types.String `tfsdk:"device"`
	Mode    types.String `tfsdk:"mode"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *bootOnceAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_boot_once"
}

func (a *bootOnceAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Boots a host once from a device: sets Ironic's boot device (not persistent: the boot after this one is the usual one), " +
			"then reboots the host as `baremetal_host_reboot` does, or powers it on when it is off (refused when its `baremetal_host` keeps it " +
			"off, `online = false`)." + powerRefusals + " Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"device": schema.StringAttribute{
				Required:    true,
				Description: "`pxe` (network boot), `cd` (the virtual or physical CD, Ironic's `cdrom`) or `disk`.",
				Validators:  []validator.String{stringvalidator.OneOf("pxe", "cd", "disk")},
			},
			"mode":    modeAttribute("How the host reboots when it is on: `soft` (default) or `hard`, as `baremetal_host_reboot`."),
			"timeout": timeoutAttribute(powerTimeout),
		},
	}
}

func (a *bootOnceAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m bootOnceModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	a.run(ctx, m.HostID, m.Timeout, powerTimeout, resp, "Booting host "+m.HostID.ValueString()+" from "+m.Device.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.Machine.BootHostOnce(ctx, req, m.Device.ValueString(), powerMode(m.Mode, lifecycle.PowerSoft))
		})
}
