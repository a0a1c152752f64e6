package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

type hostResource struct{ base }

func (r *hostResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		// The state 0.1.0 writes. A change that such states no longer decode
		// into bumps it, with an upgrader (see internal/provider's
		// TestStateV0StillDecodes).
		Version: 0,
		Description: "A bare-metal host registered in Ironic, taken through the Metal3 Bare Metal Operator's states: " +
			"registering, inspecting, preparing, then `available` (or `externally provisioned`), powered per `online`. " +
			"Destroy follows the operator's delete rules (powering off before delete, then deleting), with forward progress.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The Ironic node UUID."),
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "The host's name, also the Ironic node name: letters, digits and `-._~`, not a UUID. Changing it replaces the host.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{validators.Name()},
			},
			"bmc": schema.SingleNestedAttribute{
				Optional: true,
				Description: "How to reach the host's BMC, as in Metal3: an address whose scheme picks the Ironic driver and interfaces " +
					"(`ipmi://`, `redfish://`, `redfish-virtualmedia://`, `idrac-virtualmedia://`, ...). The normal way to register a host.",
				Attributes: map[string]schema.Attribute{
					"address": schema.StringAttribute{
						Required:      true,
						Description:   addressDescription,
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceAddress, addressReplaceDoc, addressReplaceDoc)},
						Validators: []validator.String{validators.New("a BMC address", func(s string) error {
							_, err := bmcaddr.Parse(s)
							return err
						})},
					},
					"username": schema.StringAttribute{Required: true, Description: "BMC user name. Changes are pushed to Ironic in place."},
					"password": schema.StringAttribute{
						Optional: true, Sensitive: true,
						Description: "BMC password. Stored in state (sensitive); use `password_wo` to keep it out of state. Changes are pushed to Ironic in place.",
					},
					"password_wo": schema.StringAttribute{
						Optional: true, Sensitive: true, WriteOnly: true,
						Description: "Write-only BMC password (Terraform 1.11 and later): never stored in state or plan. " +
							"Bump `password_wo_version` to push a new one.",
					},
					"password_wo_version": schema.StringAttribute{
						Optional:    true,
						Description: "Any string; changing it sends `password_wo` to Ironic again.",
					},
					"disable_certificate_verification": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						Description: "Skip TLS verification of the BMC's certificate (sets `redfish_verify_ca = false`). Default false.",
					},
					"check_credentials": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(true),
						Description: "Before registering a Redfish-family host, check that its BMC answers and accepts the credentials, " +
							"so a typo fails with the BMC's answer instead of a node stuck in enroll. Turn off for BMCs that Terraform cannot reach. Default true.",
					},
				},
			},
			"driver": schema.StringAttribute{
				Optional: true,
				Description: "Raw Ironic driver (e.g. `fake-hardware`, `redfish`), for what the BMC address schemes do not cover. " +
					"Use with `driver_info` and `driver_secrets`; with `bmc`, it replaces the driver the address scheme implies. Changing it replaces the host.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceUnlessImported, replaceUnlessImportedDoc, replaceUnlessImportedDoc)},
			},
			"driver_info": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Raw Ironic driver_info, merged over what `bmc` implies. Put passwords in `driver_secrets`. Changes are pushed to Ironic in place.",
			},
			"driver_secrets": schema.MapAttribute{
				Optional: true, Sensitive: true, ElementType: types.StringType,
				Description: "Sensitive driver_info entries (passwords), merged into `driver_info`. Stored in state (sensitive); use `driver_secrets_wo` to keep them out of state. Never read back from Ironic, which masks them.",
			},
			"driver_secrets_wo": schema.MapAttribute{
				Optional: true, Sensitive: true, WriteOnly: true, ElementType: types.StringType,
				Description: "Write-only `driver_secrets` (Terraform 1.11 and later): merged into `driver_info`, never stored in state or plan. " +
					"Bump `driver_secrets_wo_version` to push new values.",
			},
			"driver_secrets_wo_version": schema.StringAttribute{
				Optional:    true,
				Description: "Any string; changing it sends `driver_secrets_wo` to Ironic again (in place).",
			},
			"interfaces": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Ironic hardware interfaces that override what the BMC address implies, keyed by interface without the `_interface` suffix " +
					"(`boot`, `deploy`, `inspect`, `management`, `power`, `bios`, `raid`, `vendor`, ...), e.g. `{ deploy = \"ramdisk\" }`. Changing them replaces the host.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(mapReplaceUnlessImported, replaceUnlessImportedDoc, replaceUnlessImportedDoc)},
				Validators:    []validator.Map{mapvalidator.KeysAre(stringvalidator.OneOf(ironicInterfaces...))},
			},
			"boot_mac_address": schema.StringAttribute{
				Optional: true,
				Description: "MAC of the NIC the host boots from; creates a PXE-enabled Ironic port. Required by `libvirt` addresses and when inspection is disabled. " +
					"Cannot change once set (a change replaces the host).",
				Validators:    []validator.String{validators.MAC()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(requiresReplaceOnceSet, "Replaces the host once a boot MAC was set.", "Replaces the host once a boot MAC was set.")},
			},
			"boot_mode": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(lifecycle.BootModeUEFI)),
				Description: "`UEFI` (default), `UEFISecureBoot` or `legacy`.",
				Validators:  []validator.String{stringvalidator.OneOf(string(lifecycle.BootModeUEFI), string(lifecycle.BootModeUEFISecureBoot), string(lifecycle.BootModeLegacy))},
			},
			"raid":              raidSchema(),
			"raid_config":       computedString("The RAID configuration the hardware reports (Ironic's `raid_config`, JSON; empty when none)."),
			"root_device_hints": rootDeviceHintsSchema("Which disk to install on, as the Bare Metal Operator's root device hints. A change sends the host through preparing again."),
			"online": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description:   onlineDescription,
				PlanModifiers: []planmodifier.Bool{onlinePlan{}},
			},
			"disable_power_off": disablePowerOffAttribute(),
			"automated_cleaning_mode": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(lifecycle.CleaningMetadata),
				Description: "`metadata` (default: Ironic cleans disk metadata when the host becomes available or is released), `disabled`, or, for hosts recycled between tenants, `express` (Ironic's `erase_devices_express`: hardware secure erase, else metadata) or `full` (`erase_devices`: secure erase, else overwrite every disk; slow), run by a manual clean after a deployment's deprovision and before the node of an available host is deleted.",
				Validators:  []validator.String{stringvalidator.OneOf(lifecycle.CleaningMetadata, lifecycle.CleaningDisabled, lifecycle.CleaningExpress, lifecycle.CleaningFull)},
			},
			"inspection": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("enabled"),
				Description: inspectionDescription,
				Validators:  []validator.String{stringvalidator.OneOf(bmcaddr.InspectionModes...)},
			},
			"externally_provisioned": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description:   "The host already runs an OS installed outside Ironic: it is adopted (`externally provisioned`) instead of inspected and cleaned. Changing it replaces the host.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"labels": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Labels, kept in the node's `extra`, that `baremetal_host_claim` selectors match. Keys are Kubernetes label keys. Changes are made in place.",
				Validators:  []validator.Map{mapvalidator.KeysAre(validators.LabelKey())},
			},
			"resource_class": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "Ironic resource class, which claims match. Default `baremetal` when the host is created. Left unset " +
					"afterwards, it keeps what the node has (also what an inspection rule sets while the host is created): an imported " +
					"node without a resource class keeps none (`\"\"`).",
				Validators:    []validator.String{validators.ResourceClass()},
				PlanModifiers: []planmodifier.String{defaultOnCreate("baremetal")},
			},
			"desired_state": desiredStateAttribute(),
			"traits": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Ironic traits, which claims can require: standard traits (os-traits, e.g. `HW_CPU_X86_AVX2`) or `CUSTOM_` and upper-case letters, digits and `_` (e.g. `CUSTOM_GPU`). " +
					"Left unset, the node's traits are Ironic's to keep: those an inspection rule (`baremetal_inspection_rule`) or an operator " +
					"sets stay, and a refresh does not read them (an import does); set `traits = []` to clear them. A runbook runs only " +
					"on a host whose traits include its name.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(validators.Trait())},
			},
			"conductor_group": schema.StringAttribute{
				Optional:    true,
				Description: "Ironic conductor group that manages the node (letters, digits, `_`, `.`, `-`; Ironic keeps it in lower case). Changes are made in place; a change made behind Terraform's back shows in the plan.",
				Validators:  []validator.String{validators.ConductorGroup()},
			},
			"shard":    shardAttribute(),
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"provisioning_state": computedString("The Bare Metal Operator state: `registering`, `inspecting`, `preparing`, `available`, `provisioned`, `externally provisioned`, ..."),
			"ironic_state":       computedString("The Ironic provision state of the node (`manageable`, `available`, `active`, `clean failed`, ...)."),
			"operational_status": computedString("`OK`, `discovered`, `error`, `delayed` (waiting for the capacity gate) or `detached` (see `detached`: the node is in maintenance with this provider's detach reason)."),
			"error_type":         computedString("The operator's error type of the last failure (`inspection error`, `provisioning error`, ...), or empty."),
			"error_message":      computedString("The last failure, with Ironic's last_error, or empty."),
			"error_count": schema.Int64Attribute{
				Computed: true, Description: "Failures since the last successful transition.",
			},
			"powered_on":   schema.BoolAttribute{Computed: true, Description: "Whether Ironic reports the host powered on."},
			"last_updated": computedString("When the state machine last changed the host's status (RFC 3339)."),
			"current_step": computedString("The step Ironic runs on the node, as `interface.step` (`deploy.write_image`, `deploy.erase_devices_metadata`, " +
				"`bios.apply_configuration`): its `clean_step`, `deploy_step` or `service_step` when the host was last read; empty when Ironic runs none. " +
				"A host that sits in `clean wait` or `wait call-back` with the same step for long is waiting for its agent."),
			"last_transition": computedString("When the node's Ironic provision state last changed (RFC 3339): Ironic's `provision_updated_at`, " +
				"else the last state change the provider saw."),
			"health": computedString("The hardware health Ironic reports for the node (its `health`, Ironic API 1.109 and later): `OK`, `Warning` " +
				"or `Critical`, what Ironic's conductor last read from the BMC with the power state (Redfish drivers). Null on an older Ironic, or " +
				"when Ironic reports none for the node; on an older Ironic the `baremetal_host` and `baremetal_hardware` data sources can read it " +
				"from the BMC instead (`health_from_bmc`)."),
		},
	}
	addDay2Attributes(resp.Schema.Attributes)
	addBootAttributes(resp.Schema.Attributes)
}

func (r *hostResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{powerValidator{}}
}

// ModifyPlan refuses what the Ironic in use cannot do (checkIronicSupport);
// on an update, it keeps a deployed host's unset online from changing the
// plan (onlinePlan.settle), then refuses the day-2 requests and the RAID
// changes that the host's state does not allow.
func (r *hostResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.checkIronicSupport(ctx, req, &resp.Diagnostics)
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	onlinePlan{}.settle(ctx, req, resp)
	var plan, state hostModel
	resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.checkDay2Plan(&state, &resp.Diagnostics)
	planStateMove(ctx, &plan, &state, resp)
	planDetachAbort(ctx, &plan, &state, resp)
	plan.checkPortsDetached(&state, &resp.Diagnostics)
	checkRAIDChange(ctx, req.Plan, &plan, &state, &resp.Diagnostics)
}

func (r *hostResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan hostModel
	spec, ok := plannedSpec(ctx, req.Plan, req.Config, &plan, &resp.Diagnostics)
	if !ok || !r.preflight(ctx, &plan, spec.BMC, &resp.Diagnostics) {
		return
	}
	ctx, cancel, ok := opCreate.deadline(ctx, plan.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	ctx = tflog.SetField(ctx, "host", spec.Name)

	h := &lifecycle.Host{Spec: spec}
	resp.Diagnostics.Append(applyOnline(ctx, req.Config, h)...)
	plan.applyDay2(h)
	r.converge(ctx, h, &plan, nil, &resp.State, &resp.Diagnostics, "Creating host "+spec.Name)
}

// plannedSpec reads the plan into plan, with the write-only secrets from
// the configuration, and returns the host's spec; false after an error.
func plannedSpec(ctx context.Context, p tfsdk.Plan, cfg tfsdk.Config, plan *hostModel, diags *diag.Diagnostics) (lifecycle.HostSpec, bool) {
	diags.Append(p.Get(ctx, plan)...)
	wo, d := configSecrets(ctx, cfg)
	if diags.Append(d...); diags.HasError() {
		return lifecycle.HostSpec{}, false
	}
	spec, d := plan.spec(ctx, wo)
	diags.Append(d...)
	// resource_class left unset: the default is written at creation only,
	// then the node's is kept (an inspection rule may set it).
	var rc types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("resource_class"), &rc)...)
	spec.KeepResourceClass = rc.IsNull()
	return spec, !diags.HasError()
}

// converge runs h to its goal and syncs its ports and port groups (prior
// is the state before an update, nil on create), then saves it, also
// after a failure, which it reports as action failing; false when it
// failed.
func (r *hostResource) converge(ctx context.Context, h *lifecycle.Host, plan, prior *hostModel, state *tfsdk.State, diags *diag.Diagnostics, action string) bool {
	err := r.machine().Converge(ctx, h, lifecycle.ConvergeOptions{})
	if err == nil {
		err = plan.syncPorts(ctx, r.machine(), h)
	}
	if err == nil {
		err = plan.syncPortGroups(ctx, r.machine(), h, prior)
	}
	saveHost(ctx, r.machine(), h, plan, state, diags)
	if err != nil {
		hostErrorDiag(diags, action, err)
		return false
	}
	return true
}

func (r *hostResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var state hostModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := snapshot(&state)
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: state.Name.ValueString()}, Status: state.status()}
	obs, exists, err := r.machine().ObserveHost(ctx, h)
	if err != nil {
		resp.Diagnostics.AddError("Reading host "+state.Name.ValueString(), err.Error())
		return
	}
	if !exists {
		tflog.Warn(ctx, "host no longer exists in Ironic; removing it from state", map[string]any{"host": state.Name.ValueString(), "node": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(state.readNode(ctx, r.machine(), h, obs, false)...)
	resp.Diagnostics.Append(writeIfChanged(ctx, &resp.State, prior, &state)...)
}

func (r *hostResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state hostModel
	spec, ok := plannedSpec(ctx, req.Plan, req.Config, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	if plan.checkPortsDetached(&state, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	old, diags := state.access(ctx, noSecrets())
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if spec.BMC.CredentialsVersion != old.CredentialsVersion {
		if !r.preflight(ctx, &plan, spec.BMC, &resp.Diagnostics) {
			return
		}
	}
	ctx, cancel, ok := opUpdate.deadline(ctx, plan.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	ctx = tflog.SetField(ctx, "host", spec.Name)

	h := &lifecycle.Host{Spec: spec, Status: state.status()}
	h.Status.GoodCredentials = old.CredentialsVersion
	if err := r.machine().Sync(ctx, h); err != nil {
		resp.Diagnostics.AddError("Updating host "+spec.Name, err.Error())
		return
	}
	plan.ID = state.ID
	resp.Diagnostics.Append(applyOnline(ctx, req.Config, h)...)
	plan.applyDay2(h)
	if plan.day2Requests(&state, h, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if !r.converge(ctx, h, &plan, &state, &resp.State, &resp.Diagnostics, "Updating host "+spec.Name) {
		return
	}
	resp.Diagnostics.Append(clearImported(ctx, resp.Private)...)
}

func (r *hostResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state hostModel
	ctx, cancel, ok := opDelete.start(ctx, req.State, &state, &state.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	spec, diags := state.spec(ctx, noSecrets())
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx = tflog.SetField(ctx, "host", spec.Name)

	h := &lifecycle.Host{Spec: spec, Status: state.status(), Deleting: true}
	state.applyDay2(h)
	h.Status.GoodCredentials = spec.BMC.CredentialsVersion
	if h.ForceDelete = state.DeleteMode.ValueString() == "force"; h.ForceDelete {
		if obs := r.machine().Snapshot(ctx, h); obs != nil {
			if err := lifecycle.ForceDeleteRefused(*obs); err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("delete_mode"), "Force delete of host "+spec.Name+" refused", err.Error())
				return
			}
		}
	}
	if err := r.machine().Sync(ctx, h); err != nil {
		if isNotRegistered(err) {
			return // already gone
		}
		resp.Diagnostics.AddError("Deleting host "+spec.Name, err.Error())
		return
	}
	if err := r.machine().Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		hostErrorDiag(&resp.Diagnostics, "Deleting host "+spec.Name, err)
	}
}

func (r *hostResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	// The import id is a node UUID or name.
	obs, err := r.machine().ImportHost(ctx, ref)
	if err != nil {
		resp.Diagnostics.AddError("Importing host "+ref, err.Error())
		return
	}
	resp.Diagnostics.Append(setImportedHost(ctx, &resp.State, obs)...)
	resp.Diagnostics.Append(importPortGroups(ctx, r.machine(), &resp.State, obs)...)
	resp.Diagnostics.Append(markImported(ctx, resp.Private)...)
}
