package ironic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// fakeAt connects to a fake Ironic whose API maximum is max.
func fakeAt(t *testing.T, max string) (*clients.Conn, *ironictest.Server) {
	t.Helper()
	srv := ironictest.New(t)
	srv.MaxMicroversion = max
	conn, err := clients.Connect(context.Background(), clients.Config{
		Endpoint: srv.URL, MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("connect to the fake Ironic at %s: %v", max, err)
	}
	return conn, srv
}

// featureChoices are what each gate chooses at a microversion, as the
// provider's code asks it: true is the feature, false the fallback.
var featureChoices = map[lifecycle.Feature]func(conn *clients.Conn) bool{
	lifecycle.FeatureNetworkData:     func(c *clients.Conn) bool { return slices.Contains(listFields(c.Microversion), "network_data") },
	lifecycle.FeatureBIOSRegistry:    func(c *clients.Conn) bool { return firmwareFeatures(c.Microversion).BIOSRegistry },
	lifecycle.FeatureShard:           func(c *clients.Conn) bool { return slices.Contains(listFields(c.Microversion), "shard") },
	lifecycle.FeatureFirmware:        func(c *clients.Conn) bool { return firmwareFeatures(c.Microversion).Components },
	lifecycle.FeatureServicing:       func(c *clients.Conn) bool { return firmwareFeatures(c.Microversion).Servicing },
	lifecycle.FeatureDisablePowerOff: func(c *clients.Conn) bool { return slices.Contains(listFields(c.Microversion), "disable_power_off") },
	lifecycle.FeatureParentNode: func(c *clients.Conn) bool {
		return strings.Contains(withChildren(c.Client, ""), "include_children")
	},
	lifecycle.FeatureOCI: func(c *clients.Conn) bool {
		return lifecycle.CheckImageSupported(context.Background(), NewCatalog(c.Client), &lifecycle.Image{URL: "oci://r.example/os:1"}) == nil
	},
}

// Each gate picks the fallback on an Ironic whose maximum is just below its
// microversion and the feature at it: the connection negotiates up to the
// server's maximum, and every choice asks the feature table.
func TestFakeFeatureGates(t *testing.T) {
	for f := range lifecycle.AllFeatures() {
		for _, minor := range []int{f.Minor() - 1, f.Minor()} {
			if minor < 56 { // below the provider's minimum
				continue
			}
			max := fmt.Sprintf("1.%d", minor)
			t.Run(fmt.Sprintf("%s at %s", f, max), func(t *testing.T) {
				conn, _ := fakeAt(t, max)
				want := minor >= f.Minor()
				if conn.Microversion != max {
					t.Fatalf("negotiated %s with an Ironic whose maximum is %s", conn.Microversion, max)
				}
				if conn.Has(f) != want {
					t.Fatalf("Has(%s) = %t at %s", f, !want, max)
				}
				if choose, ok := featureChoices[f]; ok && choose(conn) != want {
					t.Fatalf("the %s gate chose %t at %s, want %t", f, !want, max, want)
				}
			})
		}
	}
	conn, _ := fakeAt(t, "1.110")
	if conn.Microversion != lifecycle.NewestMicroversion() {
		t.Fatalf("negotiated %s with a newer Ironic, want the newest the provider knows, %s", conn.Microversion, lifecycle.NewestMicroversion())
	}
}

// disable_power_off (1.95) is written on create and changed in place by a
// later registration; on an older Ironic it is refused naming the
// attribute, the microversion and the server's maximum.
func TestFakeDisablePowerOffGate(t *testing.T) {
	conn, srv := fakeAt(t, "1.95")
	p := NewProvisioner(conn.Client, nil, WithJitter(0, nil), WithServerMaxMicroversion(conn.MaxMicroversion))
	h := fakeSpecHost("dpo")
	registered(t, p, h)
	if srv.MustNode(h.Status.ID).DisablePowerOff {
		t.Fatal("disable_power_off set without being asked")
	}
	h.Spec.DisablePowerOff = true
	registered(t, p, h)
	if !srv.MustNode(h.Status.ID).DisablePowerOff {
		t.Fatal("disable_power_off not written by the registration")
	}

	old, _ := fakeAt(t, "1.94")
	p = NewProvisioner(old.Client, nil, WithJitter(0, nil), WithServerMaxMicroversion(old.MaxMicroversion))
	h = fakeSpecHost("dpo-old")
	h.Spec.DisablePowerOff = true
	res, _, err := p.Register(context.Background(), h, true, false)
	want := "disable_power_off needs Ironic API microversion 1.95 or later, but this Ironic's maximum API microversion is 1.94"
	if err != nil || res.ErrorMessage != want {
		t.Fatalf("on 1.94: %q, %v; want %q", res.ErrorMessage, err, want)
	}
}

// The enabled hardware types are read once per Catalog (provider run).
func TestFakeEnabledHardwareTypesCached(t *testing.T) {
	conn, srv := fakeAt(t, "1.82")
	srv.Drivers = []string{"redfish", "ipmi"}
	srv.ResetRequests()
	c := NewCatalog(conn.Client)
	for range 3 {
		got, err := c.EnabledHardwareTypes(context.Background())
		if err != nil || !slices.Equal(got, []string{"ipmi", "redfish"}) {
			t.Fatalf("%v, %v", got, err)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want one GET /v1/drivers", n)
	}
}

// The virtual media API: attach and detach at 1.89, read at 1.93; on
// fake-hardware the attach answers 204 and fails in the background, which
// the wait reports with Ironic's last_error.
func TestFakeVirtualMediaAPI(t *testing.T) {
	ctx := context.Background()
	conn, srv := fakeAt(t, "1.93")
	c := NewCatalog(conn.Client)
	id := srv.AddNode(redfishNode("vm-0"))
	const iso = "http://images.example/config.iso"
	if err := c.AttachCDMedia(ctx, id, iso); err != nil {
		t.Fatal(err)
	}
	if ms, err := c.CDMediaState(ctx, id); err != nil || ms != (lifecycle.MediaState{Device: "cdrom", Image: iso, Inserted: true}) {
		t.Fatalf("after attach: %+v, %v", ms, err)
	}
	if err := c.DetachCDMedia(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ms, err := c.CDMediaState(ctx, id); err != nil || ms.Inserted || srv.VMedia(id).Inserted {
		t.Fatalf("after detach: %+v, %v", ms, err)
	}
	fake := srv.AddNode(nodesNode("vm-1", "active", ""))
	if err := c.AttachCDMedia(ctx, fake, iso); err == nil || !strings.Contains(err.Error(), "fake-hardware has no virtual media") {
		t.Fatalf("attach on fake-hardware: %v", err)
	}

	old, srv89 := fakeAt(t, "1.89")
	id = srv89.AddNode(redfishNode("vm-2"))
	if err := NewCatalog(old.Client).AttachCDMedia(ctx, id, iso); err != nil || srv89.VMedia(id).Image != iso {
		t.Fatalf("attach at 1.89: %v", err)
	}
	if _, err := NewCatalog(old.Client).CDMediaState(ctx, id); err == nil {
		t.Fatal("GET vmedia answered at 1.89")
	}
}

func redfishNode(name string) nodes.Node {
	n := nodesNode(name, "active", "")
	n.Driver = "redfish"
	return n
}
