package lifecycle

import (
	"strings"
	"testing"
)

// A force delete is refused while the node runs a deployment (an image on
// an active, rescued or serviced node), and only then: a deploy stuck
// before active is deleted like any stuck host.
func TestForceDeleteRefused(t *testing.T) {
	img := &Image{URL: "http://img/os.qcow2"}
	for _, tc := range []struct {
		obs  Observation
		want string // "" : allowed
	}{
		{Observation{}, ""},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "clean wait"}, ""},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "active"}, ""}, // externally provisioned: no image
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "active", DeployedImage: img},
			`host "h1" (node n1) still carries a deployment (Ironic provision state "active", image http://img/os.qcow2)`},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "service wait", DeployedImage: img},
			`(Ironic provision state "service wait", image http://img/os.qcow2): delete_mode = "force" refuses`},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "wait call-back", DeployedImage: img}, ""},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "deploy failed", DeployedImage: img}, ""},
		{Observation{Exists: true, ID: "n1", Name: "h1", ProvisionState: "deploying", DeployedImage: img}, ""},
	} {
		err := ForceDeleteRefused(tc.obs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.obs.ProvisionState, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.obs.ProvisionState, err, tc.want)
		}
	}
}
