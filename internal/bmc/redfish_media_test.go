package bmc

import (
	"errors"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// The CD virtual media of a simulated BMC: an image inserted is read back
// (and seen by the simulator), an eject of another image leaves it, an eject
// of it empties the device; a BMC without virtual media says so, and an
// insert the BMC fails is the BMC's error with its message.
func TestCDMedia(t *testing.T) {
	srv := startSim(t, sim.Options{})
	const iso = "http://images.example/config.iso"
	c := connect(t, srv)
	got, err := c.InsertCDMedia("sys-0", iso)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "Cd" || !got.Inserted || got.Image != iso {
		t.Fatalf("after insert: %+v", got)
	}
	st, _ := srv.State("sys-0")
	if m := st.VirtualMedia["Cd"]; !m.Inserted || m.Image != iso {
		t.Fatalf("simulator's Cd after insert: %+v", m)
	}
	if err := c.EjectCDMedia("sys-0", "http://other/x.iso"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.CDMedia("sys-0"); got.Image != iso {
		t.Fatalf("eject of another image ejected ours: %+v", got)
	}
	if err := c.EjectCDMedia("sys-0", iso); err != nil {
		t.Fatal(err)
	}
	st, _ = srv.State("sys-0")
	if m := st.VirtualMedia["Cd"]; m.Inserted || m.Image != "" {
		t.Fatalf("simulator's Cd after eject: %+v", m)
	}

	p := sim.DefaultProfile(5)
	p.NoVirtualMedia = true
	if err := srv.AddSystem(sim.SystemConfig{ID: "nomedia", Username: testUser, Password: testPassword, Profile: p}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CDMedia("nomedia"); !errors.Is(err, ErrNoVirtualMedia) {
		t.Fatalf("BMC without virtual media: %v", err)
	}
	if err := c.EjectCDMedia("nomedia", ""); err != nil {
		t.Fatalf("eject on a BMC without virtual media: %v", err)
	}

	if err := srv.SetFaults("sys-0", sim.Faults{MediaFailure: "image server unreachable"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertCDMedia("sys-0", iso); err == nil || !strings.Contains(err.Error(), "image server unreachable") {
		t.Fatalf("insert with the media fault: %v", err)
	}
	if got, _ := c.CDMedia("sys-0"); got.Inserted {
		t.Fatalf("a failed insert left media: %+v", got)
	}
}
