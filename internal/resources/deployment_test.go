package resources

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

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
	s, diags := m.hostSpec(context.Background(), "host-a", "node-1")
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Name != "host-a" || !s.Online {
		t.Errorf("name/online: %q %v", s.Name, s.Online)
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
	if s.MetaData["uuid"] != "node-1" || s.MetaData["role"] != "worker" || s.MetaData["local-hostname"] != "w1" {
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

	// meta_data may override the uuid; custom deploy without image.
	m.Image = nil
	m.CustomDeploy = &customDeployModel{Method: types.StringValue("install_coreos")}
	m.MetaData = types.MapValueMust(types.StringType, map[string]attr.Value{"uuid": types.StringValue("mine")})
	m.NetworkData = types.StringNull()
	m.UserData = types.StringNull()
	m.RootDeviceHints = nil
	m.ProvisioningRetries = types.Int64Null()
	s, diags = m.hostSpec(context.Background(), "host-a", "node-1")
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Image != nil || s.CustomDeploy != "install_coreos" || s.MetaData["uuid"] != "mine" || s.NetworkData != nil ||
		s.UserData != "" || s.RootDeviceHints != nil || s.MaxProvisioningRetries != defaultProvisioningRetries+1 {
		t.Errorf("custom deploy spec: %+v", s)
	}

	// A network_data that is not an object is an attribute error.
	m.NetworkData = types.StringValue(`[]`)
	if _, diags = m.hostSpec(context.Background(), "host-a", "node-1"); !diags.HasError() {
		t.Error("network_data [] accepted")
	}
}

func TestDeployHostAndUndeployHost(t *testing.T) {
	on := true
	obs := lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateAvailable, ProvisionState: "available", PoweredOn: &on}
	h, diags := testDeploymentModel().deployHost(context.Background(), obs)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if h.Status.ID != "node-1" || h.Status.State != lifecycle.StateAvailable || !h.Status.PoweredOn {
		t.Errorf("status %+v", h.Status)
	}
	if h.Status.GoodCredentials != h.Spec.BMC.CredentialsVersion {
		t.Errorf("credentials would be pushed again: good %q, spec %q", h.Status.GoodCredentials, h.Spec.BMC.CredentialsVersion)
	}
	if h.Status.PreparedRootDeviceHints == nil || h.Status.PreparedRootDeviceHints.DeviceName != "/dev/sdb" {
		t.Errorf("the hints override must not send the host through preparing: %+v", h.Status.PreparedRootDeviceHints)
	}

	deployed := lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateProvisioned,
		ProvisionState: "active", DeployedImage: &lifecycle.Image{URL: "http://images/ubuntu.qcow2"}}
	u := undeployHost(deployed, "install_coreos")
	if u.Spec.Image != nil || u.Spec.Online || u.Status.State != lifecycle.StateProvisioned ||
		u.Status.DeployedImage == nil || u.Status.DeployedCustomDeploy != "install_coreos" || u.Deleting {
		t.Errorf("undeploy host %+v", u)
	}
}

func TestDeploymentDrift(t *testing.T) {
	m := testDeploymentModel()
	img := func(u string) *lifecycle.Image { return &lifecycle.Image{URL: u} }
	cases := []struct {
		name string
		obs  lifecycle.Observation
		want string
	}{
		{"deployed", lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img("http://images/ubuntu.qcow2")}, ""},
		{"deploy failed is still the deployment", lifecycle.Observation{State: lifecycle.StateProvisioning, ProvisionState: "deploy failed", DeployedImage: img("http://images/ubuntu.qcow2")}, ""},
		{"undeployed", lifecycle.Observation{State: lifecycle.StateAvailable, ProvisionState: "available"}, "no longer provisioned"},
		{"being cleaned", lifecycle.Observation{State: lifecycle.StateDeprovisioning, ProvisionState: "clean wait"}, "no longer provisioned"},
		{"other image", lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img("http://images/other.qcow2")}, "runs image"},
		{"no image read back", lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active"}, "runs image \"\""},
	}
	for _, c := range cases {
		got := m.drifted(c.obs)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: drifted = %q, want %q", c.name, got, c.want)
		}
	}
	// A custom deploy without image only checks the state.
	m.Image = nil
	if got := m.drifted(lifecycle.Observation{State: lifecycle.StateProvisioned}); got != "" {
		t.Errorf("custom deploy: %q", got)
	}
}

func TestDeploymentResumable(t *testing.T) {
	m := testDeploymentModel()
	img := func(u string) *lifecycle.Image { return &lifecycle.Image{URL: u} }
	cases := []struct {
		obs  lifecycle.Observation
		want bool
	}{
		{lifecycle.Observation{State: lifecycle.StateProvisioning, ProvisionState: "wait call-back", DeployedImage: img("http://images/ubuntu.qcow2")}, true},
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img("http://images/ubuntu.qcow2")}, true},
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img("http://images/other.qcow2")}, false},
		{lifecycle.Observation{State: lifecycle.StateAvailable, ProvisionState: "available", DeployedImage: img("http://images/ubuntu.qcow2")}, false},
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active"}, false},
	}
	for i, c := range cases {
		if got := m.resumable(c.obs); got != c.want {
			t.Errorf("case %d (%s): resumable = %v", i, c.obs.ProvisionState, got)
		}
	}
	m.Image = nil
	m.CustomDeploy = &customDeployModel{Method: types.StringValue("install")}
	if m.resumable(lifecycle.Observation{State: lifecycle.StateProvisioned}) {
		t.Error("a custom deploy cannot be recognised, so it is never resumed")
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

// fakeNode is a tiny Ironic node for the state machine: enough of the
// Provisioner to deploy, fail and undeploy.
type fakeNode struct {
	mu         sync.Mutex
	ps         string
	image      *lifecycle.Image
	failDeploy string // last_error of every deploy when set
	lastError  string
	powerOn    bool
	registers  []bool // credentialsChanged of each Register call
	calls      []string
}

func (f *fakeNode) call(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
}

func (f *fakeNode) Register(_ context.Context, h *lifecycle.Host, credentialsChanged, _ bool) (lifecycle.Result, string, error) {
	f.call("Register")
	f.registers = append(f.registers, credentialsChanged)
	if !h.Spec.BMC.HasCredentials() {
		return lifecycle.Result{ErrorMessage: "no BMC driver and credentials to register the host with"}, h.Status.ID, nil
	}
	return lifecycle.Result{}, h.Status.ID, nil
}
func (f *fakeNode) Inspect(context.Context, *lifecycle.Host, bool, bool) (lifecycle.Result, bool, *lifecycle.HardwareDetails, error) {
	f.call("Inspect")
	return lifecycle.Result{}, false, nil, errors.New("a deployment never inspects")
}
func (f *fakeNode) Prepare(context.Context, *lifecycle.Host, bool, bool) (lifecycle.Result, bool, error) {
	f.call("Prepare")
	return lifecycle.Result{}, false, errors.New("a deployment never prepares")
}
func (f *fakeNode) Provide(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	f.call("Provide")
	return lifecycle.Result{Verb: "provide", ProvisionState: f.ps}, nil
}
func (f *fakeNode) Provision(_ context.Context, h *lifecycle.Host, restart bool) (lifecycle.Result, error) {
	f.call("Provision")
	switch f.ps {
	case "available":
		if f.failDeploy != "" {
			f.ps, f.lastError = "deploy failed", f.failDeploy
		} else {
			f.ps = "active"
		}
		f.image = h.Spec.Image
		return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "active", ProvisionState: "available"}, nil
	case "deploy failed":
		if !restart {
			return lifecycle.Result{ErrorMessage: "Image provisioning failed (" + h.Spec.Image.URL + ", ): " + f.lastError,
				Verb: "active", ProvisionState: f.ps}, nil
		}
		f.ps = "available"
		return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "active", ProvisionState: "deploy failed"}, nil
	}
	return lifecycle.Result{Verb: "active", ProvisionState: f.ps}, nil
}
func (f *fakeNode) Deprovision(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	f.call("Deprovision")
	if f.ps == "available" {
		return lifecycle.Result{Verb: "deleted", ProvisionState: f.ps}, nil
	}
	f.ps, f.image, f.lastError = "available", nil, ""
	return lifecycle.Result{Dirty: true, RequeueAfter: time.Millisecond, Verb: "deleted", ProvisionState: "active"}, nil
}
func (f *fakeNode) Adopt(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	f.call("Adopt")
	return lifecycle.Result{Verb: "adopt", ProvisionState: f.ps}, nil
}
func (f *fakeNode) PowerOn(context.Context, *lifecycle.Host, bool) (lifecycle.Result, error) {
	f.call("PowerOn")
	f.powerOn = true
	return lifecycle.Result{Verb: "power on", ProvisionState: f.ps}, nil
}
func (f *fakeNode) PowerOff(context.Context, *lifecycle.Host, lifecycle.PowerMode, bool) (lifecycle.Result, error) {
	f.call("PowerOff")
	f.powerOn = false
	return lifecycle.Result{Verb: "power off", ProvisionState: f.ps}, nil
}
func (f *fakeNode) Delete(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	f.call("Delete")
	return lifecycle.Result{}, errors.New("a deployment never deletes the node")
}
func (f *fakeNode) Detach(context.Context, *lifecycle.Host) (lifecycle.Result, error) {
	f.call("Detach")
	return lifecycle.Result{}, errors.New("a deployment never detaches")
}
func (f *fakeNode) Observe(context.Context, *lifecycle.Host) (lifecycle.Observation, error) {
	return lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", ProvisionState: f.ps, DeployedImage: f.image}, nil
}

type noWait struct{}

func (noWait) Wait(context.Context, string, time.Duration) error { return nil }

func testMachine(f *fakeNode) *lifecycle.Machine {
	return &lifecycle.Machine{Prov: f, Wait: noWait{}, BackoffUnit: time.Millisecond, Rand: func() float64 { return 0 }}
}

func TestDeploymentConvergeDeployAndUndeploy(t *testing.T) {
	f := &fakeNode{ps: "available"}
	m := testMachine(f)
	dm := testDeploymentModel()
	h, _ := dm.deployHost(context.Background(), lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateAvailable})
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{Retries: dm.retries()})
	if err != nil {
		t.Fatal(err)
	}
	if h.Status.State != lifecycle.StateProvisioned || f.ps != "active" || !f.powerOn {
		t.Fatalf("after deploy: state %q, node %q, power %v, calls %v", h.Status.State, f.ps, f.powerOn, f.calls)
	}
	for _, c := range f.registers {
		if c {
			t.Errorf("Register pushed driver_info (credentialsChanged) for a deployment")
		}
	}
	for _, c := range f.calls {
		if c == "Prepare" || c == "Inspect" || c == "Delete" {
			t.Errorf("unexpected %s: %v", c, f.calls)
		}
	}

	r := &deploymentResource{clients: &lifecycle.Clients{Machine: m}}
	obs := lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: f.image}
	u := undeployHost(obs, "")
	if err := r.undeploy(context.Background(), u, "", deprovisionRetries); err != nil {
		t.Fatal(err)
	}
	if u.Status.State != lifecycle.StateAvailable || f.ps != "available" || f.powerOn {
		t.Fatalf("after undeploy: state %q, node %q, power %v", u.Status.State, f.ps, f.powerOn)
	}
}

func TestDeploymentConvergeFailedDeploy(t *testing.T) {
	f := &fakeNode{ps: "available", failDeploy: "image download failed: 404"}
	m := testMachine(f)
	dm := testDeploymentModel()
	h, _ := dm.deployHost(context.Background(), lifecycle.Observation{Exists: true, ID: "node-1", Name: "host-a", State: lifecycle.StateAvailable})
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{Retries: dm.retries()})
	if err == nil {
		t.Fatal("a failing deploy converged")
	}
	msg := err.Error()
	for _, want := range []string{`host "host-a"`, "provisioning", "image download failed: 404", "http://images/ubuntu.qcow2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	deploys := 0
	for _, c := range f.calls {
		if c == "Provision" {
			deploys++
		}
	}
	if deploys < dm.retries()+1 {
		t.Errorf("%d Provision calls for %d retries", deploys, dm.retries())
	}
	// The clean-up leaves the host deprovisioned.
	r := &deploymentResource{clients: &lifecycle.Clients{Machine: m}}
	if err := r.undeploy(context.Background(), h, "", 0); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != lifecycle.StateAvailable || f.ps != "available" {
		t.Fatalf("after clean-up: state %q, node %q", h.Status.State, f.ps)
	}
}
