package ironic

import (
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestMapState(t *testing.T) {
	const (
		none     = lifecycle.StateNone
		reg      = lifecycle.StateRegistering
		insp     = lifecycle.StateInspecting
		prep     = lifecycle.StatePreparing
		avail    = lifecycle.StateAvailable
		prov     = lifecycle.StateProvisioning
		provd    = lifecycle.StateProvisioned
		ext      = lifecycle.StateExternallyProvisioned
		deprov   = lifecycle.StateDeprovisioning
		poweroff = lifecycle.StatePoweringOffBeforeDelete
		del      = lifecycle.StateDeleting
	)
	cases := []struct {
		ps       string
		previous lifecycle.State
		want     lifecycle.State
	}{
		{"enroll", none, reg},
		{"verifying", avail, reg},
		{"inspecting", reg, insp},
		{"inspect wait", none, insp},
		{"inspect failed", insp, insp},
		{"manageable", reg, reg},
		{"manageable", insp, insp},
		{"manageable", prep, prep},
		{"manageable", none, prep},
		{"manageable", avail, prep},
		{"manageable", deprov, deprov},
		{"manageable", ext, ext},
		{"cleaning", prep, prep},
		{"clean wait", prep, prep},
		{"clean failed", prep, prep},
		{"cleaning", provd, deprov},
		{"clean wait", deprov, deprov},
		{"cleaning", avail, avail},
		{"cleaning", none, avail},
		{"cleaning", poweroff, poweroff},
		{"available", none, avail},
		{"available", deprov, avail},
		{"available", prep, avail},
		{"available", del, del},
		{"deploying", avail, prov},
		{"wait call-back", prov, prov},
		{"deploy failed", prov, prov},
		{"active", prov, provd},
		{"active", none, provd},
		{"active", ext, ext},
		{"active", deprov, deprov},
		{"service wait", provd, provd},
		{"adopting", ext, ext},
		{"adopt failed", none, ext},
		{"adopting", provd, provd},
		{"deleting", provd, deprov},
		{"deleting", deprov, deprov},
		{"deleting", del, del},
		{"error", deprov, deprov},
		{"error", provd, deprov},
		{"error", prov, prov},
		{"error", none, prov},
		{"", none, reg},
		{"something new", insp, insp},
	}
	for _, c := range cases {
		if got := MapState(c.ps, c.previous); got != c.want {
			t.Errorf("MapState(%q, %q) = %q, want %q", c.ps, c.previous, got, c.want)
		}
	}
}
