package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func nodesNode(name, state, lastError string) nodes.Node {
	return nodes.Node{Name: name, Driver: "fake-hardware", ProvisionState: state, LastError: lastError,
		ResourceClass: "baremetal", Traits: []string{"CUSTOM_TEST"}}
}

func TestFakeRegisterCreatesNodeAndManages(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	h.Spec.BootMACAddress = "52:54:00:AA:BB:01"
	registered(t, p, h)

	n := srv.MustNode("h1")
	if n.ProvisionState != "manageable" || n.UUID != h.Status.ID {
		t.Fatalf("node %s in %q, want manageable with id %s", n.UUID, n.ProvisionState, h.Status.ID)
	}
	if n.AutomatedClean == nil || !*n.AutomatedClean || !slices.Equal(n.Traits, []string{"CUSTOM_TEST"}) {
		t.Errorf("automated_clean %v, traits %v", n.AutomatedClean, n.Traits)
	}
	if ps := srv.Ports(); len(ps) != 1 || ps[0].Address != "52:54:00:aa:bb:01" || ps[0].NodeUUID != n.UUID {
		t.Errorf("ports %+v, want one boot port with the lower-case MAC", ps)
	}
	want := []string{
		"POST /nodes",
		"PUT /nodes/" + n.UUID + "/traits",
		"POST /ports",
		"PUT /nodes/" + n.UUID + "/states/provision",
	}
	if got := srv.Calls(); !slices.Equal(got, want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
	// Registered: another pass writes nothing.
	srv.ResetRequests()
	registered(t, p, h)
	if got := srv.Calls(); len(got) != 0 {
		t.Errorf("a registered host wrote %q", got)
	}
}

// Register finds the node by id, then name, then boot MAC (BMO's lookup
// order), and a node found by MAC under another name is a conflict.
func TestFakeRegisterFinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(srv *ironictest.Server, h *lifecycle.Host) string
		conflict bool
	}{
		{"by id", func(srv *ironictest.Server, h *lifecycle.Host) string {
			id := srv.AddNode(nodesNode("", "manageable", ""))
			h.Status.ID = id
			return id
		}, false},
		{"by name", func(srv *ironictest.Server, h *lifecycle.Host) string {
			return srv.AddNode(nodesNode(h.Spec.Name, "manageable", ""))
		}, false},
		{"by boot MAC, unnamed node", func(srv *ironictest.Server, h *lifecycle.Host) string {
			id := srv.AddNode(nodesNode("", "manageable", ""))
			srv.AddPort(id, h.Spec.BootMACAddress)
			return id
		}, false},
		{"by boot MAC, node named for another host", func(srv *ironictest.Server, h *lifecycle.Host) string {
			id := srv.AddNode(nodesNode("someone-else", "manageable", ""))
			srv.AddPort(id, h.Spec.BootMACAddress)
			return id
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := onFake(t)
			h := fakeSpecHost("h1")
			h.Spec.BootMACAddress = "52:54:00:00:00:01"
			want := tc.setup(srv, h)
			res, id, err := p.Register(context.Background(), h, false, false)
			if err != nil {
				t.Fatal(err)
			}
			if tc.conflict {
				if !strings.Contains(res.ErrorMessage, "conflicts with existing node someone-else") {
					t.Fatalf("ErrorMessage %q, want a MAC conflict naming the node", res.ErrorMessage)
				}
				if srv.Count(http.MethodPost, "/nodes") != 0 {
					t.Fatal("created a second node for a conflicting MAC")
				}
				return
			}
			if id != want || srv.NodeCount() != 1 {
				t.Fatalf("id %q (want %q), %d nodes", id, want, srv.NodeCount())
			}
		})
	}
}

// A BMC that rejects the credentials fails registration once; the same
// credentials are not sent again, new ones are (BMO's registration error).
func TestFakeManageRetriedOnlyWithNewCredentials(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	ctx := context.Background()
	// The first manage fails as a BMC with bad credentials does.
	res, id, err := p.Register(ctx, h, true, false)
	if err != nil || !res.Dirty {
		t.Fatalf("first pass: %+v, %v", res, err)
	}
	h.Status.ID = id
	srv.FailNext(id, "Failed to get power state: 401 Unauthorized")
	srv.Finish(id)
	manages := func() int { return srv.Count(http.MethodPut, "/states/provision") }
	if manages() != 1 {
		t.Fatalf("%d manage requests, want 1", manages())
	}

	for _, credentialsChanged := range []bool{false, true} {
		res, _, err = p.Register(ctx, h, credentialsChanged, false)
		if err != nil || res.Verb != "manage" || !strings.Contains(res.ErrorMessage, "401 Unauthorized") {
			t.Fatalf("credentialsChanged=%v: %+v, %v; want the registration error", credentialsChanged, res, err)
		}
	}
	if manages() != 1 {
		t.Fatalf("the same credentials were sent again: %d manage requests", manages())
	}
	// New credentials: one new attempt.
	h.Spec.BMC.CredentialsVersion = "v2"
	res, _, err = p.Register(ctx, h, true, false)
	if err != nil || !res.Dirty || manages() != 2 {
		t.Fatalf("new credentials: %+v, %v, %d manage requests; want a second manage", res, err, manages())
	}
	// A second Provisioner (another provider process) tries once again.
	p2, _ := onFake(t)
	_ = p2
	if p.manageTriedWith(id) != "v2" {
		t.Fatalf("manageTried = %q", p.manageTriedWith(id))
	}
}

// Each Ironic failed state ends its action with Ironic's last_error and the
// verb that failed; the state machine turns the action into the error type
// (lifecycle's tables test that half).
func TestFakeFailedStates(t *testing.T) {
	img := osImage()
	for _, tc := range []struct {
		state, verb, want string
		run               func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error)
	}{
		{"enroll", "manage", "bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			res, _, err := p.Register(context.Background(), h, false, false)
			return res, err
		}},
		{"inspect failed", "inspect", "bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			res, _, _, err := p.Inspect(context.Background(), h, false, false)
			return res, err
		}},
		{"clean failed", "clean", "bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			res, _, err := p.Prepare(context.Background(), h, true, false)
			return res, err
		}},
		{"clean failed", "provide", "Cleaning failed: bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Provide(context.Background(), h)
		}},
		{"deploy failed", "active", "Image provisioning failed (http://images/os.qcow2, abc): bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Provision(context.Background(), h, false)
		}},
		{"error", "deleted", "bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Deprovision(context.Background(), h, false)
		}},
		{"adopt failed", "adopt", "Host adoption failed: bad credentials", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Adopt(context.Background(), h, false)
		}},
	} {
		t.Run(tc.state+"/"+tc.verb, func(t *testing.T) {
			p, srv := onFake(t)
			h := fakeSpecHost("h1")
			h.Spec.Image = img
			id := nodeIn(srv, h, tc.state, "bad credentials")
			srv.UpdateNode(id, func(n *nodes.Node) {
				n.InstanceInfo = map[string]any{"image_source": img.URL, "image_os_hash_algo": "sha256", "image_os_hash_value": img.Checksum}
			})
			res, err := tc.run(p, h)
			if err != nil {
				t.Fatal(err)
			}
			if res.Dirty || res.Verb != tc.verb || res.ProvisionState != tc.state || res.ErrorMessage != tc.want {
				t.Fatalf("result %+v, want verb %q, state %q, error %q", res, tc.verb, tc.state, tc.want)
			}
			for _, c := range srv.Calls() {
				if strings.Contains(c, "/states/") {
					t.Fatalf("a failed state was acted on without a retry: %q", c)
				}
			}
		})
	}
}

// Retrying after a failure (restartOnFailure) re-issues the verb.
func TestFakeRestartOnFailure(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "inspect failed", "timeout")
	res, started, _, err := p.Inspect(context.Background(), h, true, false)
	if err != nil || !started || !res.Dirty {
		t.Fatalf("%+v started=%v %v", res, started, err)
	}
	if n := srv.MustNode(id); n.ProvisionState != "manageable" || n.InspectionFinishedAt == nil {
		t.Fatalf("node in %q after inspection", n.ProvisionState)
	}
}

// Soft power off first; a driver without soft power off gets a hard one;
// hard mode and a host that failed before go straight to hard.
func TestFakePowerOff(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mode          lifecycle.PowerMode
		errorCount    int
		softUnsupport bool
		want          []string
	}{
		{"soft", lifecycle.PowerSoft, 0, false, []string{"soft power off"}},
		{"soft unsupported falls back to hard", lifecycle.PowerSoft, 0, true, []string{"soft power off", "power off"}},
		{"hard", lifecycle.PowerHard, 0, false, []string{"power off"}},
		{"after a failure", lifecycle.PowerSoft, 1, false, []string{"power off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := onFake(t)
			srv.SoftPowerOffUnsupported = tc.softUnsupport
			h := fakeSpecHost("h1")
			h.Status.ErrorCount = tc.errorCount
			id := nodeIn(srv, h, "active", "")
			srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState = "power on" })
			res := until(t, "power off", func() (lifecycle.Result, error) { return p.PowerOff(context.Background(), h, tc.mode, false) })
			if res.ErrorMessage != "" || srv.MustNode(id).PowerState != "power off" {
				t.Fatalf("%+v, power %q", res, srv.MustNode(id).PowerState)
			}
			var targets []string
			for _, r := range srv.Requests() {
				if strings.HasSuffix(r.Path, "/states/power") {
					targets = append(targets, between(r.Body, `"target":"`, `"`))
				}
			}
			if !slices.Equal(targets, tc.want) {
				t.Fatalf("power targets %q, want %q", targets, tc.want)
			}
		})
	}
}

// A node whose cleaning failed keeps target_provision_state (manageable)
// with nothing running: powering it off (before deleting it) reports the
// failure once, as BMO does, and then, forced, powers it off instead of
// waiting for an operation that is not there. A node Ironic works on still
// waits.
func TestFakePowerOffFailedState(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "clean failed", "")
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.PowerState, n.TargetProvisionState, n.LastError = "power on", "manageable", "Firmware update failed for node"
	})
	ctx := context.Background()
	res, err := p.PowerOff(ctx, h, lifecycle.PowerHard, false)
	if err != nil || !strings.Contains(res.ErrorMessage, "Firmware update failed") {
		t.Fatalf("unforced: %+v, %v", res, err)
	}
	res = until(t, "forced power off", func() (lifecycle.Result, error) { return p.PowerOff(ctx, h, lifecycle.PowerHard, true) })
	if res.ErrorMessage != "" || srv.MustNode(id).PowerState != "power off" {
		t.Fatalf("forced: %+v, power %q", res, srv.MustNode(id).PowerState)
	}
	busy := nodeIn(srv, fakeSpecHost("h2"), "cleaning", "")
	srv.UpdateNode(busy, func(n *nodes.Node) { n.PowerState, n.TargetProvisionState = "power on", "available" })
	before := srv.Count(http.MethodPut, "/states/power")
	if res, err := p.PowerOff(ctx, fakeSpecHost("h2"), lifecycle.PowerHard, true); err != nil || !res.Dirty {
		t.Fatalf("busy: %+v, %v", res, err)
	}
	if n := srv.Count(http.MethodPut, "/states/power"); n != before {
		t.Fatalf("a power request was sent while Ironic cleans the node")
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

func TestFakePowerOn(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "active", "")
	res := until(t, "power on", func() (lifecycle.Result, error) { return p.PowerOn(context.Background(), h, false) })
	if res.ErrorMessage != "" || srv.MustNode(id).PowerState != "power on" {
		t.Fatalf("%+v", res)
	}
	// A failed power change is reported, not retried, unless forced.
	srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState, n.LastError = "power off", "IPMI timeout" })
	res, err := p.PowerOn(context.Background(), h, false)
	if err != nil || !strings.Contains(res.ErrorMessage, "IPMI timeout") {
		t.Fatalf("%+v, %v", res, err)
	}
	if res = until(t, "forced power on", func() (lifecycle.Result, error) { return p.PowerOn(context.Background(), h, true) }); res.ErrorMessage != "" {
		t.Fatalf("forced: %+v", res)
	}
}

// A power request Ironic accepted is not sent again while the node does not
// show it yet (Ironic records target_power_state in a task it starts after
// answering 202); after powerSettle without a sign, it is.
func TestFakePowerRequestSettles(t *testing.T) {
	now := time.Now()
	p, srv := onFake(t, WithStallTimeout(0, func() time.Time { return now }))
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "available", "")
	srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState = "power off" })
	ctx := context.Background()
	if res, err := p.PowerOn(ctx, h, false); err != nil || !res.Dirty {
		t.Fatalf("first power on: %+v, %v", res, err)
	}
	// Ironic has not shown the request yet.
	srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState, n.TargetPowerState = "power off", "" })
	if res, err := p.PowerOn(ctx, h, false); err != nil || !res.Dirty {
		t.Fatalf("second pass: %+v, %v", res, err)
	}
	if n := srv.Count(http.MethodPut, "/states/power"); n != 1 {
		t.Fatalf("%d power requests while the first settles, want 1", n)
	}
	now = now.Add(powerSettle + time.Second)
	if res, err := p.PowerOn(ctx, h, false); err != nil || !res.Dirty {
		t.Fatalf("after the settle time: %+v, %v", res, err)
	}
	if n := srv.Count(http.MethodPut, "/states/power"); n != 2 {
		t.Fatalf("%d power requests after the settle time, want 2", n)
	}
	// Another target is never held back.
	srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState, n.TargetPowerState = "power on", "" })
	if res, err := p.PowerOff(ctx, h, lifecycle.PowerHard, false); err != nil || !res.Dirty {
		t.Fatalf("power off: %+v, %v", res, err)
	}
	if n := srv.Count(http.MethodPut, "/states/power"); n != 3 {
		t.Fatalf("%d power requests, want 3", n)
	}
}

// Delete: settled states delete at once; active and failed states go
// through maintenance first (Ironic refuses them otherwise); working states
// wait; a missing node is done.
func TestFakeDelete(t *testing.T) {
	for _, tc := range []struct {
		state string
		want  []string // writes, with ID for the node's UUID
		wait  bool
	}{
		{"available", []string{"DELETE /nodes/ID"}, false},
		{"manageable", []string{"DELETE /nodes/ID"}, false},
		{"enroll", []string{"DELETE /nodes/ID"}, false},
		{"active", []string{"PUT /nodes/ID/maintenance", "DELETE /nodes/ID"}, false},
		{"deploy failed", []string{"PUT /nodes/ID/maintenance", "DELETE /nodes/ID"}, false},
		{"clean wait", []string{"PUT /nodes/ID/maintenance", "DELETE /nodes/ID"}, false},
		{"cleaning", nil, true},
	} {
		t.Run(tc.state, func(t *testing.T) {
			p, srv := onFake(t)
			srv.Settle = false
			h := fakeSpecHost("h1")
			id := nodeIn(srv, h, tc.state, "")
			if tc.wait {
				res, err := p.Delete(context.Background(), h)
				if err != nil || !res.Dirty || res.RequeueAfter != p.slowPoll || len(srv.Calls()) != 0 {
					t.Fatalf("%+v, %v, writes %q: want a wait", res, err, srv.Calls())
				}
				return
			}
			res := until(t, "delete", func() (lifecycle.Result, error) { return p.Delete(context.Background(), h) })
			if res.ErrorMessage != "" || srv.NodeCount() != 0 {
				t.Fatalf("%+v, %d nodes left", res, srv.NodeCount())
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, strings.ReplaceAll(w, "ID", id))
			}
			if got := srv.Calls(); !slices.Equal(got, want) {
				t.Fatalf("writes %q, want %q", got, want)
			}
			// Gone: done, no error.
			if res, err := p.Delete(context.Background(), h); err != nil || res.Dirty {
				t.Fatalf("second delete: %+v, %v", res, err)
			}
		})
	}
}

func TestFakeDetachMissingNode(t *testing.T) {
	p, _ := onFake(t)
	h := fakeSpecHost("gone")
	if res, err := p.Detach(context.Background(), h); err != nil || res.Dirty {
		t.Fatalf("%+v, %v", res, err)
	}
}

// A node locked by a conductor (409 NodeLocked) is retried by the
// transport; when the lock outlasts the retries the action asks to be
// called again soon instead of failing.
func TestFake409(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "manageable", "")
	srv.NodeLocked(http.MethodPut, "/states/provision", 2)
	res, err := p.Provide(context.Background(), h)
	if err != nil || !res.Dirty || res.RequeueAfter != p.fastPoll {
		t.Fatalf("%+v, %v", res, err)
	}
	if n := srv.Count(http.MethodPut, "/states/provision"); n != 3 {
		t.Fatalf("%d provision requests, want 3 (two 409s retried)", n)
	}
	if srv.MustNode(id).ProvisionState != "available" {
		t.Fatal("provide did not happen")
	}

	srv.NodeLocked(http.MethodPatch, "", 0) // locked for good
	h.Spec.RootDeviceHints = &lifecycle.RootDeviceHints{DeviceName: "/dev/sda"}
	srv.UpdateNode(id, func(n *nodes.Node) { n.ProvisionState = "manageable" })
	res, _, err = p.Prepare(context.Background(), h, true, false)
	if err != nil || !res.Dirty || res.RequeueAfter != p.fastPoll || res.ErrorMessage != "" {
		t.Fatalf("locked node: %+v, %v; want a retry in %v", res, err, p.fastPoll)
	}
}

// Within a pass the node is read once until anything is written; the
// transport forgets the pass's reads on every write, whoever writes.
func TestFakeMemoClearedByEveryWrite(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	nodeIn(srv, h, "manageable", "")
	ctx := lifecycle.WithPass(context.Background())
	gets := func() int { return srv.Count(http.MethodGet, "/nodes/"+h.Status.ID) }
	for range 3 {
		if _, err := p.Observe(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if gets() != 1 {
		t.Fatalf("%d GETs in one pass, want 1", gets())
	}
	// Any write, even one this package does not make through update().
	if err := nodes.SetMaintenance(ctx, p.sc, h.Status.ID, nodes.MaintenanceOpts{Reason: "x"}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	obs, err := p.Observe(ctx, h)
	if err != nil || gets() != 2 || !obs.Maintenance {
		t.Fatalf("after a write: %v, %d GETs, maintenance %v; want a fresh read", err, gets(), obs.Maintenance)
	}
}

func TestFakeObserve(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	obs, err := p.Observe(context.Background(), h)
	if err != nil || obs.Exists {
		t.Fatalf("missing node: %+v, %v", obs, err)
	}
	id := nodeIn(srv, h, "active", "")
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.PowerState = "power on"
		n.Extra = map[string]any{"labels": map[string]any{"rack": "r1"}}
		n.InstanceInfo = map[string]any{"image_source": "http://images/os.qcow2"}
	})
	obs, err = p.Observe(context.Background(), h)
	if err != nil || !obs.Exists || obs.ID != id || obs.ProvisionState != "active" || obs.PoweredOn == nil || !*obs.PoweredOn ||
		obs.Labels["rack"] != "r1" || obs.DeployedImage == nil || obs.DeployedImage.URL != "http://images/os.qcow2" {
		t.Fatalf("%+v, %v", obs, err)
	}
}

// The whole life of a host: register, inspect, prepare with root device
// hints, provide, deploy with a config drive, undeploy, delete.
func TestFakeLifecycle(t *testing.T) {
	p, srv := onFake(t)
	ctx := context.Background()
	h := fakeSpecHost("h1")
	h.Spec.BootMACAddress = "52:54:00:00:00:09"
	registered(t, p, h)
	id := h.Status.ID
	srv.SetInventory(id, map[string]any{"inventory": map[string]any{
		"cpu":    map[string]any{"count": 8, "architecture": "x86_64"},
		"memory": map[string]any{"physical_mb": 16384},
		"disks":  []any{map[string]any{"name": "/dev/sda", "size": 500107862016}},
	}})

	var details *lifecycle.HardwareDetails
	res := until(t, "inspect", func() (lifecycle.Result, error) {
		res, _, d, err := p.Inspect(ctx, h, false, false)
		if d != nil {
			details = d
		}
		return res, err
	})
	if res.ErrorMessage != "" || details == nil || details.CPUCount != 8 || details.RAMMebibytes != 16384 {
		t.Fatalf("inspect: %+v, details %+v", res, details)
	}

	h.Spec.RootDeviceHints = &lifecycle.RootDeviceHints{DeviceName: "/dev/sda"}
	res = until(t, "prepare", func() (lifecycle.Result, error) {
		res, _, err := p.Prepare(ctx, h, true, false)
		return res, err
	})
	if n := srv.MustNode(id); res.ErrorMessage != "" || n.Properties["root_device"] == nil {
		t.Fatalf("prepare: %+v, properties %v", res, n.Properties)
	}

	if res = until(t, "provide", func() (lifecycle.Result, error) { return p.Provide(ctx, h) }); res.ErrorMessage != "" {
		t.Fatalf("provide: %+v", res)
	}

	h.Spec.Image = osImage()
	h.Spec.UserData = "#cloud-config\n"
	if res = until(t, "provision", func() (lifecycle.Result, error) { return p.Provision(ctx, h, false) }); res.ErrorMessage != "" {
		t.Fatalf("provision: %+v", res)
	}
	n := srv.MustNode(id)
	if n.ProvisionState != "active" || n.InstanceInfo["image_source"] != "http://images/os.qcow2" || n.PowerState != "power on" {
		t.Fatalf("after deploy: %q, instance_info %v, power %q", n.ProvisionState, n.InstanceInfo, n.PowerState)
	}
	var deploy ironictest.Request
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/states/provision") && strings.Contains(r.Body, `"target":"active"`) {
			deploy = r
		}
	}
	if !strings.Contains(deploy.Body, "configdrive") {
		t.Errorf("deploy request %q carries no config drive", deploy.Body)
	}

	if res = until(t, "deprovision", func() (lifecycle.Result, error) { return p.Deprovision(ctx, h, false) }); res.ErrorMessage != "" {
		t.Fatalf("deprovision: %+v", res)
	}
	if srv.MustNode(id).ProvisionState != "available" {
		t.Fatal("not available after undeploy")
	}
	if res = until(t, "delete", func() (lifecycle.Result, error) { return p.Delete(ctx, h) }); res.ErrorMessage != "" || srv.NodeCount() != 0 {
		t.Fatalf("delete: %+v", res)
	}
}

func TestFakeDeployValidationFailure(t *testing.T) {
	p, srv, h, id := imageHostIn(t, "available")
	srv.SetValidation(id, "deploy", "no image_source")
	res, err := p.Provision(context.Background(), h, false)
	if err != nil || res.Verb != "validate" || !strings.Contains(res.ErrorMessage, "deploy: no image_source") {
		t.Fatalf("%+v, %v", res, err)
	}
}

func TestFakeDeployFailureThenRetry(t *testing.T) {
	p, srv, h, id := imageHostIn(t, "available")
	srv.FailNext(id, "image download failed")
	res := until(t, "provision", func() (lifecycle.Result, error) { return p.Provision(context.Background(), h, false) })
	if !strings.Contains(res.ErrorMessage, "image download failed") || res.ProvisionState != "deploy failed" {
		t.Fatalf("%+v", res)
	}
	res = until(t, "retry", func() (lifecycle.Result, error) { return p.Provision(context.Background(), h, true) })
	if res.ErrorMessage != "" || srv.MustNode(id).ProvisionState != "active" {
		t.Fatalf("retry: %+v", res)
	}
}

func TestFakeAdopt(t *testing.T) {
	p, srv, h, id := imageHostIn(t, "manageable")
	if res := until(t, "adopt", func() (lifecycle.Result, error) { return p.Adopt(context.Background(), h, false) }); res.ErrorMessage != "" {
		t.Fatalf("%+v", res)
	}
	if n := srv.MustNode(id); n.ProvisionState != "active" || n.InstanceInfo["image_source"] == nil {
		t.Fatalf("adopted node in %q, instance_info %v", n.ProvisionState, n.InstanceInfo)
	}
}

// Register refuses what it cannot do before touching Ironic.
func TestFakeRegisterPrechecks(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	h.Spec.DisablePowerOff = true
	if res, _, err := p.Register(context.Background(), h, true, false); err != nil || !strings.Contains(res.ErrorMessage, "1.95") {
		t.Fatalf("disable power off on 1.82: %+v, %v", res, err)
	}
	h = fakeSpecHost("h2")
	h.Spec.BMC.NeedsMAC = true
	if res, _, err := p.Register(context.Background(), h, true, false); err != nil || !strings.Contains(res.ErrorMessage, "boot MAC") {
		t.Fatalf("needs MAC: %+v, %v", res, err)
	}
	h = fakeSpecHost("h3")
	h.Spec.BMC = lifecycle.BMCAccess{}
	if res, _, err := p.Register(context.Background(), h, true, false); err != nil || res.ErrorMessage == "" {
		t.Fatalf("no credentials: %+v, %v", res, err)
	}
	if len(srv.Calls()) != 0 {
		t.Fatalf("prechecks wrote %q", srv.Calls())
	}
}

// Ironic errors reach the caller as Ironic's faultstring with the status.
func TestFakeIronicErrorsNameTheFault(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	nodeIn(srv, h, "manageable", "")
	srv.AddFault(ironictest.Fault{Method: http.MethodPut, PathSuffix: "/states/provision", Status: http.StatusBadRequest, Message: "The requested action is not valid."})
	_, err := p.Provide(context.Background(), h)
	if err == nil || !strings.Contains(err.Error(), "HTTP 400: The requested action is not valid.") {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Fatal("a 400 is not a missing node")
	}
}

// A Redfish host's firmware_interface is left out on an Ironic older than
// 1.86 (it would reject the node), and kept on a newer one.
func TestFakeFirmwareInterfaceNeedsMicroversion(t *testing.T) {
	p, srv := onFake(t, WithPollIntervals(time.Second, 2*time.Second))
	if p.fastPoll != time.Second || p.slowPoll != 2*time.Second {
		t.Fatalf("poll intervals %v/%v", p.fastPoll, p.slowPoll)
	}
	h := fakeSpecHost("h1")
	h.Spec.BMC.Interfaces = map[string]string{"firmware_interface": "redfish", "boot_interface": "redfish-virtual-media"}
	if _, _, err := p.Register(context.Background(), h, true, false); err != nil {
		t.Fatal(err)
	}
	n := srv.MustNode("h1")
	if n.FirmwareInterface != "" || n.BootInterface != "redfish-virtual-media" {
		t.Fatalf("on 1.82: firmware_interface %q, boot_interface %q", n.FirmwareInterface, n.BootInterface)
	}
}

// A node locked while Register patches it: the id is still returned, so
// the host never loses track of its node.
func TestFakeRegisterKeepsIDWhenLocked(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := srv.AddNode(nodesNode("h1", "manageable", ""))
	srv.NodeLocked(http.MethodPatch, "", 0)
	res, got, err := p.Register(context.Background(), h, true, false)
	if err != nil || got != id || !res.Dirty {
		t.Fatalf("%+v, id %q (want %q), %v", res, got, id, err)
	}
}

func TestIntProp(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{{8.0, 8}, {8, 8}, {"8", 8}, {json.Number("8"), 8}, {nil, 0}} {
		if got := intProp(tc.v); got != tc.want {
			t.Errorf("intProp(%#v) = %d", tc.v, got)
		}
	}
}
