package lifecycle

import "testing"

func TestDeployedOnline(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		state      State
		configured *bool
		want       bool
	}{
		{StateProvisioning, &off, true}, // the deploy needs power
		{StateProvisioning, nil, true},
		{StateProvisioned, nil, true}, // as the deployment left it
		{StateProvisioned, &off, false},
		{StateProvisioned, &on, true},
	} {
		if got := DeployedOnline(tc.state, tc.configured); got != tc.want {
			t.Errorf("%s %v: %v, want %v", tc.state, tc.configured, got, tc.want)
		}
	}
	if !OnlineFollowsPower(StateProvisioned) || OnlineFollowsPower(StateAvailable) || OnlineFollowsPower(StateProvisioning) {
		t.Error("OnlineFollowsPower: only provisioned hosts")
	}
}
