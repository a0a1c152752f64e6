package lifecycle_test

import (
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestFeatureRequire(t *testing.T) {
	cases := []struct {
		api  lifecycle.APIFeatures
		want string
	}{
		{lifecycle.APIFeatures{Microversion: "1.82", ServerMax: "1.82"},
			"disable_power_off needs Ironic API microversion 1.95 or later, but this Ironic's maximum API microversion is 1.82"},
		{lifecycle.APIFeatures{Microversion: "1.82", ServerMax: "1.96"},
			"disable_power_off needs Ironic API microversion 1.95 or later; this Ironic offers up to 1.96 but the provider is pinned to 1.82"},
		{lifecycle.APIFeatures{Microversion: "1.95", ServerMax: "1.96"}, ""},
		{lifecycle.APIFeatures{}, ""}, // not known: the apply decides
	}
	for _, tc := range cases {
		err := tc.api.Require(lifecycle.FeatureDisablePowerOff, "disable_power_off")
		if got := errText(err); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.api, got, tc.want)
		}
	}
	if lifecycle.NewestMicroversion() != lifecycle.FeaturePortGroupPhysnet.Microversion() {
		t.Fatalf("newest %s", lifecycle.NewestMicroversion())
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
