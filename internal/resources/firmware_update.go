package resources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// firmwareUpdateResource is BMO's HostFirmwareComponents spec.updates: a
// one-shot update of firmware components from image URLs. Creating it
// updates; changing it replaces it (updates again); destroying it forgets.
type firmwareUpdateResource struct{ base }

type firmwareUpdateModel struct {
	ID       types.String         `tfsdk:"id"`
	HostID   types.String         `tfsdk:"host_id"`
	Updates  []firmwareUpdateItem `tfsdk:"updates"`
	BMC      types.Object         `tfsdk:"bmc"` // tfglue.BMCModel; unknown until its values are
	Method   types.String         `tfsdk:"method"`
	Results  types.List           `tfsdk:"results"`
	Versions types.Map            `tfsdk:"versions"`
	Timeouts timeouts.Value       `tfsdk:"timeouts"`
}

type firmwareUpdateItem struct {
	Component types.String `tfsdk:"component"`
	URL       types.String `tfsdk:"url"`
	Checksum  types.String `tfsdk:"checksum"`
}

type firmwareUpdateOutcome struct {
	Component       types.String `tfsdk:"component"`
	Target          types.String `tfsdk:"target"`
	PreviousVersion types.String `tfsdk:"previous_version"`
	Version         types.String `tfsdk:"version"`
	Message         types.String `tfsdk:"message"`
}

var firmwareUpdateOutcomeTypes = map[string]attr.Type{
	"component": types.StringType, "target": types.StringType, "previous_version": types.StringType,
	"version": types.StringType, "message": types.StringType,
}

func (r *firmwareUpdateResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	computed := computedString
	resp.Schema = schema.Schema{
		// The state 0.1.0 writes. A change that such states no longer decode
		// into bumps it, with an upgrader (see internal/provider's
		// TestStateV0StillDecodes).
		Version: 0,
		Description: "Updates firmware components of one `baremetal_host` from image URLs, as the Metal3 Bare Metal Operator's " +
			"HostFirmwareComponents `updates`. With Ironic's firmware API (API 1.86+) the updates run as Ironic's " +
			"`firmware.update` step: in a manual clean on an available host, or a service on a provisioned one (API 1.87+). " +
			"That step needs the host to boot Ironic's ramdisk (the agent). Otherwise, or with `method = \"redfish\"`, they " +
			"go through the host's BMC (Redfish `UpdateService.SimpleUpdate`, needs `bmc`), one after the " +
			"other, with the Ironic node in maintenance for the duration so that Ironic's power state sync does not fight " +
			"the BMC's reboots; when the BMC stages an image for the next boot (task Pending), the host is reset to apply " +
			"it (a host that was off is powered off again). The node is taken out of maintenance afterwards, also after a " +
			"failure. Task progress is " +
			"logged; a failure reports the BMC's task message. Changing anything but `bmc` and `timeouts` replaces the " +
			"resource (updates again); destroying it forgets it and leaves the firmware as it is. Updates on a detached host " +
			"(`baremetal_host` `detached = true`) are refused at plan and at apply." + otherMaintenanceDoc,
		Attributes: map[string]schema.Attribute{
			"id":      nodeIDAttribute(),
			"host_id": hostIDAttribute("The host: a `baremetal_host`'s `id` (or its name). Changing it replaces the resource."),
			"updates": schema.ListNestedAttribute{
				Required:      true,
				Description:   "The updates, applied in this order (each component at most once). Changing them replaces the resource.",
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"component": schema.StringAttribute{
						Required: true,
						Description: "The component: `bios`, `bmc` or `nic:<id>` (Ironic's names; on the BMC path `bios` is the " +
							"inventory item whose Id or Name says BIOS, System ROM or UEFI, `bmc` the one that says BMC, iDRAC, " +
							"iLO, iRMC or XClarity Controller, of several the image the BMC runs (not iLO's Redundant System " +
							"ROM, iDRAC's Previous- image or a backup), `nic:<id>` the item with that Id), or `redfish:<Id>` for " +
							"any item of the BMC's FirmwareInventory (BMC path only). The `baremetal_firmware` data source lists them.",
						Validators: checkString("bios, bmc, nic:<id> or redfish:<Id>", lifecycle.ValidateFirmwareComponent),
					},
					"url": schema.StringAttribute{
						Required: true,
						Description: "The image URL: http or https (a BMC fetches it itself); Ironic's `firmware.update` also " +
							"takes file:// and swift://.",
						Validators: checkString("an http(s) image URL", lifecycle.ValidateFirmwareURL),
					},
					"checksum": schema.StringAttribute{
						Optional: true,
						Description: "The image's checksum, `<algorithm>:<hex>` (md5, sha1, sha256, sha512) or a bare hex digest " +
							"(the algorithm by its length). The provider downloads the image and checks it before anything is " +
							"sent to Ironic or the BMC.",
						Validators: checkString("a checksum such as sha256:<hex>", func(s string) error {
							_, _, err := lifecycle.ParseChecksum(s)
							return err
						}),
					},
				}},
			},
			"bmc": redfishBMCAttribute("The host's BMC, for updates through Redfish (needed when Ironic has no firmware API, as Ironic "+
				"21.4 at API 1.82: Ironic masks the BMC password, so it is needed again here).",
				"BMC address as in `baremetal_host.bmc.address`, of a Redfish-family scheme (`ipmi://` and "+
					"`libvirt://` are refused at validate)."),
			"method": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "How the updates run: `ironic` (Ironic's `firmware.update` step, API 1.86+) or `redfish` (the " +
					"BMC's UpdateService, with the node in maintenance; needs `bmc`). Unset, `ironic` where Ironic has the " +
					"firmware API, else `redfish`. Set `redfish` on a newer Ironic for components Ironic does not know " +
					"(`redfish:<Id>`), or to update without a cleaning or servicing cycle. Changing it replaces the resource.",
				Validators:    []validator.String{stringvalidator.OneOf(lifecycle.FirmwareUpdateIronic, lifecycle.FirmwareUpdateRedfish)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIfConfigured()},
			},
			"results": schema.ListNestedAttribute{
				Computed:      true,
				Description:   "One entry per update, in order: what was updated and its versions before and after.",
				PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"component":        computed("The component as given."),
					"target":           computed("What was updated: the BMC's FirmwareInventory item Id, or the Ironic component."),
					"previous_version": computed("The version before the update (empty when unknown)."),
					"version":          computed("The version after the update."),
					"message":          computed("The BMC task's last message (BMC path)."),
				}},
			},
			"versions": keptMap("Component (as given) to the version installed after the updates.", types.StringType),
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true}),
		},
	}
}

func (m *firmwareUpdateModel) updates() []lifecycle.FirmwareUpdate {
	out := make([]lifecycle.FirmwareUpdate, 0, len(m.Updates))
	for _, u := range m.Updates {
		out = append(out, lifecycle.FirmwareUpdate{Component: u.Component.ValueString(), URL: u.URL.ValueString(), Checksum: u.Checksum.ValueString()})
	}
	return out
}

// method is the method asked for, "" for the default.
func (m *firmwareUpdateModel) method() string {
	if m.Method.IsUnknown() {
		return ""
	}
	return m.Method.ValueString()
}

// ValidateConfig refuses a component updated twice (each attribute's own
// rules are its validators). Unknown components are skipped.
func (r *firmwareUpdateResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m firmwareUpdateModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	seen := map[string]int{}
	for i, u := range m.Updates {
		if u.Component.IsNull() || u.Component.IsUnknown() {
			continue
		}
		c := u.Component.ValueString()
		if j, dup := seen[c]; dup {
			resp.Diagnostics.AddAttributeError(path.Root("updates").AtListIndex(i).AtName("component"), "Duplicate firmware component",
				fmt.Sprintf("component %q is already updated by updates[%d]: update each component once", c, j))
		}
		seen[c] = i
	}
}

// ModifyPlan checks, when the host exists, that the updates can run the
// way this Ironic offers: the firmware API's component names and host
// states, or BMC credentials for the Redfish path.
func (r *firmwareUpdateResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !r.hasFirmware() {
		return
	}
	var plan firmwareUpdateModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Plan, &plan)...)
	known := tfglue.Known(plan.HostID) && tfglue.KnownAt(ctx, req.Plan, path.Root("updates"))
	if resp.Diagnostics.HasError() || !known || !req.State.Raw.IsNull() {
		return // unknown yet, or an existing update that is not replaced
	}
	refusals := r.clients.CheckFirmwareUpdate(ctx, plan.HostID.ValueString(), plan.updates(), !plan.BMC.IsNull(), plan.method())
	addUpdateRefusals(&resp.Diagnostics, refusals)
}

// addUpdateRefusals reports each refusal on its attribute.
func addUpdateRefusals(diags *diag.Diagnostics, refusals []lifecycle.FirmwareUpdateRefusal) {
	for _, f := range refusals {
		at := path.Root(f.Attribute)
		if f.Attribute == "updates" {
			at = at.AtListIndex(f.Update).AtName("component")
		}
		diags.AddAttributeError(at, f.Summary, f.Detail)
	}
}

func (r *firmwareUpdateResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan firmwareUpdateModel
	ctx, cancel, ok := opCreate.start(ctx, req.Plan, &plan, &plan.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	if !r.hasFirmware() || r.clients.Updater == nil {
		resp.Diagnostics.AddError("Provider not configured", "the provider has no Ironic firmware client configured")
		return
	}
	// The BMC access for the BMC path (nil without bmc, or while it is unknown).
	redfish := tfglue.BMCFromObject(ctx, plan.BMC, &resp.Diagnostics).Access(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := plan.HostID.ValueString()
	ctx = tflog.SetField(ctx, "host", ref)
	done, refusals, err := r.clients.UpdateFirmware(ctx, lifecycle.FirmwareUpdateRequest{
		Ref: ref, Updates: plan.updates(), Redfish: redfish, Method: plan.method(), Log: TFLog{}})
	addUpdateRefusals(&resp.Diagnostics, refusals)
	switch {
	case resp.Diagnostics.HasError():
		return
	case err != nil && !done.Host.Exists:
		resp.Diagnostics.AddAttributeError(path.Root("host_id"), "Reading host "+ref, err.Error())
		return
	case err != nil:
		hostErrorDiag(&resp.Diagnostics, "Updating the firmware of host "+done.Host.Name, err)
		return
	}
	plan.ID = types.StringValue(done.Host.ID)
	plan.Method = types.StringValue(done.Method)
	outcomes := make([]firmwareUpdateOutcome, 0, len(done.Results))
	versions := map[string]attr.Value{}
	for _, res := range done.Results {
		outcomes = append(outcomes, firmwareUpdateOutcome{
			Component: types.StringValue(res.Component), Target: types.StringValue(res.Target),
			PreviousVersion: types.StringValue(res.PreviousVersion), Version: types.StringValue(res.Version),
			Message: types.StringValue(res.Message),
		})
		versions[res.Component] = types.StringValue(res.Version)
	}
	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: firmwareUpdateOutcomeTypes}, outcomes)
	resp.Diagnostics.Append(d...)
	plan.Results = list
	plan.Versions = types.MapValueMust(types.StringType, versions)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read keeps what the update did; a host that is gone takes the resource
// with it.
func (r *firmwareUpdateResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var m firmwareUpdateModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || r.clients == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	obs, err := r.machine().Observe(ctx, lifecycle.HostRef{ID: m.ID.ValueString()})
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Reading host "+m.ID.ValueString(), err.Error())
	case !obs.Exists:
		tflog.Info(ctx, "host is gone: removing its firmware update from state", map[string]any{"host": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
	}
}

// Update only changes bmc or timeouts (everything else replaces).
func (r *firmwareUpdateResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan firmwareUpdateModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the update: firmware is not rolled back.
func (r *firmwareUpdateResource) Delete(ctx context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	tflog.Debug(ctx, "forgetting a firmware update: the installed firmware stays")
}
