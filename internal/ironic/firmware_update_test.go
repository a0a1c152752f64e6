package ironic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TestCatalogFirmwareUpdater: the Ironic side of the BMC update path on the
// fake Ironic and the in-process BMC simulator: maintenance set with its
// reason and cleared; an image checked against its checksum (and refused
// on a mismatch, naming both digests); SimpleUpdate through the BMC with
// progress reported and the version before and after; a failing task
// reported with the BMC's message; a non-Redfish address refused.
func TestCatalogFirmwareUpdater(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 2, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	const fail = "Image signature verification failed for BIOS"
	if err := bmcSrv.SetFaults("sys-1", sim.Faults{UpdateFailure: fail, UpdateTaskPolls: 1}); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(bmcSrv.URL(), "http://")
	access := func(sys string) lifecycle.BMCAccess {
		return lifecycle.BMCAccess{Address: "redfish+http://" + host + "/redfish/v1/Systems/" + sys, Driver: "redfish",
			DriverInfo: map[string]any{"redfish_address": "http://" + host, "redfish_system_id": "/redfish/v1/Systems/" + sys,
				"redfish_username": user, "redfish_password": pass, "redfish_verify_ca": false}}
	}
	image := []byte("firmware image bytes")
	sum := sha256.Sum256(image)
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(image) }))
	t.Cleanup(images.Close)

	srv := ironictest.New(t)
	id := srv.AddNode(nodes.Node{Name: "fwu-0", Driver: "redfish", ProvisionState: "available", PowerState: "power on"})
	c := NewCatalog(fwClient(t, srv, "1.82"), WithFirmwareTaskPoll(time.Millisecond), WithImageClient(images.Client()))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if err := c.SetMaintenance(ctx, id, true, lifecycle.MaintenanceReasonPrefix+" of bios"); err != nil {
		t.Fatal(err)
	}
	on, reason, err := c.Maintenance(ctx, id)
	if err != nil || !on || !strings.HasPrefix(reason, lifecycle.MaintenanceReasonPrefix) {
		t.Fatalf("maintenance after set: %v %q %v", on, reason, err)
	}
	if err := c.SetMaintenance(ctx, id, false, ""); err != nil {
		t.Fatal(err)
	}
	if on, _, err := c.Maintenance(ctx, id); err != nil || on {
		t.Fatalf("maintenance after unset: %v %v", on, err)
	}

	good := lifecycle.FirmwareUpdate{Component: "bios", URL: images.URL + "/bios.bin", Checksum: "sha256:" + hex.EncodeToString(sum[:])}
	if err := c.VerifyImage(ctx, good); err != nil {
		t.Errorf("matching checksum refused: %v", err)
	}
	bad := good
	bad.Checksum = "sha256:" + strings.Repeat("0", 64)
	if err := c.VerifyImage(ctx, bad); err == nil || !strings.Contains(err.Error(), hex.EncodeToString(sum[:])) {
		t.Errorf("mismatch: %v (want an error naming the image's digest)", err)
	}

	var progress []lifecycle.FirmwareTask
	res, err := c.BMCUpdate(ctx, id, access("sys-0"), lifecycle.FirmwareUpdate{Component: "bios", URL: "http://images/bios-9.9.9.bin"},
		func(t lifecycle.FirmwareTask) { progress = append(progress, t) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Target == "" || res.PreviousVersion == "" || res.Version == res.PreviousVersion || !strings.Contains(res.Version, "9.9.9") {
		t.Errorf("result %+v: want the BIOS item with its version moved to 9.9.9", res)
	}
	if len(progress) == 0 || progress[0].Component != "bios" || progress[0].Target != res.Target {
		t.Errorf("progress %+v", progress)
	}

	_, err = c.BMCUpdate(ctx, id, access("sys-1"), lifecycle.FirmwareUpdate{Component: "bios", URL: "http://images/bios-9.9.9.bin"}, nil)
	if err == nil || !strings.Contains(err.Error(), fail) {
		t.Errorf("failing task: %v, want the BMC's message %q", err, fail)
	}

	ipmi := lifecycle.BMCAccess{Address: "ipmi://192.0.2.1", Driver: "ipmi"}
	if _, err := c.BMCUpdate(ctx, id, ipmi, lifecycle.FirmwareUpdate{Component: "bios", URL: "http://images/x.bin"}, nil); err == nil ||
		!strings.Contains(err.Error(), "not a Redfish one") {
		t.Errorf("ipmi address: %v", err)
	}
}
