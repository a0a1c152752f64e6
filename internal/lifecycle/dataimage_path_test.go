package lifecycle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// mediaBMC is a BMC with a CD device, reached with credentials, and the
// node's maintenance.
type mediaBMC struct {
	lifecycle.FirmwareUpdater // (none of its methods are called)
	cd                        lifecycle.MediaState
	maintenance               bool
	reason                    string
	calls                     []string
}

func (b *mediaBMC) CDMedia(context.Context, string, lifecycle.BMCAccess) (lifecycle.MediaState, error) {
	return b.cd, nil
}

func (b *mediaBMC) InsertCDMedia(_ context.Context, _ string, _ lifecycle.BMCAccess, url string) (lifecycle.MediaState, error) {
	b.calls = append(b.calls, "bmc insert")
	b.cd = lifecycle.MediaState{Device: "Cd", Image: url, Inserted: true}
	return b.cd, nil
}

func (b *mediaBMC) EjectCDMedia(context.Context, string, lifecycle.BMCAccess, string) error {
	b.calls = append(b.calls, "bmc eject")
	b.cd = lifecycle.MediaState{Device: "Cd"}
	return nil
}

func (b *mediaBMC) Maintenance(context.Context, string) (bool, string, error) {
	return b.maintenance, b.reason, nil
}

func (b *mediaBMC) SetMaintenance(_ context.Context, _ string, on bool, reason string) error {
	b.calls = append(b.calls, map[bool]string{true: "maintenance on", false: "maintenance off"}[on])
	b.maintenance, b.reason = on, reason
	return nil
}

// vmediaCatalog is a Catalog with Ironic's virtual media API.
type vmediaCatalog struct {
	*lifecycletest.Catalog
	bmc *mediaBMC
	// republish, when set, is Ironic's HTTP server: the BMC then holds
	// Ironic's copy, as Ironic 2025.1 serves every attached image.
	republish string
}

func (c vmediaCatalog) AttachCDMedia(_ context.Context, id, url string) error {
	c.bmc.calls = append(c.bmc.calls, "ironic attach")
	if c.republish != "" {
		url = c.republish + "/redfish/cdrom-" + id + ".iso"
	}
	c.bmc.cd = lifecycle.MediaState{Device: "Cd", Image: url, Inserted: true}
	return nil
}

func (c vmediaCatalog) DetachCDMedia(context.Context, string) error {
	c.bmc.calls = append(c.bmc.calls, "ironic detach")
	c.bmc.cd = lifecycle.MediaState{Device: "Cd"}
	return nil
}

func (c vmediaCatalog) CDMediaState(context.Context, string) (lifecycle.MediaState, error) {
	ms := c.bmc.cd
	ms.Device = lifecycle.MediaDeviceIronic
	return ms, nil
}

// A data image goes through Ironic's virtual media API when the Ironic in
// use has it (no credentials, no maintenance), else through the BMC with
// the node in maintenance; without bmc on an older Ironic it is refused on
// bmc, naming the microversions.
func TestDataImagePaths(t *testing.T) {
	const iso = "http://images.example/config.iso"
	access := &lifecycle.BMCAccess{Address: "redfish://bmc.example/redfish/v1/Systems/1"}
	cases := []struct {
		name, mv  string
		driver    string // "": redfish
		access    *lifecycle.BMCAccess
		wantCalls string
		device    string
		refusal   string
		republish string
	}{
		{name: "1.82 with bmc", mv: "1.82", access: access, device: "Cd",
			wantCalls: "maintenance on,bmc insert,maintenance off,maintenance on,bmc eject,maintenance off"},
		{name: "1.82 without bmc", mv: "1.82",
			refusal: "a data image without bmc (through Ironic's virtual media API) needs Ironic API microversion 1.89 or later, but this Ironic's maximum API microversion is 1.82"},
		{name: "1.89 without bmc", mv: "1.89", device: "cdrom", wantCalls: "ironic detach,ironic attach,ironic detach"},
		{name: "1.93 without bmc", mv: "1.93", device: "cdrom", wantCalls: "ironic attach,ironic detach"},
		{name: "1.96 with bmc", mv: "1.96", access: access, device: "cdrom", wantCalls: "ironic attach,ironic detach"},
		{name: "1.96 republished by Ironic", mv: "1.96", device: "cdrom", republish: "http://ironic.example:8088",
			wantCalls: "ironic attach,ironic detach"},
		{name: "1.96 fake-hardware with bmc", mv: "1.96", driver: "fake-hardware", access: access, device: "Cd",
			wantCalls: "maintenance on,bmc insert,maintenance off,maintenance on,bmc eject,maintenance off"},
		{name: "1.96 fake-hardware without bmc", mv: "1.96", driver: "fake-hardware",
			refusal: "Ironic attaches virtual media only for the redfish, idrac, ilo, ilo5 hardware types; this host's node has the \"fake-hardware\" driver."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			bmc := &mediaBMC{cd: lifecycle.MediaState{Device: "Cd"}}
			n := lifecycletest.New()
			n.HardwareType = c.driver
			if c.driver == "" {
				n.HardwareType = "redfish"
			}
			clients := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n), Updater: bmc,
				Catalog: vmediaCatalog{Catalog: lifecycletest.NewCatalog(), bmc: bmc, republish: c.republish},
				API:     lifecycle.APIFeatures{Microversion: c.mv, ServerMax: c.mv}}
			req := lifecycle.DataImageRequest{Ref: "host-a", URL: iso, Access: c.access}
			_, ms, refusals, err := clients.AttachDataImage(ctx, req)
			if c.refusal != "" {
				if len(refusals) != 1 || refusals[0].Attribute != "bmc" || !strings.HasPrefix(refusals[0].Detail, c.refusal) {
					t.Fatalf("refusals %+v, %v", refusals, err)
				}
				return
			}
			if err != nil || len(refusals) > 0 || !ms.Holds(iso) || ms.Device != c.device || ms.Republished != (c.republish != "") {
				t.Fatalf("attach: %+v, %+v, %v", ms, refusals, err)
			}
			if err := clients.DetachDataImage(ctx, req); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(bmc.calls, ","); got != c.wantCalls {
				t.Fatalf("calls %s, want %s", got, c.wantCalls)
			}
		})
	}
}
