package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// firmwareSettingsResource is BMO's HostFirmwareSettings: BIOS settings
// validated against the host's schema and applied by Ironic's
// bios.apply_configuration step, in a manual clean on an available host
// (preparing) or a service on a provisioned one (servicing, API 1.87+).
type firmwareSettingsResource struct{ base }

func (r *firmwareSettingsResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optBool := func(desc string) schema.BoolAttribute { return schema.BoolAttribute{Optional: true, Description: desc} }
	resp.Schema = schema.Schema{
		// The state 0.1.0 writes. A change that such states no longer decode
		// into bumps it, with an upgrader (see internal/provider's
		// TestStateV0StillDecodes).
		Version: 0,
		Description: "The BIOS settings of one `baremetal_host`, as the Metal3 Bare Metal Operator's HostFirmwareSettings: " +
			"validated against the host's BIOS schema (Ironic's registry, else the BMC's Redfish AttributeRegistry) before " +
			"anything is sent, at plan time when the host exists, and applied as Ironic's `bios.apply_configuration` step " +
			"with only the settings whose value differs. An available host goes through manual cleaning " +
			"(available -> manageable -> cleaning -> available) under the provider's capacity limit; a provisioned host " +
			"is serviced (Ironic API 1.87+; older Ironic fails the plan). One per host. On a detached host " +
			"(`baremetal_host` `detached = true`) a change is refused at plan and at apply, and destroy only forgets the " +
			"settings, also with `reset_on_destroy`: nothing is written to Ironic." + otherMaintenanceDoc,
		Attributes: map[string]schema.Attribute{
			"id": nodeIDAttribute(),
			"host_id": hostIDAttribute("The host: a `baremetal_host`'s `id` (or its name). It must be `available` or `provisioned` when " +
				"settings change. Changing it replaces the resource."),
			"settings": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "BIOS attribute name to value, written as strings (`\"Enabled\"`, `\"5\"`, `\"true\"`). Checked " +
					"against the schema: names the host's BIOS does not have (from the BMC: its Bios resource's " +
					"attributes, not every attribute of the registry), read-only settings, settings the registry's " +
					"dependencies make read-only or hidden with the values the BIOS will have (the error names the " +
					"controlling setting), values outside an enumeration, integers out of " +
					"bounds, strings of the wrong length and non-booleans are refused, and so is any name containing " +
					"`Password` (refused at `terraform validate`). Only these keys are managed: a value changed outside " +
					"Terraform shows as drift.",
				Validators: []validator.Map{mapvalidator.KeysAre(validators.New("a BIOS setting name without \"Password\"", func(s string) error {
					if strings.Contains(s, "Password") {
						return fmt.Errorf("BIOS setting %q: settings whose name contains \"Password\" cannot be set (the Bare Metal Operator refuses them)", s)
					}
					return nil
				}))},
			},
			"firmware": schema.SingleNestedAttribute{
				Optional: true,
				Description: "BMO's vendor-neutral switches, mapped to the vendor's BIOS attribute names as BMO's drivers do " +
					"(iDRAC: ProcVirtualization, LogicalProc, SriovGlobalEnable; iLO: ProcVirtualization, ProcHyperthreading, " +
					"Sriov; iRMC: cpu_vt_enabled, hyper_threading_enabled, single_root_io_virtualization_support_enabled) " +
					"and merged with `settings`. Other drivers (generic Redfish, IPMI) refuse them, as BMO does. A switch " +
					"and a setting that disagree on one attribute are a plan error.",
				Attributes: map[string]schema.Attribute{
					"virtualization_enabled":              optBool("CPU virtualization (VT-x / AMD-V)."),
					"simultaneous_multithreading_enabled": optBool("Simultaneous multithreading (Hyper-Threading)."),
					"sriov_enabled":                       optBool("SR-IOV."),
				},
			},
			"reset_on_destroy": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "On destroy, run Ironic's `bios.factory_reset` step (manual cleaning, or servicing on a " +
					"provisioned host). Default false: destroy forgets the settings and leaves the BIOS as it is.",
			},
			"bmc": redfishBMCAttribute("The host's BMC, for reading the BIOS attribute registry over Redfish when Ironic's BIOS "+
				"interface does not report one (Ironic masks the BMC password, so it is needed again here).",
				"BMC address as in `baremetal_host.bmc.address` (a Redfish-family scheme)."),
			"current": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Every BIOS setting Ironic reports, with its current value (names containing `Password` left out).",
			},
			"schema_source": schema.StringAttribute{
				Computed: true,
				Description: "Where the validation schema came from: `ironic` (`GET /v1/nodes/{id}/bios?detail=True`, API " +
					"1.74+), `redfish` (the BMC's AttributeRegistry) or `none` (the BIOS interface reports no schema, as " +
					"Ironic's `fake` one: values are passed through unchecked).",
			},
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func (r *firmwareSettingsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	if !r.hasFirmware() {
		resp.Diagnostics.AddError("Importing firmware settings", "the provider is not configured")
		return
	}
	obs, err := r.machine().Observe(ctx, lifecycle.HostRef{ID: ref})
	if err != nil || !obs.Exists {
		resp.Diagnostics.AddError("Importing firmware settings of "+ref, fmt.Sprintf("no Ironic node has this name or UUID (%v)", err))
		return
	}
	for a, v := range map[string]any{"id": obs.ID, "host_id": obs.ID, "reset_on_destroy": false} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(a), v)...)
	}
}

// ModifyPlan validates the settings against the host's BIOS schema when the
// host exists, says what the apply will change, and refuses changes that
// cannot be applied (a provisioned host on an Ironic without servicing).
func (r *firmwareSettingsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !r.hasFirmware() {
		return
	}
	// A bmc or firmware block known only after apply is judged then.
	if !tfglue.KnownAt(ctx, req.Plan, path.Root("bmc")) || !tfglue.KnownAt(ctx, req.Plan, path.Root("firmware")) {
		return
	}
	var plan firmwareSettingsModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() {
		return
	}
	// The bmc block is for the registry fallback (nil without one).
	redfish := plan.BMC.Access(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	host := plan.HostID.ValueString()
	b, err := r.clients.PlanFirmware(ctx, host, redfish)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("host_id"), "Reading the BIOS settings of host "+host, err.Error())
		return
	case b == nil:
		return // created in this apply: validated at apply, before any step
	}
	want, diags := plan.want(ctx, b)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("schema_source"), b.SchemaSource)...)
	diff := lifecycle.FirmwareDiff(want, b)
	if len(diff) == 0 {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("current"), b.Values())...)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("current"), types.MapUnknown(types.StringType))...)
	refusalDiag(&resp.Diagnostics, r.clients.CheckFirmwareChange(ctx, host, diff))
}

// refusalDiag reports a lifecycle refusal on its attribute.
func refusalDiag(diags *diag.Diagnostics, e *lifecycle.FirmwareRefusal) {
	switch {
	case e == nil:
	case e.Attribute == "":
		diags.AddError(e.Summary, e.Detail)
	default:
		diags.AddAttributeError(path.Root(e.Attribute), e.Summary, e.Detail)
	}
}

func (r *firmwareSettingsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, true, &resp.State, &resp.Diagnostics)
}

func (r *firmwareSettingsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	r.apply(ctx, req.Plan, false, &resp.State, &resp.Diagnostics)
}

// apply reads the plan, validates and applies its settings within the
// create (or else the update) timeout, then saves what Ironic reports; the
// state is saved also after a failure (the resource is then tainted), so
// the host is never lost.
func (r *firmwareSettingsResource) apply(ctx context.Context, p tfsdk.Plan, create bool, state stateSetter, diags *diag.Diagnostics) {
	op := opUpdate
	if create {
		op = opCreate
	}
	plan := &firmwareSettingsModel{}
	ctx, cancel, ok := op.start(ctx, p, plan, &plan.Timeouts, diags)
	if !ok {
		return
	}
	defer cancel()
	redfish := plan.BMC.Access(diags)
	if diags.HasError() {
		return
	}
	var host string
	err := r.clients.ApplyFirmware(ctx, lifecycle.FirmwareRequest{
		Ref: plan.HostID.ValueString(), Redfish: redfish, Log: TFLog{},
		Want: func(b *lifecycle.BIOS) (map[string]string, bool) {
			want, d := plan.want(ctx, b)
			diags.Append(d...)
			return want, !d.HasError()
		},
		// Saved also after a failed change (the resource is then
		// tainted): current and schema_source from Ironic, the rest as
		// planned.
		Save: func(obs lifecycle.Observation, b *lifecycle.BIOS, readErr error) {
			host = obs.Name
			plan.ID = types.StringValue(obs.ID)
			if readErr != nil {
				diags.AddWarning("Could not read the BIOS settings back", readErr.Error())
				plan.Current = types.MapNull(types.StringType)
				plan.SchemaSource = types.StringValue(lifecycle.SchemaSourceNone)
			} else {
				plan.setBIOS(b)
			}
			diags.Append(state.Set(ctx, plan)...)
		},
	})
	var refusal *lifecycle.FirmwareRefusal
	switch {
	case errors.As(err, &refusal):
		refusalDiag(diags, refusal)
	case err != nil:
		hostErrorDiag(diags, "Applying the BIOS settings of host "+host, err)
	}
}

// Read refreshes current and reports drift on the managed keys only: a
// managed setting whose value changed shows its new value, one that is gone
// shows as removed. Equal values keep the user's spelling ("true" for
// Ironic's "True").
func (r *firmwareSettingsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var m firmwareSettingsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	redfish := m.BMC.Access(&resp.Diagnostics)
	id := m.ID.ValueString()
	if id == "" {
		id = m.HostID.ValueString()
	}
	b, gone, err := r.clients.RefreshFirmware(ctx, id, redfish)
	switch {
	case gone:
		tflog.Info(ctx, "host is gone: removing its firmware settings from state", map[string]any{"host": id})
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		resp.Diagnostics.AddError("Reading the BIOS settings of host "+id, err.Error())
		return
	}
	m.setBIOS(b)
	settings, diags := m.settings(ctx)
	resp.Diagnostics.Append(diags...)
	if !m.Settings.IsNull() {
		drifted := map[string]attr.Value{}
		for n, v := range lifecycle.ManagedSettingsDrift(settings, b) {
			drifted[n] = types.StringValue(v)
		}
		m.Settings = types.MapValueMust(types.StringType, drifted)
	}
	if cfg := m.config(); !cfg.IsZero() {
		vals := []*types.Bool{&m.Firmware.VirtualizationEnabled, &m.Firmware.SimultaneousMultithreadingEnabled, &m.Firmware.SriovEnabled}
		for i, on := range lifecycle.FirmwareSwitchStates(b.Driver, b) {
			if on != nil && i < len(vals) && !vals[i].IsNull() {
				*vals[i] = types.BoolValue(*on)
			}
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete forgets the settings, or runs Ironic's bios.factory_reset when
// reset_on_destroy is set, except on a detached host, which is left alone.
func (r *firmwareSettingsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m firmwareSettingsModel
	ctx, cancel, ok := opDelete.start(ctx, req.State, &m, &m.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	if !m.ResetOnDestroy.ValueBool() {
		return
	}
	host, err := r.clients.ResetFirmware(ctx, m.ID.ValueString(), TFLog{})
	var refusal *lifecycle.FirmwareRefusal
	switch {
	case detachedDiag(ctx, &resp.Diagnostics, err):
	case errors.As(err, &refusal):
		refusalDiag(&resp.Diagnostics, refusal)
	case err != nil:
		hostErrorDiag(&resp.Diagnostics, "Resetting the BIOS of host "+host, err)
	}
}
