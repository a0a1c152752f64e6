package ironic

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// What each action does from each Ironic state, as a call-sequence table:
// the first write it makes ("" for none), and whether it waits, finishes or
// fails. Nodes stay in their state (Settle off), so one call is one step.
func TestFakeActionFromState(t *testing.T) {
	img := osImage()
	type action func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error)
	inspect := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		res, _, _, err := p.Inspect(context.Background(), h, false, false)
		return res, err
	}
	prepare := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		res, _, err := p.Prepare(context.Background(), h, true, false)
		return res, err
	}
	prepareRetry := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		res, _, err := p.Prepare(context.Background(), h, true, true)
		return res, err
	}
	provide := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.Provide(context.Background(), h)
	}
	provision := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.Provision(context.Background(), h, false)
	}
	deprovision := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.Deprovision(context.Background(), h, false)
	}
	deprovisionRetry := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.Deprovision(context.Background(), h, true)
	}
	adopt := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.Adopt(context.Background(), h, false)
	}
	powerOff := func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
		return p.PowerOff(context.Background(), h, lifecycle.PowerHard, false)
	}
	for _, tc := range []struct {
		name        string
		act         action
		state       string
		target      string // target_provision_state
		maintenance bool
		write       string // first write, "" none
		outcome     string // wait, done, fail, error
	}{
		{"inspect", inspect, "available", "", false, `PUT states/provision {"target":"manage"}`, "wait"},
		{"inspect", inspect, "inspecting", "manageable", false, "", "wait"},
		{"inspect", inspect, "enroll", "", false, "", "wait"},
		{"inspect", inspect, "active", "", false, "", "error"},
		{"prepare", prepare, "manageable", "", false, "PATCH", "done"},
		{"prepare", prepare, "available", "", false, "PATCH", "done"},
		{"prepare", prepare, "cleaning", "manageable", false, "", "wait"},
		{"prepare retry", prepareRetry, "clean failed", "", false, `PUT states/provision {"target":"manage"}`, "wait"},
		{"prepare retry", prepareRetry, "clean failed", "", true, "DELETE maintenance", "wait"},
		{"prepare", prepare, "active", "", false, "", "error"},
		{"provide", provide, "available", "", false, "", "done"},
		{"provide", provide, "clean wait", "available", false, "", "wait"},
		{"provide", provide, "active", "", false, "", "error"},
		{"provision", provision, "manageable", "", false, `PUT states/provision {"target":"provide"}`, "wait"},
		{"provision", provision, "clean failed", "", false, `PUT states/provision {"target":"manage"}`, "wait"},
		{"provision", provision, "clean failed", "", true, "DELETE maintenance", "wait"},
		{"provision", provision, "available", "", false, "PATCH", "wait"},
		{"provision", provision, "active", "", false, "", "done"},
		{"provision", provision, "wait call-back", "active", false, "", "wait"},
		{"provision", provision, "enroll", "", false, "", "error"},
		{"deprovision", deprovision, "active", "", false, `PUT states/provision {"target":"deleted"}`, "wait"},
		// Ironic tears a deployment down from a failed servicing too.
		{"deprovision", deprovision, "service failed", "", false, `PUT states/provision {"target":"deleted"}`, "wait"},
		{"deprovision", deprovision, "manageable", "", false, `PUT states/provision {"target":"provide"}`, "wait"},
		{"deprovision", deprovision, "available", "", false, "", "done"},
		{"deprovision", deprovision, "deleting", "available", false, "", "wait"},
		{"deprovision", deprovision, "clean failed", "", false, "", "fail"},
		{"deprovision retry", deprovisionRetry, "clean failed", "", false, `PUT states/provision {"target":"manage"}`, "wait"},
		{"deprovision retry", deprovisionRetry, "error", "", false, `PUT states/provision {"target":"deleted"}`, "wait"},
		{"deprovision", deprovision, "enroll", "", false, "", "error"},
		{"adopt", adopt, "manageable", "", false, "PATCH", "wait"},
		{"adopt", adopt, "adopting", "active", false, "", "wait"},
		{"adopt", adopt, "active", "", true, "DELETE maintenance", "wait"},
		{"adopt", adopt, "active", "", false, "", "done"},
		{"adopt", adopt, "enroll", "", false, "", "error"},
		{"power off", powerOff, "inspect wait", "manageable", false, `PUT states/provision {"target":"abort"}`, "wait"},
		{"power off", powerOff, "clean wait", "manageable", false, `PUT states/provision {"target":"abort"}`, "wait"},
		{"power off", powerOff, "clean wait", "available", false, "", "wait"},
		{"power off", powerOff, "inspecting", "manageable", false, "", "wait"},
	} {
		t.Run(tc.name+"/"+tc.state, func(t *testing.T) {
			p, srv := onFake(t)
			srv.Settle = false
			h := fakeSpecHost("h1")
			h.Spec.Image = img
			h.Spec.RootDeviceHints = &lifecycle.RootDeviceHints{DeviceName: "/dev/sda"}
			id := nodeIn(srv, h, tc.state, "it broke")
			srv.UpdateNode(id, func(n *nodes.Node) {
				n.TargetProvisionState, n.Maintenance = tc.target, tc.maintenance
				n.PowerState = "power on"
				clean := true
				n.AutomatedClean = &clean
			})
			res, err := tc.act(p, h)
			var got string
			switch {
			case err != nil:
				got = "error"
			case res.ErrorMessage != "":
				got = "fail"
			case res.Dirty:
				got = "wait"
			default:
				got = "done"
			}
			if got != tc.outcome {
				t.Errorf("outcome %s (%+v, %v), want %s", got, res, err, tc.outcome)
			}
			var first string
			for _, r := range srv.Requests() {
				if r.Method == "GET" {
					continue
				}
				path := strings.TrimPrefix(r.Path, "/v1/nodes/"+id)
				switch {
				case r.Method == "PATCH":
					first = "PATCH"
				case strings.HasSuffix(path, "/states/provision"):
					first = `PUT states/provision {"target":"` + between(r.Body, `"target":"`, `"`) + `"}`
				default:
					first = r.Method + " " + strings.TrimPrefix(path, "/")
				}
				break
			}
			if first != tc.write {
				t.Errorf("first write %q, want %q (all: %q)", first, tc.write, srv.Calls())
			}
		})
	}
}
