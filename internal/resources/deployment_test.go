package resources

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func testDeploymentModel() *deploymentModel {
	return &deploymentModel{
		HostID: types.StringValue("node-1"),
		Image: &imageModel{
			URL:          types.StringValue("http://images/ubuntu.qcow2"),
			Checksum:     types.StringValue(strings.Repeat("a", 64)),
			ChecksumType: types.StringValue("auto"),
			Format:       types.StringValue("qcow2"),
		},
		UserData: types.StringValue("#cloud-config\n"),
		MetaData: types.MapValueMust(types.StringType, map[string]attr.Value{
			"role": types.StringValue("worker"), "local-hostname": types.StringValue("w1"),
		}),
		NetworkData:         types.StringValue(`{"links":[{"id":"eth0","type":"phy","mtu":1500}],"networks":[],"services":[]}`),
		RootDeviceHints:     &rootHintsModel{DeviceName: types.StringValue("/dev/sdb"), Rotational: types.BoolValue(false)},
		ProvisioningRetries: types.Int64Value(2),
	}
}

func TestDeploymentHostSpec(t *testing.T) {
	m := testDeploymentModel()
	s, diags := m.hostSpec(context.Background())
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.BMC.HasCredentials() || s.BMC.CredentialsVersion != "" {
		t.Errorf("a deployment must carry no BMC access: %+v", s.BMC)
	}
	if s.Image == nil || s.Image.URL != "http://images/ubuntu.qcow2" || s.Image.ChecksumType != "" || s.Image.Format != "qcow2" ||
		s.Image.Checksum != strings.Repeat("a", 64) {
		t.Errorf("image: %+v (auto must become an empty checksum type)", s.Image)
	}
	if s.UserData != "#cloud-config\n" {
		t.Errorf("user data %q", s.UserData)
	}
	if len(s.MetaData) != 2 || s.MetaData["role"] != "worker" || s.MetaData["local-hostname"] != "w1" {
		t.Errorf("meta data %v", s.MetaData)
	}
	links, ok := s.NetworkData["links"].([]any)
	if !ok || len(links) != 1 {
		t.Errorf("network data %v", s.NetworkData)
	}
	if s.RootDeviceHints == nil || s.RootDeviceHints.DeviceName != "/dev/sdb" || s.RootDeviceHints.Rotational == nil || *s.RootDeviceHints.Rotational {
		t.Errorf("hints %+v", s.RootDeviceHints)
	}
	if s.MaxProvisioningRetries != 3 {
		t.Errorf("MaxProvisioningRetries = %d, want retries+1 = 3", s.MaxProvisioningRetries)
	}
	if s.CustomDeploy != "" || s.InstanceUUID != "" {
		t.Errorf("custom deploy %q, instance uuid %q", s.CustomDeploy, s.InstanceUUID)
	}

	// Custom deploy without image; meta_data's keys go as they are
	// (lifecycle adds the defaults under them).
	m.Image = nil
	m.CustomDeploy = &customDeployModel{Method: types.StringValue("install_coreos")}
	m.MetaData = types.MapValueMust(types.StringType, map[string]attr.Value{"uuid": types.StringValue("mine")})
	m.NetworkData = types.StringNull()
	m.UserData = types.StringNull()
	m.RootDeviceHints = nil
	m.ProvisioningRetries = types.Int64Null()
	s, diags = m.hostSpec(context.Background())
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Image != nil || s.CustomDeploy != "install_coreos" || s.MetaData["uuid"] != "mine" || s.NetworkData != nil ||
		s.UserData != "" || s.RootDeviceHints != nil || s.MaxProvisioningRetries != defaultProvisioningRetries+1 {
		t.Errorf("custom deploy spec: %+v", s)
	}

	// A network_data that is not an object is an attribute error.
	m.NetworkData = types.StringValue(`[]`)
	if _, diags = m.hostSpec(context.Background()); !diags.HasError() {
		t.Error("network_data [] accepted")
	}
}

func TestDeploymentSetComputed(t *testing.T) {
	m := testDeploymentModel()
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-a"}, Status: lifecycle.HostStatus{ID: "node-1", State: lifecycle.StateProvisioned}}
	obs := &lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateProvisioned,
		DeployedImage: &lifecycle.Image{URL: "http://images/ubuntu.qcow2"}}
	m.setStatus(h, obs)
	if m.ID.ValueString() != "node-1" || m.ProviderID.ValueString() != "baremetal://node-1" || m.HostName.ValueString() != "host-a" ||
		m.ProvisioningState.ValueString() != "provisioned" || m.DeployedImage.ValueString() != "http://images/ubuntu.qcow2" {
		t.Errorf("computed: %+v", m)
	}
	// After a failed deploy and clean-up nothing is deployed, whatever
	// instance_info still says.
	obs.State = lifecycle.StateAvailable
	m.setStatus(h, obs)
	if m.DeployedImage.ValueString() != "" || m.ProvisioningState.ValueString() != "available" {
		t.Errorf("after clean-up: %+v", m)
	}
}
