package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

const ubuntu = "http://images/ubuntu.qcow2"

func img(u string) *lifecycle.Image {
	return &lifecycle.Image{URL: u, Checksum: "abc", Format: "qcow2"}
}

func deploySpec() lifecycle.HostSpec {
	return lifecycle.HostSpec{
		Image:                  img(ubuntu),
		UserData:               "#cloud-config\n",
		MetaData:               map[string]any{"role": "worker", "local-hostname": "w1"},
		RootDeviceHints:        &lifecycle.RootDeviceHints{DeviceName: "/dev/sdb"},
		MaxProvisioningRetries: 3,
	}
}

func TestDeploymentStates(t *testing.T) {
	for _, c := range []struct {
		obs              lifecycle.Observation
		want             string
		drift            string // DeploymentDrift substring ("" none)
		resumable, isDep bool
	}{
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img(ubuntu)}, ubuntu, "", true, true},
		{lifecycle.Observation{State: lifecycle.StateProvisioning, ProvisionState: "wait call-back", DeployedImage: img(ubuntu)}, ubuntu, "", true, true},
		{lifecycle.Observation{State: lifecycle.StateProvisioning, ProvisionState: "deploy failed", DeployedImage: img(ubuntu)}, ubuntu, "", true, true},
		{lifecycle.Observation{State: lifecycle.StateAvailable, ProvisionState: "available", DeployedImage: img(ubuntu)}, ubuntu, "no longer provisioned", false, false},
		{lifecycle.Observation{State: lifecycle.StateDeprovisioning, ProvisionState: "clean wait"}, ubuntu, "no longer provisioned", false, false},
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active", DeployedImage: img("http://other")}, ubuntu, "runs image", false, true},
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active"}, ubuntu, `runs image ""`, false, true},
		// A custom deploy without image: only the state counts, and it is never resumed.
		{lifecycle.Observation{State: lifecycle.StateProvisioned, ProvisionState: "active"}, "", "", false, true},
	} {
		name := c.obs.ProvisionState + " want " + c.want
		got := lifecycle.DeploymentDrift(c.obs, c.want)
		if (c.drift == "") != (got == "") || !strings.Contains(got, c.drift) {
			t.Errorf("%s: DeploymentDrift = %q, want %q", name, got, c.drift)
		}
		if r := lifecycle.Resumable(c.obs, c.want); r != c.resumable {
			t.Errorf("%s: Resumable = %v", name, r)
		}
		if d := lifecycle.Deployed(c.obs.State); d != c.isDep {
			t.Errorf("%s: Deployed = %v", name, d)
		}
	}
	gone := lifecycle.Observation{Exists: true, State: lifecycle.StateAvailable, DeployedImage: img(ubuntu)}
	if u := lifecycle.DeployedImageURL(&gone); u != "" {
		t.Errorf("DeployedImageURL of an available host (instance_info left over) = %q", u)
	}
	gone.State = lifecycle.StateProvisioned
	if u := lifecycle.DeployedImageURL(&gone); u != ubuntu {
		t.Errorf("DeployedImageURL = %q", u)
	}
}

func TestDeploy(t *testing.T) {
	cases := []struct {
		name       string
		node       func(*lifecycletest.Node)
		ref        string
		ctx        func() (context.Context, context.CancelFunc)
		pre        string // DeployPreconditionError summary
		fail       string // DeployFailure text
		cleanupErr bool
		wantPS     string // node's provision state afterwards
		provisions int    // Provision calls at least
		saves      int
		retries    int // Retries - 2 (zero value: 2 retries)
	}{
		{name: "available host deployed", wantPS: "active", provisions: 1, saves: 1},
		{name: "by name", ref: "host-a", wantPS: "active", provisions: 1, saves: 1},
		{name: "not found", ref: "nope", pre: "Host not found"},
		{name: "unreadable", node: func(n *lifecycletest.Node) { n.ObserveErr = errors.New("connection refused") }, pre: "Reading host node-1"},
		{name: "busy with another image", node: func(n *lifecycletest.Node) { n.PS, n.Image = "active", img("http://other") }, pre: "Host not available", wantPS: "active"},
		{name: "manageable", node: func(n *lifecycletest.Node) { n.PS = "manageable" }, pre: "Host not available", wantPS: "manageable"},
		{name: "interrupted deploy resumed", node: func(n *lifecycletest.Node) { n.PS, n.Image = "wait call-back", img(ubuntu) }, wantPS: "active", provisions: 1, saves: 1},
		{name: "deployed by an interrupted apply: adopted as is", node: func(n *lifecycletest.Node) { n.PS, n.Image, n.PoweredOn = "active", img(ubuntu), true }, wantPS: "active", saves: 1},
		{name: "failed deploy undone", node: func(n *lifecycletest.Node) { n.FailDeploy = "image download failed: 404" },
			fail: "image download failed: 404", wantPS: "available", provisions: 3, saves: 2},
		{name: "failed deploy and failed clean-up", node: func(n *lifecycletest.Node) { n.FailDeploy, n.FailUndeploy = "404", "disk on fire" },
			fail: "404", cleanupErr: true, wantPS: "clean failed", provisions: 1, saves: 2, retries: -2},
		{name: "cut short: left for the next destroy", node: func(n *lifecycletest.Node) { n.FailDeploy = "404" },
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, func() {}
			}, fail: "context canceled", wantPS: "available", saves: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			if c.node != nil {
				c.node(n)
			}
			ps0, _, _ := n.State()
			ref := c.ref
			if ref == "" {
				ref = "node-1"
			}
			ctx, cancel := context.Background(), func() {}
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			var saved []lifecycle.State
			h, err := lifecycletest.NewMachine(n).Deploy(ctx, lifecycle.DeployRequest{
				Ref: ref, Spec: deploySpec(), Retries: 2 + c.retries, CleanupTimeout: time.Minute,
				Save: func(h *lifecycle.Host, obs *lifecycle.Observation) {
					if obs == nil || obs.ID != "node-1" {
						t.Errorf("saved without the node read back: %+v", obs)
					}
					saved = append(saved, h.Status.State)
				},
			})
			var pre *lifecycle.DeployPreconditionError
			var fail *lifecycle.DeployFailure
			switch {
			case c.pre != "":
				if !errors.As(err, &pre) || pre.Summary != c.pre || h != nil {
					t.Fatalf("err = %v (host %v), want precondition %q", err, h, c.pre)
				}
				if n.Count("Provision")+n.Count("Deprovision")+n.Count("PowerOn") > 0 {
					t.Errorf("a refused deploy acted: %v", n.Calls())
				}
			case c.fail != "":
				if !errors.As(err, &fail) || !strings.Contains(fail.Err.Error(), c.fail) || (fail.CleanupErr != nil) != c.cleanupErr {
					t.Fatalf("err = %v (%+v), want a failure %q, clean-up error %v", err, fail, c.fail, c.cleanupErr)
				}
				if c.cleanupErr && !strings.Contains(fail.CleanupErr.Error(), "disk on fire") {
					t.Errorf("clean-up error %v", fail.CleanupErr)
				}
			case err != nil:
				t.Fatal(err)
			}
			ps, _, _ := n.State()
			want := c.wantPS
			if want == "" {
				want = ps0
			}
			if ps != want {
				t.Errorf("node %q, want %q (calls %v)", ps, want, n.Calls())
			}
			if got := n.Count("Provision"); got < c.provisions || (c.provisions == 0 && got > 0) {
				t.Errorf("%d Provision calls, want %d (%v)", got, c.provisions, n.Calls())
			}
			if len(saved) != c.saves {
				t.Errorf("saved %d times (%v), want %d", len(saved), saved, c.saves)
			}
			if n.CredentialsPushed() || n.Count("Inspect")+n.Count("Prepare")+n.Count("Delete") > 0 {
				t.Errorf("a deployment registered, inspected, prepared or deleted: %v", n.Calls())
			}
		})
	}
}

// What Deploy hands the provisioner: the host's name and boot mode, the
// node UUID under meta_data's defaults, hints that skip preparing.
func TestDeployHost(t *testing.T) {
	n := lifecycletest.New()
	n.BootMode = lifecycle.BootModeUEFISecureBoot
	spec := deploySpec()
	spec.MetaData["uuid"] = "mine"
	if _, err := lifecycletest.NewMachine(n).Deploy(context.Background(), lifecycle.DeployRequest{Ref: "node-1", Spec: spec}); err != nil {
		t.Fatal(err)
	}
	d := n.Deployed()
	if len(d) == 0 {
		t.Fatal("no Provision call")
	}
	h := d[0]
	if h.Spec.Name != "host-a" || !h.Spec.Online || !h.Spec.RegisteredElsewhere || h.Spec.BootMode != lifecycle.BootModeUEFISecureBoot {
		t.Errorf("spec %+v", h.Spec)
	}
	if h.Spec.MetaData["uuid"] != "mine" || h.Spec.MetaData["role"] != "worker" {
		t.Errorf("meta_data %v", h.Spec.MetaData)
	}
	if h.Status.PreparedRootDeviceHints == nil || h.Status.PreparedRootDeviceHints.DeviceName != "/dev/sdb" {
		t.Errorf("the hints override must not send the host through preparing: %+v", h.Status.PreparedRootDeviceHints)
	}
	if h.Status.GoodCredentials != h.Spec.BMC.CredentialsVersion || h.Spec.BMC.HasCredentials() {
		t.Errorf("a deployment carries no BMC access and pushes none: %+v", h.Spec.BMC)
	}

	// Without meta_data, the node UUID is the default.
	n = lifecycletest.New()
	spec = deploySpec()
	spec.MetaData = nil
	if _, err := lifecycletest.NewMachine(n).Deploy(context.Background(), lifecycle.DeployRequest{Ref: "node-1", Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if md := n.Deployed()[0].Spec.MetaData; md["uuid"] != "node-1" || len(md) != 1 {
		t.Errorf("default meta_data %v", md)
	}
}

func TestUndeploy(t *testing.T) {
	for _, c := range []struct {
		name   string
		node   func(*lifecycletest.Node)
		ref    lifecycle.HostRef
		found  bool
		err    string
		wantPS string
	}{
		{name: "deployed", ref: lifecycle.HostRef{ID: "node-1"}, found: true, wantPS: "available"},
		{name: "by name, failed deploy", node: func(n *lifecycletest.Node) { n.PS = "deploy failed" }, ref: lifecycle.HostRef{Name: "host-a", State: lifecycle.StateProvisioning}, found: true, wantPS: "available"},
		{name: "gone", node: func(n *lifecycletest.Node) { n.Gone = true }, ref: lifecycle.HostRef{ID: "node-1"}, wantPS: "active"},
		{name: "unreadable", node: func(n *lifecycletest.Node) { n.ObserveErr = errors.New("503") }, ref: lifecycle.HostRef{ID: "node-1"}, err: "503", wantPS: "active"},
		{name: "cleaning fails", node: func(n *lifecycletest.Node) { n.FailUndeploy = "disk on fire" }, ref: lifecycle.HostRef{ID: "node-1"}, found: true, err: "disk on fire", wantPS: "clean failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.PS, n.Image, n.PoweredOn = "active", img(ubuntu), true
			if c.node != nil {
				c.node(n)
			}
			h, found, err := lifecycletest.NewMachine(n).Undeploy(context.Background(), c.ref, "", 1)
			if found != c.found || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("found %v, err %v; want %v, %q", found, err, c.found, c.err)
			}
			ps, image, on := n.State()
			if ps != c.wantPS {
				t.Errorf("node %q, want %q (%v)", ps, c.wantPS, n.Calls())
			}
			if c.found && c.err == "" && (on || image != "" || h.Status.State != lifecycle.StateAvailable) {
				t.Errorf("after undeploy: power %v, image %q, state %q", on, image, h.Status.State)
			}
		})
	}
}

func TestRefreshAndImportDeployment(t *testing.T) {
	for _, c := range []struct {
		name      string
		node      func(*lifecycletest.Node)
		gone      string
		importErr string
	}{
		{name: "deployed"},
		{name: "deleted", node: func(n *lifecycletest.Node) { n.Gone = true }, gone: "no longer exists", importErr: "no Ironic node"},
		{name: "undeployed", node: func(n *lifecycletest.Node) { n.PS = "available" }, gone: "no longer provisioned", importErr: "not deployed with an image"},
		{name: "other image", node: func(n *lifecycletest.Node) { n.Image = img("http://other") }, gone: "runs image"},
		{name: "still deploying", node: func(n *lifecycletest.Node) { n.PS = "wait call-back" }, importErr: `"provisioning"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.PS, n.Image = "active", img(ubuntu)
			if c.node != nil {
				c.node(n)
			}
			m := lifecycletest.NewMachine(n)
			_, gone, err := m.RefreshDeployment(context.Background(), lifecycle.HostRef{ID: "node-1", State: lifecycle.StateProvisioned}, ubuntu)
			if err != nil || (gone == "") != (c.gone == "") || !strings.Contains(gone, c.gone) {
				t.Errorf("RefreshDeployment: gone %q, err %v; want %q", gone, err, c.gone)
			}
			_, err = m.ImportDeployment(context.Background(), "host-a")
			if (err == nil) != (c.importErr == "") || (err != nil && !strings.Contains(err.Error(), c.importErr)) {
				t.Errorf("ImportDeployment: %v, want %q", err, c.importErr)
			}
		})
	}
	n := lifecycletest.New()
	n.ObserveErr = errors.New("503")
	if _, _, err := lifecycletest.NewMachine(n).RefreshDeployment(context.Background(), lifecycle.HostRef{ID: "node-1"}, ubuntu); err == nil {
		t.Error("a failed read refreshed")
	}
}
