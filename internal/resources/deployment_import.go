package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// What an imported deployment reads, as for hosts (host_import.go): import
// sets what setImportedDeployment sets, then Read refreshes the status;
// the deployment list resource builds the same state (importedDeployment).

// setImportedDeployment writes into st, a null state, the deployment of
// the provisioned host obs: the image comes back from instance_info; user,
// meta and network data do not (Ironic does not show the config drive), so
// they stay unset.
func setImportedDeployment(ctx context.Context, st stateData, obs lifecycle.Observation) diag.Diagnostics {
	img := obs.DeployedImage
	checksumType := img.ChecksumType
	if checksumType == "" {
		checksumType = "auto"
	}
	// An optional string Ironic leaves empty reads as null: the
	// configuration terraform query generates leaves "" out, and a ""
	// there would plan a replacement (a redeploy) of the deployment.
	image := &imageModel{
		URL: types.StringValue(img.URL), Checksum: tfglue.NullableString(img.Checksum),
		ChecksumType: types.StringValue(checksumType), Format: tfglue.NullableString(img.Format),
	}
	var m deploymentModel
	m.setStatus(&lifecycle.Host{Status: lifecycle.HostStatus{ID: obs.ID, State: obs.State}}, &obs)
	var diags diag.Diagnostics
	for attr, v := range map[string]any{
		"id": obs.ID, "host_id": obs.ID, "image": image, "provisioning_retries": int64(defaultProvisioningRetries),
		"provisioning_state": m.ProvisioningState, "deployed_image": m.DeployedImage,
		"provider_id": m.ProviderID, "host_name": m.HostName,
	} {
		diags.Append(st.SetAttribute(ctx, path.Root(attr), v)...)
	}
	return diags
}

// importedDeployment writes into st, a null state, what an import of the
// deployment on obs followed by a refresh gives.
func importedDeployment(ctx context.Context, st stateData, obs lifecycle.Observation) diag.Diagnostics {
	diags := setImportedDeployment(ctx, st, obs)
	var m deploymentModel
	if diags.Append(st.Get(ctx, &m)...); diags.HasError() {
		return diags
	}
	m.setStatus(&lifecycle.Host{Spec: lifecycle.HostSpec{Name: m.HostName.ValueString()}, Status: lifecycle.HostStatus{ID: obs.ID, State: obs.State}}, &obs)
	diags.Append(st.Set(ctx, &m)...)
	return diags
}
