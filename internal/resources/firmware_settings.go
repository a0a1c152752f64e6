package resources

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// NewFirmwareSettings returns the baremetal_firmware_settings resource.
func NewFirmwareSettings() resource.Resource { return &firmwareSettingsResource{} }

// firmwareSettingsResource is BMO's HostFirmwareSettings: BIOS settings
// validated against the host's schema and applied by Ironic's
// bios.apply_configuration step, in a manual clean on an available host
// (preparing) or a service on a provisioned one (servicing, API 1.87+).
type firmwareSettingsResource struct {
	clients *lifecycle.Clients
}

var (
	_ resource.ResourceWithModifyPlan  = (*firmwareSettingsResource)(nil)
	_ resource.ResourceWithImportState = (*firmwareSettingsResource)(nil)
)

type firmwareSettingsModel struct {
	ID             types.String         `tfsdk:"id"`
	HostID         types.String         `tfsdk:"host_id"`
	Settings       types.Map            `tfsdk:"settings"`
	Firmware       *firmwareSwitchModel `tfsdk:"firmware"`
	ResetOnDestroy types.Bool           `tfsdk:"reset_on_destroy"`
	BMC            *firmwareBMCModel    `tfsdk:"bmc"`
	Current        types.Map            `tfsdk:"current"`
	SchemaSource   types.String         `tfsdk:"schema_source"`
	Timeouts       timeouts.Value       `tfsdk:"timeouts"`
}

type firmwareSwitchModel struct {
	VirtualizationEnabled             types.Bool `tfsdk:"virtualization_enabled"`
	SimultaneousMultithreadingEnabled types.Bool `tfsdk:"simultaneous_multithreading_enabled"`
	SriovEnabled                      types.Bool `tfsdk:"sriov_enabled"`
}

type firmwareBMCModel struct {
	Address                        types.String `tfsdk:"address"`
	Username                       types.String `tfsdk:"username"`
	Password                       types.String `tfsdk:"password"`
	DisableCertificateVerification types.Bool   `tfsdk:"disable_certificate_verification"`
}

func (r *firmwareSettingsResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firmware_settings"
}

func (r *firmwareSettingsResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = tfglue.ClientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *firmwareSettingsResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optBool := func(desc string) schema.BoolAttribute { return schema.BoolAttribute{Optional: true, Description: desc} }
	resp.Schema = schema.Schema{
		Description: "The BIOS settings of one `baremetal_host`, as the Metal3 Bare Metal Operator's HostFirmwareSettings: " +
			"validated against the host's BIOS schema (Ironic's registry, else the BMC's Redfish AttributeRegistry) before " +
			"anything is sent, at plan time when the host exists, and applied as Ironic's `bios.apply_configuration` step " +
			"with only the settings whose value differs. An available host goes through manual cleaning " +
			"(available -> manageable -> cleaning -> available) under the provider's capacity limit; a provisioned host " +
			"is serviced (Ironic API 1.87+; older Ironic fails the plan). One per host.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The host's Ironic node UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"host_id": schema.StringAttribute{
				Required: true,
				Description: "The host: a `baremetal_host`'s `id` (or its name). It must be `available` or `provisioned` when " +
					"settings change. Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"settings": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "BIOS attribute name to value, written as strings (`\"Enabled\"`, `\"5\"`, `\"true\"`). Checked " +
					"against the schema: unknown names, read-only settings, values outside an enumeration, integers out of " +
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
			"bmc": schema.SingleNestedAttribute{
				Optional: true,
				Description: "The host's BMC, for reading the BIOS attribute registry over Redfish when Ironic's BIOS " +
					"interface does not report one (Ironic masks the BMC password, so it is needed again here).",
				Attributes: map[string]schema.Attribute{
					"address": schema.StringAttribute{
						Required:    true,
						Description: "BMC address as in `baremetal_host.bmc.address` (a Redfish-family scheme).",
						Validators: []validator.String{validators.New("a valid BMC address", func(s string) error {
							_, err := bmcaddr.Parse(s)
							return err
						})},
					},
					"username": schema.StringAttribute{Required: true, Description: "BMC user name."},
					"password": schema.StringAttribute{Required: true, Sensitive: true, Description: "BMC password."},
					"disable_certificate_verification": schema.BoolAttribute{
						Optional: true, Description: "Skip TLS certificate verification of the BMC.",
					},
				},
			},
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
	if r.clients == nil || r.clients.Firmware == nil {
		resp.Diagnostics.AddError("Importing firmware settings", "the provider is not configured")
		return
	}
	obs, err := r.clients.Machine.Prov.Observe(ctx, &lifecycle.Host{Status: lifecycle.HostStatus{ID: req.ID}})
	if err != nil || !obs.Exists {
		resp.Diagnostics.AddError("Importing firmware settings of "+req.ID, fmt.Sprintf("no Ironic node has this name or UUID (%v)", err))
		return
	}
	for a, v := range map[string]any{"id": obs.ID, "host_id": obs.ID, "reset_on_destroy": false} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(a), v)...)
	}
}

// redfish is the BMC access for the registry fallback (nil without bmc).
func (m *firmwareSettingsModel) redfish() (*lifecycle.BMCAccess, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.BMC == nil || m.BMC.Address.IsUnknown() || m.BMC.Password.IsUnknown() {
		return nil, diags
	}
	addr, err := bmcaddr.Parse(m.BMC.Address.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("bmc").AtName("address"), "Invalid bmc.address", err.Error())
		return nil, diags
	}
	a := addr.Access(m.BMC.Username.ValueString(), m.BMC.Password.ValueString(), m.BMC.DisableCertificateVerification.ValueBool())
	return &a, diags
}

func (m *firmwareSettingsModel) config() *lifecycle.FirmwareConfig {
	if m.Firmware == nil {
		return nil
	}
	b := func(v types.Bool) *bool {
		if v.IsNull() || v.IsUnknown() {
			return nil
		}
		x := v.ValueBool()
		return &x
	}
	return &lifecycle.FirmwareConfig{
		VirtualizationEnabled:             b(m.Firmware.VirtualizationEnabled),
		SimultaneousMultithreadingEnabled: b(m.Firmware.SimultaneousMultithreadingEnabled),
		SriovEnabled:                      b(m.Firmware.SriovEnabled),
	}
}

func (m *firmwareSettingsModel) settings(ctx context.Context) (map[string]string, diag.Diagnostics) {
	out := map[string]string{}
	if m.Settings.IsNull() || m.Settings.IsUnknown() {
		return out, nil
	}
	diags := m.Settings.ElementsAs(ctx, &out, false)
	return out, diags
}

// known reports whether everything the settings depend on is known.
func (m *firmwareSettingsModel) known() bool {
	if m.HostID.IsUnknown() || m.Settings.IsUnknown() {
		return false
	}
	if m.Settings.IsNull() {
		return true
	}
	for _, v := range m.Settings.Elements() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// want merges settings and the firmware switches for the host's driver
// and validates them against b; errors name the attribute.
func (m *firmwareSettingsModel) want(ctx context.Context, b *lifecycle.BIOS) (map[string]string, diag.Diagnostics) {
	settings, diags := m.settings(ctx)
	if diags.HasError() {
		return nil, diags
	}
	merged, err := lifecycle.MergeFirmwareSettings(b.Driver, m.config(), settings)
	if err != nil {
		diags.AddAttributeError(path.Root("firmware"), "Invalid firmware switches", err.Error())
		return nil, diags
	}
	for _, e := range lifecycle.ValidateFirmwareSettings(merged, b) {
		p := path.Root("settings").AtMapKey(e.Name)
		if _, ok := settings[e.Name]; !ok {
			p = path.Root("firmware")
		}
		diags.AddAttributeError(p, "Invalid BIOS setting "+e.Name,
			fmt.Sprintf("%s (schema from %s).", e.Error(), b.SchemaSource))
	}
	return merged, diags
}

// ModifyPlan validates the settings against the host's BIOS schema when the
// host exists, says what the apply will change, and refuses changes that
// cannot be applied (a provisioned host on an Ironic without servicing).
func (r *firmwareSettingsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil || r.clients.Firmware == nil {
		return
	}
	var plan firmwareSettingsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() {
		return
	}
	redfish, diags := plan.redfish()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	host := plan.HostID.ValueString()
	b, err := r.clients.Firmware.BIOS(ctx, host, redfish)
	switch {
	case errors.Is(err, lifecycle.ErrNotRegistered):
		return // created in this apply: validated at apply, before any step
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root("host_id"), "Reading the BIOS settings of host "+host, err.Error())
		return
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
	obs, err := r.clients.Machine.Prov.Observe(ctx, &lifecycle.Host{Status: lifecycle.HostStatus{ID: host}})
	if err != nil || !obs.Exists {
		return
	}
	resp.Diagnostics.Append(checkApplicable(obs, r.clients.Firmware.Features(), diff)...)
}

// checkApplicable refuses a change the host's state does not allow.
func checkApplicable(obs lifecycle.Observation, f lifecycle.FirmwareFeatures, diff map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	names := make([]string, 0, len(diff))
	for n := range diff {
		names = append(names, n)
	}
	sort.Strings(names)
	switch {
	case obs.State == lifecycle.StateProvisioned && !f.Servicing:
		diags.AddAttributeError(path.Root("settings"), "Firmware settings cannot change on a provisioned host",
			fmt.Sprintf("Host %q (node %s) is provisioned, and changing %v needs Ironic's servicing, which this Ironic "+
				"(API %s) does not offer: it needs API 1.87 or newer. Deprovision the host first (destroy its "+
				"baremetal_deployment), or use a newer Ironic.", obs.Name, obs.ID, names, f.Microversion))
	case obs.State != lifecycle.StateAvailable && obs.State != lifecycle.StateProvisioned:
		diags.AddAttributeError(path.Root("host_id"), "Host cannot take firmware settings now",
			fmt.Sprintf("Host %q (node %s) is %q (Ironic %q): firmware settings are applied to available hosts "+
				"(manual cleaning) or provisioned ones (servicing).", obs.Name, obs.ID, obs.State, obs.ProvisionState))
	}
	return diags
}

func (r *firmwareSettingsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan firmwareSettingsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.apply(ctx, &plan, &resp.State, &resp.Diagnostics)
}

func (r *firmwareSettingsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan firmwareSettingsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.apply(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// apply validates and applies the plan's settings, then saves what Ironic
// reports; the state is saved also after a failure (the resource is then
// tainted), so the host is never lost.
func (r *firmwareSettingsResource) apply(ctx context.Context, plan *firmwareSettingsModel, state stateSetter, diags *diag.Diagnostics) {
	redfish, d := plan.redfish()
	diags.Append(d...)
	if diags.HasError() {
		return
	}
	ref := plan.HostID.ValueString()
	obs, err := r.clients.Machine.Prov.Observe(ctx, &lifecycle.Host{Status: lifecycle.HostStatus{ID: ref}})
	if err != nil {
		diags.AddAttributeError(path.Root("host_id"), "Reading host "+ref, err.Error())
		return
	}
	if !obs.Exists {
		diags.AddAttributeError(path.Root("host_id"), "Host not found",
			fmt.Sprintf("No Ironic node has the UUID or name %q: create it with baremetal_host first.", ref))
		return
	}
	ctx = tflog.SetField(ctx, "host", obs.Name)
	b, err := r.clients.Firmware.BIOS(ctx, obs.ID, redfish)
	if err != nil {
		diags.AddAttributeError(path.Root("host_id"), "Reading the BIOS settings of host "+obs.Name, err.Error())
		return
	}
	want, d := plan.want(ctx, b)
	diags.Append(d...)
	if diags.HasError() {
		return
	}
	plan.ID = types.StringValue(obs.ID)
	if diff := lifecycle.FirmwareDiff(want, b); len(diff) > 0 {
		diags.Append(checkApplicable(obs, r.clients.Firmware.Features(), diff)...)
		if diags.HasError() {
			return
		}
		tflog.Info(ctx, "applying BIOS settings", map[string]any{"host": obs.Name, "changed": len(diff), "state": string(obs.State)})
		h := firmwareHost(obs, want, false)
		if err := r.converge(ctx, h); err != nil {
			r.save(ctx, plan, obs.ID, redfish, state, diags)
			hostErrorDiag(diags, "Applying the BIOS settings of host "+obs.Name, err)
			return
		}
	} else {
		tflog.Debug(ctx, "BIOS settings already as planned: nothing to apply", map[string]any{"host": obs.Name})
	}
	r.save(ctx, plan, obs.ID, redfish, state, diags)
}

// firmwareHost is the host a firmware change converges: registered by the
// baremetal_host resource, in its observed state and power, asking for
// the settings (or a factory reset).
func firmwareHost(obs lifecycle.Observation, settings map[string]string, reset bool) *lifecycle.Host {
	h := &lifecycle.Host{
		Spec: lifecycle.HostSpec{
			Name: obs.Name, RegisteredElsewhere: true,
			FirmwareSettings: settings, FirmwareReset: reset,
			Image: obs.DeployedImage,
		},
		Status: lifecycle.HostStatus{ID: obs.ID, State: obs.State, DeployedImage: obs.DeployedImage},
	}
	if obs.PoweredOn != nil {
		h.Spec.Online, h.Status.PoweredOn = *obs.PoweredOn, *obs.PoweredOn
	}
	return h
}

// converge runs the change: preparing (manual cleaning) on an available
// host, servicing on a provisioned one.
func (r *firmwareSettingsResource) converge(ctx context.Context, h *lifecycle.Host) error {
	if h.Status.State == lifecycle.StateProvisioned {
		return r.clients.Machine.ServiceFirmware(ctx, h, 1)
	}
	return r.clients.Machine.Converge(ctx, h, lifecycle.ConvergeOptions{Retries: 1})
}

// stateSetter is the part of tfsdk.State the resource writes.
type stateSetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}

// save reads the BIOS back and writes the model: current and
// schema_source from Ironic, the rest as planned.
func (r *firmwareSettingsResource) save(ctx context.Context, m *firmwareSettingsModel, id string, redfish *lifecycle.BMCAccess, state stateSetter, diags *diag.Diagnostics) {
	m.ID = types.StringValue(id)
	b, err := r.clients.Firmware.BIOS(ctx, id, redfish)
	if err != nil {
		diags.AddWarning("Could not read the BIOS settings back", err.Error())
		m.Current = types.MapNull(types.StringType)
		m.SchemaSource = types.StringValue(lifecycle.SchemaSourceNone)
	} else {
		m.setBIOS(b)
	}
	diags.Append(state.Set(ctx, m)...)
}

func (m *firmwareSettingsModel) setBIOS(b *lifecycle.BIOS) {
	cur := map[string]attr.Value{}
	for n, v := range b.Values() {
		cur[n] = types.StringValue(v)
	}
	m.Current = types.MapValueMust(types.StringType, cur)
	m.SchemaSource = types.StringValue(b.SchemaSource)
}

// Read refreshes current and reports drift on the managed keys only: a
// managed setting whose value changed shows its new value, one that is gone
// shows as removed. Equal values keep the user's spelling ("true" for
// Ironic's "True").
func (r *firmwareSettingsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m firmwareSettingsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	redfish, diags := m.redfish()
	resp.Diagnostics.Append(diags...)
	id := m.ID.ValueString()
	if id == "" {
		id = m.HostID.ValueString()
	}
	b, err := r.clients.Firmware.BIOS(ctx, id, redfish)
	switch {
	case errors.Is(err, lifecycle.ErrNotRegistered):
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
		for n, v := range settings {
			cur, ok := b.Settings[n]
			switch {
			case !ok:
				continue // gone: shows as to be added
			case lifecycle.SettingEqual(cur, v):
				drifted[n] = types.StringValue(v)
			default:
				drifted[n] = types.StringValue(cur.Value)
			}
		}
		m.Settings = types.MapValueMust(types.StringType, drifted)
	}
	if cfg := m.config(); !cfg.IsZero() {
		if switches, err := lifecycle.VendorFirmwareSwitches(b.Driver); err == nil {
			vals := []*types.Bool{&m.Firmware.VirtualizationEnabled, &m.Firmware.SimultaneousMultithreadingEnabled, &m.Firmware.SriovEnabled}
			for i, sw := range switches {
				if vals[i].IsNull() {
					continue
				}
				if cur, ok := b.Settings[sw.Attribute]; ok && (cur.Value == sw.True || cur.Value == sw.False) {
					*vals[i] = types.BoolValue(cur.Value == sw.True)
				}
			}
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete forgets the settings, or runs Ironic's bios.factory_reset when
// reset_on_destroy is set.
func (r *firmwareSettingsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m firmwareSettingsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !m.ResetOnDestroy.ValueBool() {
		return
	}
	timeout, diags := m.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	obs, err := r.clients.Machine.Prov.Observe(ctx, &lifecycle.Host{Status: lifecycle.HostStatus{ID: m.ID.ValueString()}})
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Reading host "+m.ID.ValueString(), err.Error())
		return
	case !obs.Exists:
		return // the host is gone, and its BIOS settings with it
	}
	if obs.State == lifecycle.StateProvisioned && !r.clients.Firmware.Features().Servicing {
		resp.Diagnostics.AddError("Cannot reset the BIOS of a provisioned host",
			fmt.Sprintf("Host %q (node %s) is provisioned and this Ironic has no servicing (API 1.87+): %v",
				obs.Name, obs.ID, lifecycle.ErrServicingUnsupported))
		return
	}
	if obs.State != lifecycle.StateAvailable && obs.State != lifecycle.StateProvisioned {
		resp.Diagnostics.AddError("Cannot reset the BIOS of host "+obs.Name,
			fmt.Sprintf("Host %q (node %s) is %q (Ironic %q): a BIOS factory reset runs on available or provisioned hosts.",
				obs.Name, obs.ID, obs.State, obs.ProvisionState))
		return
	}
	tflog.Info(ctx, "resetting the BIOS to factory defaults", map[string]any{"host": obs.Name})
	if err := r.converge(ctx, firmwareHost(obs, nil, true)); err != nil {
		hostErrorDiag(&resp.Diagnostics, "Resetting the BIOS of host "+obs.Name, err)
	}
}
