package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// The actions that move a host through states (baremetal_host_inspect,
// baremetal_host_steps) and baremetal_bmc_reset.

const provisionTimeout = 60 * time.Minute

// inspectAction is baremetal_host_inspect.
type inspectAction struct{ base }

type inspectModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *inspectAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_inspect"
}

func (a *inspectAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Inspects a host again (after a hardware change: new NICs, disks), as the `inspect_trigger` of `baremetal_host` " +
			"(the Bare Metal Operator's `inspect.metal3.io` annotation) does, without a change to the configuration: an available host goes " +
			"to manageable, is inspected and is made available again (`inspecting`, `preparing`, `available`, with Ironic's automated " +
			"cleaning); a manageable one is inspected from where it is and ends available too. Inspection takes a slot of the provider's " +
			"capacity gate (`max_concurrent_provisioning`), and waits for one. Refused on a deployed (`provisioned`) host, which inspection " +
			"would take down, and while Ironic is moving the host. The `baremetal_hardware` data source reads the new inventory. " +
			"Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"timeout": timeoutAttribute(provisionTimeout),
		},
	}
}

func (a *inspectAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m inspectModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	a.run(ctx, m.HostID, m.Timeout, provisionTimeout, resp, "Inspecting host "+m.HostID.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.Machine.InspectHost(ctx, req)
		})
}

// stepsAction is baremetal_host_steps.
type stepsAction struct{ base }

type stepsModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Steps   []stepModel  `tfsdk:"steps"`
	Timeout types.String `tfsdk:"timeout"`
}

type stepModel struct {
	Interface types.String `tfsdk:"interface"`
	Step      types.String `tfsdk:"step"`
	Args      types.String `tfsdk:"args"`
}

func (a *stepsAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_steps"
}

func (a *stepsAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Runs Ironic steps on a host, once: on an available or manageable host as manual clean steps (the host goes through " +
			"`preparing`, which takes a slot of the capacity gate, and ends available, after Ironic's automated cleaning), on a deployed " +
			"(`provisioned`) host as service steps (Ironic API 1.87 or later; the host stays provisioned and keeps running what it runs). " +
			"Refused on other states and while Ironic is moving the host. A step that fails fails the action with Ironic's `last_error`, " +
			"and the host is left as Ironic left it (`clean failed`, `service failed`: the next apply of its resources, or another run, " +
			"retries). Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"steps": schema.ListNestedAttribute{
				Required:    true,
				Description: "The steps, run in this order.",
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"interface": schema.StringAttribute{
						Required:    true,
						Description: "The driver interface the step belongs to: `bios`, `deploy`, `firmware`, `management`, `power`, `raid`, ...",
						Validators:  []validator.String{stepNameValidator()},
					},
					"step": schema.StringAttribute{
						Required:    true,
						Description: "The step's name, as Ironic lists it for the node (e.g. `erase_devices_metadata`, `apply_configuration`).",
						Validators:  []validator.String{stepNameValidator()},
					},
					"args": schema.StringAttribute{
						Optional:    true,
						Description: "The step's arguments, a JSON object (`jsonencode({ ... })`); none when unset.",
						Validators:  []validator.String{jsonObjectValidator()},
					},
				}},
			},
			"timeout": timeoutAttribute(provisionTimeout),
		},
	}
}

func stepNameValidator() validator.String {
	return validators.New("an Ironic name: lower case letters, digits and _", func(s string) error {
		return lifecycle.ValidateManualSteps([]lifecycle.ManualStep{{Interface: s, Step: s}})
	})
}

func jsonObjectValidator() validator.String {
	return validators.New("a JSON object", func(s string) error {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
			return fmt.Errorf("%q is not a JSON object: write it with jsonencode({ ... })", s)
		}
		return nil
	})
}

func (a *stepsAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m stepsModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	steps := make([]lifecycle.ManualStep, 0, len(m.Steps))
	for i, s := range m.Steps {
		st := lifecycle.ManualStep{Interface: s.Interface.ValueString(), Step: s.Step.ValueString()}
		if raw := s.Args.ValueString(); raw != "" {
			if err := json.Unmarshal([]byte(raw), &st.Args); err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("steps").AtListIndex(i).AtName("args"), "Invalid step arguments", err.Error())
				return
			}
		}
		steps = append(steps, st)
	}
	a.run(ctx, m.HostID, m.Timeout, provisionTimeout, resp, "Running steps on host "+m.HostID.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.Machine.RunHostSteps(ctx, req, steps)
		})
}

// bmcResetAction is baremetal_bmc_reset.
type bmcResetAction struct{ base }

type bmcResetModel struct {
	HostID    types.String     `tfsdk:"host_id"`
	BMC       *tfglue.BMCModel `tfsdk:"bmc"`
	ResetType types.String     `tfsdk:"reset_type"`
	Timeout   types.String     `tfsdk:"timeout"`
}

const bmcResetTimeout = 15 * time.Minute

func (a *bmcResetAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_bmc_reset"
}

func (a *bmcResetAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Resets a host's BMC (a hung or misbehaving BMC): the Redfish `Manager.Reset` of the manager of the host's system, " +
			"then waits until the BMC answers again. The machine itself keeps running. Ironic masks the BMC password, so the action takes " +
			"the BMC's address and credentials again. Refused on a detached host and while Ironic is moving the host (a BMC that goes " +
			"away in the middle fails what Ironic does). Terraform 1.14 and later.",
		Attributes: map[string]schema.Attribute{
			"host_id": hostAttribute(),
			"bmc": schema.SingleNestedAttribute{
				Required:    true,
				Description: "The host's BMC, as in its `baremetal_host`.",
				Attributes: map[string]schema.Attribute{
					"address": schema.StringAttribute{
						Required:    true,
						Description: "The BMC's Redfish address (`redfish://`, `redfish+http(s)://`, `idrac-redfish://`, `ilo5-redfish://`, ...), naming the system.",
						Validators:  []validator.String{validators.RedfishBMCAddress()},
					},
					"username": schema.StringAttribute{Required: true, Description: "BMC user name."},
					"password": schema.StringAttribute{Required: true, Description: "BMC password. Action schemas cannot mark it sensitive: " +
						"pass it from a `sensitive` variable, so that Terraform does not print it with the action's configuration."},
					"disable_certificate_verification": schema.BoolAttribute{
						Optional: true, Description: "Skip TLS certificate verification of the BMC.",
					},
				},
			},
			"reset_type": schema.StringAttribute{
				Optional:    true,
				Description: "The Redfish ResetType: `GracefulRestart` (default) or `ForceRestart`.",
				Validators:  []validator.String{stringvalidator.OneOf("GracefulRestart", "ForceRestart")},
			},
			"timeout": timeoutAttribute(bmcResetTimeout),
		},
	}
}

func (a *bmcResetAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m bmcResetModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	access := m.BMC.Access(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if access == nil {
		resp.Diagnostics.AddAttributeError(path.Root("bmc"), "BMC not known", "The bmc address and password must be known when the action runs.")
		return
	}
	resetType := m.ResetType.ValueString()
	if resetType == "" {
		resetType = "GracefulRestart"
	}
	a.run(ctx, m.HostID, m.Timeout, bmcResetTimeout, resp, "Resetting the BMC of host "+m.HostID.ValueString(),
		func(ctx context.Context, req lifecycle.ActionRequest) error {
			return a.clients.ResetHostBMC(ctx, req, *access, resetType)
		})
}
