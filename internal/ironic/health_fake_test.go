package ironic

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Ironic's node health reaches the catalog's hosts, one by one and
// listed, and the watcher asks for it, from API 1.109 (FeatureHealth);
// below, the fake Ironic hides it as Ironic does and the hosts have none.
func TestFakeNodeHealth(t *testing.T) {
	for _, tc := range []struct {
		max, want string
	}{
		{"1.109", lifecycle.HealthCritical},
		{"1.108", ""},
		{"1.96", ""},
	} {
		t.Run(tc.max, func(t *testing.T) {
			conn, srv := fakeAt(t, tc.max)
			id := srv.AddNode(nodes.Node{Name: "sick", Driver: "redfish", ProvisionState: "available", Health: lifecycle.HealthCritical})
			cat := NewCatalog(conn.Client)
			ctx := catCtx(t, 10*time.Second)
			h, err := cat.Host(ctx, id)
			if err != nil || h.Health != tc.want {
				t.Fatalf("Host: health %q, %v; want %q", h.Health, err, tc.want)
			}
			all, err := cat.Hosts(ctx)
			if err != nil || len(all) != 1 || all[0].Health != tc.want {
				t.Fatalf("Hosts: %d hosts, %v; want one with health %q", len(all), err, tc.want)
			}
			if asked := slices.Contains(listFields(conn.Microversion), "health"); asked != (tc.want != "") {
				t.Errorf("the watcher asks for health: %t at %s", asked, conn.Microversion)
			}
		})
	}
}

// BMCHealth reads the System's HealthRollup from the simulator: OK, then
// Critical once a drive fails, with the caller's credentials; wrong ones
// are an error naming the node, and the password is in none of it.
func TestFakeBMCHealth(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 1, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	conn, srv := fakeAt(t, "1.96")
	id := srv.AddNode(nodes.Node{Name: "h", Driver: "redfish", ProvisionState: "available"})
	cat := NewCatalog(conn.Client)
	access := func(password string) *lifecycle.BMCAccess {
		return &lifecycle.BMCAccess{
			Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
			DriverInfo: map[string]any{"redfish_username": user, "redfish_password": password},
		}
	}
	ctx := catCtx(t, 30*time.Second)
	if h, err := cat.BMCHealth(ctx, "h", access(pass)); err != nil || h != lifecycle.HealthOK {
		t.Fatalf("healthy BMC: %q, %v; want OK", h, err)
	}
	if err := bmcSrv.SetFaults("sys-0", sim.Faults{DriveHealth: map[string]string{"Disk.1": "Critical"}}); err != nil {
		t.Fatal(err)
	}
	if h, err := cat.BMCHealth(ctx, "h", access(pass)); err != nil || h != lifecycle.HealthCritical {
		t.Fatalf("failed drive: %q, %v; want Critical", h, err)
	}
	_, err = cat.BMCHealth(ctx, "h", access("wrong-"+pass))
	if err == nil || !strings.Contains(err.Error(), id) || strings.Contains(err.Error(), pass) {
		t.Fatalf("wrong credentials: %v; want an error naming node %s and not the password", err, id)
	}
	if _, err := cat.BMCHealth(ctx, "h", nil); err == nil {
		t.Fatal("no credentials: no error")
	}
}
