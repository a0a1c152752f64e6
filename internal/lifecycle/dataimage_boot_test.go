package lifecycle_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// A data image on a host whose boot interface boots from the BMC's virtual
// CD is refused at plan (CheckDataImage) and at apply (AttachDataImage)
// before anything is written, naming the image and the boot interface;
// hosts that boot over the network, or whose interface is not read, pass
// on to the BMC checks.
func TestDataImageRefusedOnVirtualMediaBoot(t *testing.T) {
	const url = "http://images.example.com/ignition.iso"
	ctx := context.Background()
	for _, tc := range []struct {
		boot    string
		refused bool
	}{
		{"redfish-virtual-media", true},
		{"idrac-redfish-virtual-media", true},
		{"ilo-virtual-media", true},
		{"irmc-virtual-media", true},
		{"ipxe", false},
		{"pxe", false},
		{"redfish-https", false},
		{"", false},
	} {
		t.Run(tc.boot, func(t *testing.T) {
			n := lifecycletest.New()
			n.BootInterface = tc.boot
			c := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n)}
			want := `The data image ` + url + ` cannot go on host "host-a" (node node-1): its boot_interface "` + tc.boot + `" boots it from the BMC's virtual CD`

			plan := c.CheckDataImage(ctx, "node-1", url, nil)
			_, _, applied, err := c.AttachDataImage(ctx, lifecycle.DataImageRequest{Ref: "node-1", URL: url})
			if !tc.refused {
				if len(plan) != 0 || len(applied) != 0 {
					t.Fatalf("refused: plan %v, apply %v", plan, applied)
				}
				return // the apply goes on to the BMC (none configured here)
			}
			for _, r := range [][]lifecycle.DataImageRefusal{plan, applied} {
				if len(r) != 1 || r[0].Attribute != "host_id" || r[0].Summary != "Host boots from virtual media" || !strings.HasPrefix(r[0].Detail, want) {
					t.Fatalf("refusals %+v, want one on host_id saying %q", r, want)
				}
			}
			if err != nil {
				t.Fatalf("refusal with an error: %v", err)
			}
			if calls := n.Calls(); slices.ContainsFunc(calls, func(c string) bool { return c != "Observe" }) {
				t.Errorf("calls %v, want only Observe: nothing written", calls)
			}
			t.Logf("%s: %s", applied[0].Summary, applied[0].Detail)
		})
	}
}
