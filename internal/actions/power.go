package actions

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The power actions: baremetal_host_reboot, baremetal_host_power and
// baremetal_host_boot_once.

const powerTimeout = 20 * time.Minute

const powerRefusals = " Refused while Ironic is moving the host (inspecting, cleaning, deploying, ...) and on a host " +
	"that is not available, manageable or provisioned; the error names the host, its state, the verb and Ironic's `last_error`."

type rebootModel struct {
	hostModel
	Mode types.String `tfsdk:"mode"`
}

// newRebootAction is baremetal_host_reboot.
func newRebootAction() action.Action {
	return &hostAction[rebootModel]{
		typeName: "_host_reboot",
		timeout:  powerTimeout,
		description: "Reboots a powered-on host in place, as the `reboot_trigger` of `baremetal_host` (the Bare Metal Operator's " +
			"`reboot.metal3.io` annotation) does, without a change to the configuration: `terraform apply -invoke=action.baremetal_host_reboot.<name>`, " +
			"or from a resource's `lifecycle.action_trigger`. Soft: Ironic's soft power off (hard when that fails or times out), then power on; " +
			"hard: power off, then on. A host whose power off is disabled (`disable_power_off`) is rebooted with Ironic's reboot verb instead " +
			"(`soft rebooting`, `rebooting`) and never goes off. The host keeps its provisioning state and ends powered on; nothing in any " +
			"Terraform state changes. A powered-off host has nothing to reboot and is refused." + powerRefusals + " Terraform 1.14 and later.",
		attributes: map[string]schema.Attribute{
			"mode": modeAttribute("`soft` (default): the operating system is asked to shut down first; `hard`: the power is cut."),
		},
		what: func(m rebootModel) string { return "Rebooting host " + m.HostID.ValueString() },
		verb: run(func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest, m rebootModel) error {
			return c.Machine.RebootHost(ctx, req, powerMode(m.Mode, lifecycle.PowerSoft))
		}),
	}
}

type powerModel struct {
	hostModel
	Power types.String `tfsdk:"power"`
	Mode  types.String `tfsdk:"mode"`
}

// newPowerAction is baremetal_host_power.
func newPowerAction() action.Action {
	return &hostAction[powerModel]{
		typeName: "_host_power",
		timeout:  powerTimeout,
		description: "Powers a host on or off, or cycles it (off, then on), for hosts whose power no `baremetal_host` keeps. " +
			"A `baremetal_host` keeps the power of its host at `online` (default false) until the host is deployed, and of a deployed host " +
			"only when `online` is set; it records that on the Ironic node (`extra." + lifecycle.OnlineSettingKey + "`), and a power change that would " +
			"contradict it is refused (the host's next apply would undo it: change `online` instead). A host whose `baremetal_host` was last " +
			"applied by a provider version before this action carries no record and is not checked. Powering off a host whose power off is " +
			"disabled (`disable_power_off`) is refused; cycling it uses Ironic's reboot verb." + powerRefusals + " Terraform 1.14 and later.",
		attributes: map[string]schema.Attribute{
			"power": requiredChoice("`on`, `off`, or `cycle` (off, then on; a host that is off is powered on).", "on", "off", "cycle"),
			"mode": modeAttribute("How the power goes off for `off` and `cycle`: `soft` (Ironic's soft power off, hard when that fails or times out) " +
				"or `hard`. Default `soft` for `off`, `hard` for `cycle`. Ignored for `on`."),
		},
		what: func(m powerModel) string {
			return "Power " + m.Power.ValueString() + " of host " + m.HostID.ValueString()
		},
		verb: run(func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest, m powerModel) error {
			op := lifecycle.PowerOp(m.Power.ValueString())
			def := lifecycle.PowerSoft
			if op == lifecycle.PowerOpCycle {
				def = lifecycle.PowerHard
			}
			return c.Machine.SetHostPower(ctx, req, op, powerMode(m.Mode, def))
		}),
	}
}

type bootOnceModel struct {
	hostModel
	Device types.String `tfsdk:"device"`
	Mode   types.String `tfsdk:"mode"`
}

// newBootOnceAction is baremetal_host_boot_once.
func newBootOnceAction() action.Action {
	return &hostAction[bootOnceModel]{
		typeName: "_host_boot_once",
		timeout:  powerTimeout,
		description: "Boots a host once from a device: sets Ironic's boot device (not persistent: the boot after this one is the usual one), " +
			"then reboots the host as `baremetal_host_reboot` does, or powers it on when it is off (refused when its `baremetal_host` keeps it " +
			"off, `online = false`)." + powerRefusals + " Terraform 1.14 and later.",
		attributes: map[string]schema.Attribute{
			"device": requiredChoice("`pxe` (network boot), `cd` (the virtual or physical CD, Ironic's `cdrom`) or `disk`.",
				"pxe", "cd", "disk"),
			"mode": modeAttribute("How the host reboots when it is on: `soft` (default) or `hard`, as `baremetal_host_reboot`."),
		},
		what: func(m bootOnceModel) string {
			return "Booting host " + m.HostID.ValueString() + " from " + m.Device.ValueString()
		},
		verb: run(func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest, m bootOnceModel) error {
			return c.Machine.BootHostOnce(ctx, req, m.Device.ValueString(), powerMode(m.Mode, lifecycle.PowerSoft))
		}),
	}
}
