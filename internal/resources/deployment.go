package resources

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// NewDeployment returns the baremetal_deployment resource.
func NewDeployment() resource.Resource { return &deploymentResource{} }

// deploymentResource is BMO's spec.image/userData/metaData/networkData on
// a host that the baremetal_host resource registered: Create provisions
// (provisioning -> provisioned), Delete deprovisions (deprovisioning,
// cleaning -> available, powered off). Every input replaces the deployment.
type deploymentResource struct {
	base
}

var (
	_ resource.ResourceWithConfigValidators = (*deploymentResource)(nil)
	_ resource.ResourceWithImportState      = (*deploymentResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*deploymentResource)(nil)
)

// ModifyPlan refuses, at plan, a new deployment on a host that exists and
// is detached (every other input replaces the deployment, so only creates
// act on the host), and a new oci:// image on an Ironic too old for OCI
// images. Whether the host is available is judged at apply: an earlier
// resource of the same apply may make it so.
func (r *deploymentResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	r.checkOCIAtPlan(ctx, req, resp)
	if !req.State.Raw.IsNull() {
		return
	}
	var hostID types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("host_id"), &hostID)...)
	if resp.Diagnostics.HasError() || hostID.IsUnknown() || hostID.IsNull() {
		return
	}
	checkAttachedAtPlan(ctx, r.clients.Machine, hostID.ValueString(), "deploy on it", &resp.Diagnostics)
}

// ImportState adopts the deployment of a provisioned host, by node UUID or
// name. The image comes back from instance_info; user, meta and network
// data do not (Ironic does not show the config drive), so they stay unset.
func (r *deploymentResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	obs, err := r.machine().ImportDeployment(ctx, ref)
	if err != nil {
		resp.Diagnostics.AddError("Importing deployment on "+ref, err.Error())
		return
	}
	resp.Diagnostics.Append(setImportedDeployment(ctx, &resp.State, obs)...)
}

func (r *deploymentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_deployment"
}

func (r *deploymentResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replaceString := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	hints := rootDeviceHintsSchema("Overrides the host's root device hints for this deployment only " +
		"(written to Ironic's `instance_info.root_device`). Changing it replaces the deployment.")
	hints.PlanModifiers = []planmodifier.Object{objectplanmodifier.RequiresReplace()}

	resp.Schema = schema.Schema{
		// The state 0.1.0 writes. A change that such states no longer decode
		// into bumps it, with an upgrader (see internal/provider's
		// TestStateV0StillDecodes).
		Version: 0,
		Description: "An operating system deployed on a `baremetal_host`, as the Metal3 Bare Metal Operator deploys a " +
			"BareMetalHost's `spec.image`: the host goes `provisioning` -> `provisioned`, with a config drive built from " +
			"`user_data`, `meta_data` and `network_data` (a live ISO boots with Ironic's ramdisk deploy and no config drive). " +
			"A failed deploy is retried up to `provisioning_retries` times, then reported with Ironic's last_error; the host " +
			"is deprovisioned and kept. Every input except `provisioning_retries` and `timeouts` replaces the deployment " +
			"(deprovision, then provision). Destroy deprovisions the host (undeploy, then Ironic's cleaning) back to " +
			"`available`, powered off; the host itself stays. A host found no longer deployed, or running another image, " +
			"plans a new deployment. On a detached host (its `baremetal_host` has `detached = true`) a new deployment is " +
			"refused at plan and at apply, and destroy only forgets the deployment: the host keeps its OS and disks, stays " +
			"provisioned and in maintenance, and nothing is written to Ironic." + otherMaintenanceDoc,
		Attributes: map[string]schema.Attribute{
			"id": nodeIDAttribute(),
			"host_id": hostIDAttribute("The host to deploy: a `baremetal_host`'s `id` (or its name). It must be `available`. " +
				"Changing it replaces the deployment."),
			"image": schema.SingleNestedAttribute{
				Optional: true,
				Description: "The image to write to the host's root disk (BMO `spec.image`). The checksum rules are checked " +
					"at plan time: `oci://` images must not have a checksum, `live-iso` images need none, every other image " +
					"requires one. Changing it replaces the deployment.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				Validators:    []validator.Object{validators.Image()},
				Attributes: map[string]schema.Attribute{
					"url": schema.StringAttribute{
						Required:    true,
						Description: "Where Ironic downloads the image: `http://`, `https://`, `file://` (on the conductor) or `oci://`.",
					},
					"checksum": schema.StringAttribute{
						Optional: true,
						Description: "The image's digest (hex), or the URL of a checksum file. Required except for `oci://` " +
							"images (which must not have one) and `live-iso` images (which need none).",
					},
					"checksum_type": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("auto"),
						Description: "`auto` (default: Ironic detects it), `md5`, `sha256` or `sha512`. With a type, the " +
							"digest's length must match it.",
						Validators: []validator.String{stringvalidator.OneOf(validators.ChecksumTypes...)},
					},
					"format": schema.StringAttribute{
						Optional: true,
						Description: "`raw`, `qcow2`, `vdi`, `vmdk` or `live-iso`. Unset, Ironic detects it. `live-iso` boots " +
							"the ISO with Ironic's ramdisk deploy instead of writing it to disk, without a config drive.",
						Validators: []validator.String{stringvalidator.OneOf(validators.ImageFormats...)},
					},
					"pull_secret_wo": schema.StringAttribute{
						Optional: true, Sensitive: true, WriteOnly: true,
						Description: "Write-only (Terraform 1.11 and later) credentials for an `oci://` image in a private " +
							"registry (BMO `ociAuthSecretName`): a Docker config JSON (`{\"auths\": {\"<registry>\": {\"auth\": " +
							"\"<base64 user:password>\"}}}`, or `username` and `password` instead of `auth`; the entry of the " +
							"image's registry is used) or `user:token`. Sent to Ironic as the deployment's `image_pull_secret` " +
							"(Ironic 2025.1 and later), never stored in state or plan, never logged. Checked at `terraform validate`; " +
							"only allowed with an `oci://` URL. Requires `pull_secret_wo_version`.",
					},
					"pull_secret_wo_version": schema.StringAttribute{
						Optional: true,
						Description: "Any string; set it with `pull_secret_wo`, and change it to send a new pull secret " +
							"(which, as any change of `image`, replaces the deployment).",
					},
				},
			},
			"custom_deploy": schema.SingleNestedAttribute{
				Optional: true,
				Description: "BMO `spec.customDeploy`: deploy with Ironic's `custom-agent` deploy interface and this deploy " +
					"step (priority 80) instead of writing an image. Changing it replaces the deployment.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				Attributes: map[string]schema.Attribute{
					"method": schema.StringAttribute{
						Required:    true,
						Description: "The deploy step the ramdisk runs, e.g. `install_coreos`.",
						Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
					},
				},
			},
			"user_data": schema.StringAttribute{
				Optional: true, Sensitive: true,
				Description: "User data for the config drive (cloud-init, Ignition, ...). Sensitive, but kept in state: use `user_data_wo` to keep it out. " +
					"Changing it replaces the deployment.",
				PlanModifiers: replaceString,
			},
			"user_data_wo": schema.StringAttribute{
				Optional: true, Sensitive: true, WriteOnly: true,
				Description: "Write-only user data (Terraform 1.11 and later): never stored in state or plan. " +
					"Changing `user_data_wo_version` replaces the deployment with the new user data, as a change of `user_data` does.",
			},
			"user_data_wo_version": schema.StringAttribute{
				Optional:      true,
				Description:   "Any string; changing it replaces the deployment, which sends `user_data_wo` again.",
				PlanModifiers: replaceString,
			},
			"meta_data": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Keys added to the config drive's meta_data, over the defaults `uuid` (the node UUID), " +
					"`metal3-name`, `name`, `local-hostname` and `local_hostname` (the host's name). Changing it replaces the deployment.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"network_data": schema.StringAttribute{
				Optional: true,
				Description: "OpenStack network_data.json for the config drive, as a JSON object (e.g. from the " +
					"`baremetal_network_data` data source or `jsonencode`). Checked at plan time. Changing it replaces the deployment. " +
					"Without it, the config drive gets the host's `preprovisioning_network_data` (the node's `network_data`), as the Bare Metal Operator does.",
				PlanModifiers: replaceString,
				Validators:    []validator.String{validators.JSONObject()},
			},
			"root_device_hints": hints,
			"provisioning_retries": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(defaultProvisioningRetries),
				Description: "How many failed deploy attempts are retried before the apply fails (BMO's " +
					"`--max-provisioning-retries`, default 5). Each retry first deprovisions the host, then waits the " +
					"operator's failure backoff, doubling from 10-20 s. Set 0 to fail on the first failure.",
				Validators: []validator.Int64{int64validator.Between(0, 20)},
			},
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true}),

			"provisioning_state": keptString("The host's Bare Metal Operator state: `provisioned` once deployed."),
			"deployed_image":     keptString("The URL of the image Ironic reports deployed (empty for a custom deploy without image)."),
			"provider_id":        keptString("`baremetal://<node uuid>`, for a Kubernetes Node's `spec.providerID`."),
			"host_name":          keptString("The host's name."),
		},
	}
}

func (r *deploymentResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.AtLeastOneOf(path.MatchRoot("image"), path.MatchRoot("custom_deploy")),
		resourcevalidator.Conflicting(path.MatchRoot("user_data"), path.MatchRoot("user_data_wo")),
		resourcevalidator.RequiredTogether(path.MatchRoot("user_data_wo"), path.MatchRoot("user_data_wo_version")),
		liveISODataValidator{},
	}
}

// liveISODataValidator warns that a live ISO gets no config drive.
type liveISODataValidator struct{}

func (liveISODataValidator) Description(context.Context) string {
	return "warns that user_data, meta_data and network_data are not used with a live-iso image"
}
func (v liveISODataValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (liveISODataValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var format types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("image").AtName("format"), &format)...)
	if resp.Diagnostics.HasError() || format.ValueString() != "live-iso" {
		return
	}
	var cd types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("custom_deploy"), &cd)...)
	if !cd.IsNull() {
		return // a custom deploy gets a config drive
	}
	var userData, networkData types.String
	var metaData types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("user_data"), &userData)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("meta_data"), &metaData)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("network_data"), &networkData)...)
	for name, isSet := range map[string]bool{
		"user_data": !userData.IsNull(), "meta_data": !metaData.IsNull(), "network_data": !networkData.IsNull(),
	} {
		if isSet {
			resp.Diagnostics.AddAttributeWarning(path.Root(name), "Not used with a live ISO",
				"A live-iso image boots with Ironic's ramdisk deploy and gets no config drive: "+name+" is not used.")
		}
	}
}

func (r *deploymentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan deploymentModel
	ctx, cancel, ok := opCreate.start(ctx, req.Plan, &plan, &plan.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	// user_data_wo only comes with the configuration.
	var userDataWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("user_data_wo"), &userDataWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := plan.HostID.ValueString()
	ctx = tflog.SetField(ctx, "host", ref)

	spec, diags := plan.hostSpec(ctx)
	if !userDataWO.IsNull() && !userDataWO.IsUnknown() {
		spec.UserData = userDataWO.ValueString()
	}
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(pullSecretFromConfig(ctx, req.Config, spec.Image)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Before anything is written to the node.
	if err := lifecycle.CheckImageSupported(ctx, r.apiVersions(), spec.Image); err != nil {
		ociUnsupportedDiag(&resp.Diagnostics, err)
		return
	}
	h, err := r.machine().Deploy(ctx, lifecycle.DeployRequest{
		Ref: ref, Spec: spec, Retries: plan.retries(), CleanupTimeout: defaultDeleteTimeout,
		// Saved as soon as the deploy ends and again after any clean-up:
		// the deployment is tracked (tainted on error), never lost.
		Save: func(h *lifecycle.Host, obs *lifecycle.Observation) {
			plan.setStatus(h, obs)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		},
	})
	var pre *lifecycle.DeployPreconditionError
	var failed *lifecycle.DeployFailure
	switch {
	case detachedDiag(ctx, &resp.Diagnostics, err):
	case errors.As(err, &pre):
		resp.Diagnostics.AddAttributeError(path.Root("host_id"), pre.Summary, pre.Detail)
	case errors.As(err, &failed):
		hostErrorDiag(&resp.Diagnostics, deployAction(h, plan.Image.image()), failed.Err)
		if failed.CleanupErr != nil {
			hostErrorDiag(&resp.Diagnostics, "Deprovisioning host "+h.Spec.Name+" after the failed deploy", failed.CleanupErr)
		}
	case err != nil:
		resp.Diagnostics.AddError("Deploying on host "+ref, err.Error())
	}
}

// deployAction names the failed action for the error summary: the host
// and the image.
func deployAction(h *lifecycle.Host, img *lifecycle.Image) string {
	what := "custom deploy " + h.Spec.CustomDeploy
	if img != nil {
		what = "image " + img.URL
	}
	return fmt.Sprintf("Deploying %s on host %s", what, h.Spec.Name)
}

func (r *deploymentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var state deploymentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := snapshot(&state)
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	ref := lifecycle.HostRef{ID: state.ID.ValueString(), Name: state.HostName.ValueString(),
		State: lifecycle.State(state.ProvisioningState.ValueString())}
	obs, gone, err := r.machine().RefreshDeployment(ctx, ref, state.imageURL())
	if err != nil {
		resp.Diagnostics.AddError("Reading deployment on host "+ref.Name, err.Error())
		return
	}
	if gone != "" {
		tflog.Warn(ctx, "deployment no longer on the host; removing it from state so that a plan deploys again",
			map[string]any{"host": ref.Name, "node": ref.ID, "reason": gone})
		resp.State.RemoveResource(ctx)
		return
	}
	state.setStatus(&lifecycle.Host{Spec: lifecycle.HostSpec{Name: ref.Name}, Status: lifecycle.HostStatus{ID: obs.ID, State: obs.State}}, &obs)
	resp.Diagnostics.Append(writeIfChanged(ctx, &resp.State, prior, &state)...)
}

// Update only records provisioning_retries and timeouts: every other input
// replaces the deployment.
func (r *deploymentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state deploymentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID, plan.ProviderID, plan.HostName = state.ID, state.ProviderID, state.HostName
	plan.ProvisioningState, plan.DeployedImage = state.ProvisioningState, state.DeployedImage
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *deploymentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state deploymentModel
	ctx, cancel, ok := opDelete.start(ctx, req.State, &state, &state.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	name := state.HostName.ValueString()
	ctx = tflog.SetField(ctx, "host", name)

	ref := lifecycle.HostRef{ID: state.ID.ValueString(), Name: name, State: lifecycle.State(state.ProvisioningState.ValueString())}
	h, found, err := r.machine().Undeploy(ctx, ref, state.customDeployMethod(), deprovisionRetries)
	switch {
	case detachedDiag(ctx, &resp.Diagnostics, err):
	case !found && err == nil:
		tflog.Warn(ctx, "host no longer exists in Ironic; nothing to deprovision", map[string]any{"node": ref.ID})
	case h == nil && err != nil:
		resp.Diagnostics.AddError("Deprovisioning host "+name, err.Error())
	case err != nil:
		hostErrorDiag(&resp.Diagnostics, "Deprovisioning host "+h.Spec.Name, err)
	}
}
