package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// defaultProvisioningRetries is BMO's --max-provisioning-retries default.
const defaultProvisioningRetries = 5

// deprovisionRetries is how many failures a destroy (or the clean-up after
// a failed deploy) retries: BMO's delete rules' retryCount.
const deprovisionRetries = 3

// providerIDPrefix makes provider_id, as CAPM3's metal3://.
const providerIDPrefix = "baremetal://"

// deploymentModel is baremetal_deployment's state.
type deploymentModel struct {
	ID                  types.String       `tfsdk:"id"`
	HostID              types.String       `tfsdk:"host_id"`
	Image               *imageModel        `tfsdk:"image"`
	CustomDeploy        *customDeployModel `tfsdk:"custom_deploy"`
	UserData            types.String       `tfsdk:"user_data"`
	UserDataWO          types.String       `tfsdk:"user_data_wo"`
	UserDataWOVersion   types.String       `tfsdk:"user_data_wo_version"`
	MetaData            types.Map          `tfsdk:"meta_data"`
	NetworkData         types.String       `tfsdk:"network_data"`
	RootDeviceHints     *rootHintsModel    `tfsdk:"root_device_hints"`
	ProvisioningRetries types.Int64        `tfsdk:"provisioning_retries"`
	Timeouts            timeouts.Value     `tfsdk:"timeouts"`

	ProvisioningState types.String `tfsdk:"provisioning_state"`
	DeployedImage     types.String `tfsdk:"deployed_image"`
	ProviderID        types.String `tfsdk:"provider_id"`
	HostName          types.String `tfsdk:"host_name"`
}

// imageModel is BMO's spec.image.
type imageModel struct {
	URL          types.String `tfsdk:"url"`
	Checksum     types.String `tfsdk:"checksum"`
	ChecksumType types.String `tfsdk:"checksum_type"`
	Format       types.String `tfsdk:"format"`
}

// customDeployModel is BMO's spec.customDeploy.
type customDeployModel struct {
	Method types.String `tfsdk:"method"`
}

func (i *imageModel) image() *lifecycle.Image {
	if i == nil {
		return nil
	}
	img := &lifecycle.Image{
		URL:          i.URL.ValueString(),
		Checksum:     i.Checksum.ValueString(),
		ChecksumType: i.ChecksumType.ValueString(),
		Format:       i.Format.ValueString(),
	}
	if img.ChecksumType == "auto" {
		img.ChecksumType = "" // Ironic detects it (image_checksum)
	}
	return img
}

func (m *deploymentModel) imageURL() string {
	if m.Image == nil {
		return ""
	}
	return m.Image.URL.ValueString()
}

func (m *deploymentModel) customDeployMethod() string {
	if m.CustomDeploy == nil {
		return ""
	}
	return m.CustomDeploy.Method.ValueString()
}

// retries is provisioning_retries, BMO's default when unset.
func (m *deploymentModel) retries() int {
	if m.ProvisioningRetries.IsNull() || m.ProvisioningRetries.IsUnknown() {
		return defaultProvisioningRetries
	}
	return max(int(m.ProvisioningRetries.ValueInt64()), 0)
}

// hostSpec builds what the deployment asks of the host named name (node
// id): BMO's spec.image/customDeploy/userData/metaData/networkData, online.
// The BMC stays empty: the host resource owns registration.
func (m *deploymentModel) hostSpec(ctx context.Context, name, id string) (lifecycle.HostSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := lifecycle.HostSpec{
		Name:                name,
		RegisteredElsewhere: true,
		Online:              true,
		Image:               m.Image.image(),
		CustomDeploy:        m.customDeployMethod(),
		UserData:            m.UserData.ValueString(),
		RootDeviceHints:     m.RootDeviceHints.hints(),
		// BMO refuses a new attempt once provisioningFailCount reaches the
		// limit, so n retries need a limit of n+1 attempts.
		MaxProvisioningRetries: m.retries() + 1,
	}
	// meta_data: BMO's "uuid" is the BMH UID; ours is the node UUID. The
	// user's meta_data overrides it (and the other defaults).
	s.MetaData = map[string]any{}
	if id != "" {
		s.MetaData["uuid"] = id
	}
	if !m.MetaData.IsNull() && !m.MetaData.IsUnknown() {
		var md map[string]string
		diags.Append(m.MetaData.ElementsAs(ctx, &md, false)...)
		for k, v := range md {
			s.MetaData[k] = v
		}
	}
	if nd := m.NetworkData.ValueString(); nd != "" {
		obj, err := validators.ParseJSONObject(nd)
		if err != nil {
			diags.AddAttributeError(path.Root("network_data"), "Invalid network_data", err.Error())
		} else {
			s.NetworkData = obj
		}
	}
	return s, diags
}

// deployHost is the host Create converges: found available, asked to
// deploy. The deployment knows no BMC credentials; with an empty
// BMCAccess and GoodCredentials equal to its (empty) CredentialsVersion,
// the state machine must not push driver_info again.
func (m *deploymentModel) deployHost(ctx context.Context, obs lifecycle.Observation) (*lifecycle.Host, diag.Diagnostics) {
	spec, diags := m.hostSpec(ctx, obs.Name, obs.ID)
	// The host's boot mode decides instance_info's secure_boot capability.
	spec.BootMode = obs.BootMode
	h := &lifecycle.Host{
		Spec: spec,
		Status: lifecycle.HostStatus{
			ID:              obs.ID,
			State:           obs.State,
			GoodCredentials: spec.BMC.CredentialsVersion,
			// The root device hints override goes into instance_info at
			// deploy time; it must not send the host through preparing
			// (manual cleaning), which belongs to the host resource.
			PreparedRootDeviceHints: spec.RootDeviceHints,
		},
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	return h, diags
}

// undeployHost is the host Delete (and the clean-up after a failed deploy)
// converges: no image, powered off. provisioned sees the image removed ->
// deprovisioning (undeploy, cleaning) -> available, powered off.
func undeployHost(obs lifecycle.Observation, customDeploy string) *lifecycle.Host {
	h := &lifecycle.Host{
		Spec: lifecycle.HostSpec{Name: obs.Name, Online: false, RegisteredElsewhere: true},
		Status: lifecycle.HostStatus{
			ID:            obs.ID,
			State:         obs.State,
			DeployedImage: obs.DeployedImage,
		},
	}
	if obs.State == lifecycle.StateProvisioned {
		h.Status.DeployedCustomDeploy = customDeploy
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	return h
}

// setComputed fills the computed attributes from the host and, when obs is
// given, what Ironic shows of it (which wins).
func (m *deploymentModel) setStatus(h *lifecycle.Host, obs *lifecycle.Observation) {
	id := h.Status.ID
	if id == "" {
		id = m.ID.ValueString()
	}
	m.ID = types.StringValue(id)
	m.ProviderID = types.StringValue(providerIDPrefix + id)
	m.ProvisioningState = types.StringValue(string(h.Status.State))
	name := h.Spec.Name
	deployed := ""
	if h.Status.DeployedImage != nil {
		deployed = h.Status.DeployedImage.URL
	}
	if obs != nil && obs.Exists {
		if obs.Name != "" {
			name = obs.Name
		}
		if obs.State != "" {
			m.ProvisioningState = types.StringValue(string(obs.State))
		}
		deployed = ""
		if obs.DeployedImage != nil && deployedStates[obs.State] {
			deployed = obs.DeployedImage.URL
		}
	}
	m.HostName = types.StringValue(name)
	m.DeployedImage = types.StringValue(deployed)
}

// deployedStates are the states in which a deployment exists (deployed or
// being deployed); anywhere else it is gone.
var deployedStates = map[lifecycle.State]bool{
	lifecycle.StateProvisioning: true,
	lifecycle.StateProvisioned:  true,
}

// drifted reports why the deployment no longer exists on the host, or "".
func (m *deploymentModel) drifted(obs lifecycle.Observation) string {
	if !deployedStates[obs.State] {
		return "the host is " + quote(string(obs.State)) + " (Ironic " + quote(obs.ProvisionState) + "), no longer provisioned"
	}
	want := m.imageURL()
	have := ""
	if obs.DeployedImage != nil {
		have = obs.DeployedImage.URL
	}
	if want != "" && have != want {
		return "the host runs image " + quote(have) + ", not " + quote(want)
	}
	return ""
}

// resumable reports whether the host is already deployed, or being
// deployed, with this deployment's image: what an apply interrupted before
// it saved state leaves behind.
func (m *deploymentModel) resumable(obs lifecycle.Observation) bool {
	if !deployedStates[obs.State] {
		return false
	}
	have := ""
	if obs.DeployedImage != nil {
		have = obs.DeployedImage.URL
	}
	// A custom deploy without image cannot be recognised on the node.
	want := m.imageURL()
	return want != "" && have == want
}

func quote(s string) string { return "\"" + s + "\"" }
