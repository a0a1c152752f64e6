package actions

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
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

// newInspectAction is baremetal_host_inspect.
func newInspectAction() action.Action {
	return &hostAction[hostModel]{
		typeName: "_host_inspect",
		timeout:  provisionTimeout,
		description: "Inspects a host again (after a hardware change: new NICs, disks), as the `inspect_trigger` of `baremetal_host` " +
			"(the Bare Metal Operator's `inspect.metal3.io` annotation) does, without a change to the configuration: an available host goes " +
			"to manageable, is inspected and is made available again (`inspecting`, `preparing`, `available`, with Ironic's automated " +
			"cleaning); a manageable one is inspected from where it is and ends available too. Inspection takes a slot of the provider's " +
			"capacity gate (`max_concurrent_provisioning`), and waits for one. Refused on a deployed (`provisioned`) host, which inspection " +
			"would take down, and while Ironic is moving the host. The `baremetal_hardware` data source reads the new inventory. " +
			"Terraform 1.14 and later.",
		what: func(m hostModel) string { return "Inspecting host " + m.HostID.ValueString() },
		verb: run(func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest, _ hostModel) error {
			return c.Machine.InspectHost(ctx, req)
		}),
	}
}

type stepsModel struct {
	hostModel
	Steps   []stepModel  `tfsdk:"steps"`
	Runbook types.String `tfsdk:"runbook"`
}

type stepModel struct {
	Interface types.String `tfsdk:"interface"`
	Step      types.String `tfsdk:"step"`
	Args      types.String `tfsdk:"args"`
}

// newStepsAction is baremetal_host_steps.
func newStepsAction() action.Action {
	return &hostAction[stepsModel]{
		typeName: "_host_steps",
		timeout:  provisionTimeout,
		what: func(m stepsModel) string {
			if rb := m.Runbook.ValueString(); rb != "" {
				return "Running runbook " + rb + " on host " + m.HostID.ValueString()
			}
			return "Running steps on host " + m.HostID.ValueString()
		},
		verb:       stepsVerb,
		check:      checkRunbookTrait,
		validators: []action.ConfigValidator{actionvalidator.ExactlyOneOf(path.MatchRoot("steps"), path.MatchRoot("runbook"))},
		description: "Runs Ironic steps on a host, once: on an available or manageable host as manual clean steps (the host goes through " +
			"`preparing`, which takes a slot of the capacity gate, and ends available, after Ironic's automated cleaning), on a deployed " +
			"(`provisioned`) host as service steps (Ironic API 1.87 or later; the host stays provisioned and keeps running what it runs). " +
			"Refused on other states and while Ironic is moving the host. A step that fails fails the action with Ironic's `last_error`, " +
			"and the host is left as Ironic left it (`clean failed`, `service failed`: the next apply of its resources, or another run, " +
			"retries). Instead of `steps`, `runbook` runs an Ironic runbook (`baremetal_runbook`, Ironic API 1.92 or later) by " +
			"name, the same way. Terraform 1.14 and later.",
		attributes: map[string]schema.Attribute{
			"runbook": schema.StringAttribute{
				Optional: true,
				Description: "The name (or UUID) of an Ironic runbook to run instead of `steps` (a `baremetal_runbook`'s " +
					"`name`). Ironic runs it only on a host whose traits include the runbook's name: with the host known at " +
					"plan, a host in Ironic without that trait is refused at plan, naming the trait to add to its " +
					"`baremetal_host`'s `traits` (apply that first). On a provisioned host Ironic runs a runbook through servicing " +
					"from API 1.108 on (the provider sends that one request at 1.108); Ironic 2025.1 (1.96) refuses it, so there it " +
					"is refused at plan: give `steps`, or run the runbook while the host is available.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"steps": schema.ListNestedAttribute{
				Optional:    true,
				Description: "The steps, run in this order (or `runbook`).",
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"interface": schema.StringAttribute{
						Required:    true,
						Description: "The driver interface the step belongs to: `bios`, `deploy`, `firmware`, `management`, `power`, `raid`, ...",
						Validators:  []validator.String{validators.StepInterface()},
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
		},
	}
}

func stepNameValidator() validator.String { return validators.StepName() }

func jsonObjectValidator() validator.String { return validators.StepArgs() }

// checkRunbookTrait refuses at plan a runbook on a known host that lacks
// the runbook's trait in Ironic, or that is provisioned on an Ironic that
// cannot service with a runbook (runbook and host known; a host not in
// Ironic yet is left to the apply).
func checkRunbookTrait(ctx context.Context, c *lifecycle.Clients, m stepsModel, diags *diag.Diagnostics) {
	rb, host := m.Runbook.ValueString(), m.HostID.ValueString()
	if rb == "" || host == "" {
		return
	}
	err := c.Machine.CheckHostRunbook(ctx, host, rb, c.API)
	var te *lifecycle.RunbookTraitError
	var se *lifecycle.RunbookServiceError
	switch {
	case errors.As(err, &te):
		diags.AddAttributeError(path.Root("runbook"), "Host "+te.Host+" lacks the trait "+rb, err.Error())
	case errors.As(err, &se):
		diags.AddAttributeError(path.Root("runbook"), "Runbook "+rb+" cannot service host "+se.Host+" on this Ironic", err.Error())
	case err != nil:
		diags.AddError("Checking host "+host+" for runbook "+rb, err.Error())
	}
}

// stepsVerb runs the configured steps, or the runbook, each step's args
// decoded first.
func stepsVerb(m stepsModel, diags *diag.Diagnostics) verb {
	if rb := m.Runbook.ValueString(); rb != "" {
		return func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest) error {
			return c.Machine.RunHostSteps(ctx, req, []lifecycle.ManualStep{{Runbook: rb}})
		}
	}
	steps := make([]lifecycle.ManualStep, 0, len(m.Steps))
	for i, s := range m.Steps {
		st := lifecycle.ManualStep{Interface: s.Interface.ValueString(), Step: s.Step.ValueString()}
		if raw := s.Args.ValueString(); raw != "" {
			if err := json.Unmarshal([]byte(raw), &st.Args); err != nil {
				diags.AddAttributeError(path.Root("steps").AtListIndex(i).AtName("args"), "Invalid step arguments", err.Error())
				return nil
			}
		}
		steps = append(steps, st)
	}
	return func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest) error {
		return c.Machine.RunHostSteps(ctx, req, steps)
	}
}

type bmcResetModel struct {
	hostModel
	BMC       *tfglue.BMCModel `tfsdk:"bmc"`
	ResetType types.String     `tfsdk:"reset_type"`
}

const bmcResetTimeout = 15 * time.Minute

// newBMCResetAction is baremetal_bmc_reset.
func newBMCResetAction() action.Action {
	return &hostAction[bmcResetModel]{
		typeName: "_bmc_reset",
		timeout:  bmcResetTimeout,
		what:     func(m bmcResetModel) string { return "Resetting the BMC of host " + m.HostID.ValueString() },
		verb:     bmcResetVerb,
		description: "Resets a host's BMC (a hung or misbehaving BMC): the Redfish `Manager.Reset` of the manager of the host's system, " +
			"then waits until the BMC answers again. The machine itself keeps running. Ironic masks the BMC password, so the action takes " +
			"the BMC's address and credentials again. Refused on a detached host and while Ironic is moving the host (a BMC that goes " +
			"away in the middle fails what Ironic does). Terraform 1.14 and later.",
		attributes: map[string]schema.Attribute{
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
			"reset_type": optionalChoice("The Redfish ResetType: `GracefulRestart` (default) or `ForceRestart`.",
				"GracefulRestart", "ForceRestart"),
		},
	}
}

// bmcResetVerb resets the BMC the configuration names (its address and
// password known), GracefulRestart unless reset_type says otherwise.
func bmcResetVerb(m bmcResetModel, diags *diag.Diagnostics) verb {
	access := m.BMC.Access(diags)
	if diags.HasError() {
		return nil
	}
	if access == nil {
		diags.AddAttributeError(path.Root("bmc"), "BMC not known", "The bmc address and password must be known when the action runs.")
		return nil
	}
	resetType := m.ResetType.ValueString()
	if resetType == "" {
		resetType = "GracefulRestart"
	}
	return func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest) error {
		return c.ResetHostBMC(ctx, req, *access, resetType)
	}
}
