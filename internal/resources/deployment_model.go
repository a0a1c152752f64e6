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
	// PullSecretWO is always null here: it comes from the configuration
	// only (pullSecretFromConfig).
	PullSecretWO        types.String `tfsdk:"pull_secret_wo"`
	PullSecretWOVersion types.String `tfsdk:"pull_secret_wo_version"`
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

// hostSpec is what the deployment asks of its host: BMO's spec.image,
// customDeploy, userData, metaData (over lifecycle's defaults) and
// networkData. lifecycle.Machine.Deploy fills in the host's name, boot mode
// and the rest; the BMC stays empty (the host resource owns registration).
func (m *deploymentModel) hostSpec(ctx context.Context) (lifecycle.HostSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := lifecycle.HostSpec{
		Image:           m.Image.image(),
		CustomDeploy:    m.customDeployMethod(),
		UserData:        m.UserData.ValueString(),
		RootDeviceHints: m.RootDeviceHints.hints(),
		// BMO refuses a new attempt once provisioningFailCount reaches the
		// limit, so n retries need a limit of n+1 attempts.
		MaxProvisioningRetries: m.retries() + 1,
	}
	if !m.MetaData.IsNull() && !m.MetaData.IsUnknown() {
		var md map[string]string
		diags.Append(m.MetaData.ElementsAs(ctx, &md, false)...)
		s.MetaData = map[string]any{}
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
		deployed = lifecycle.DeployedImageURL(obs)
	}
	m.HostName = types.StringValue(name)
	m.DeployedImage = types.StringValue(deployed)
}
