package lifecycle

import (
	"strings"
	"testing"
)

func TestDesiredPorts(t *testing.T) {
	pxe := true
	for _, tc := range []struct {
		name       string
		nics       []string
		configured []Port
		want       string // MAC:managed, sorted
		err        string
	}{
		{name: "nothing", want: ""},
		{name: "inspected NICs become ports", nics: []string{"52:54:00:00:00:02", "52:54:00:00:00:01"},
			want: "52:54:00:00:00:01:-,52:54:00:00:00:02:-"},
		{name: "configured settings win over the inspected NIC, MACs without case",
			nics:       []string{"52:54:00:00:00:01", "52:54:00:00:00:02"},
			configured: []Port{{MAC: "52:54:00:00:00:0A"}, {MAC: "52:54:00:00:00:01", PXEEnabled: &pxe}},
			want:       "52:54:00:00:00:01:pxe,52:54:00:00:00:02:-,52:54:00:00:00:0a:-"},
		{name: "NICs read from the ports add nothing", nics: []string{"ports", "52:54:00:00:00:01"}, want: ""},
		{name: "a MAC configured twice", configured: []Port{{MAC: "52:54:00:00:00:01"}, {MAC: "52:54:00:00:00:01"}},
			err: "port 52:54:00:00:00:01 is configured twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(StateAvailable)
			if tc.nics != nil {
				h.Status.HardwareDetails = &HardwareDetails{}
				for _, m := range tc.nics {
					if m == "ports" {
						h.Status.HardwareDetails.NICsArePorts = true
						continue
					}
					h.Status.HardwareDetails.NICs = append(h.Status.HardwareDetails.NICs, NIC{MAC: m})
				}
			}
			got, err := DesiredPorts(h, tc.configured)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			var parts []string
			for _, p := range got {
				flag := "-"
				if p.PXEEnabled != nil {
					flag = "pxe"
				}
				parts = append(parts, p.MAC+":"+flag)
			}
			if s := strings.Join(parts, ","); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}
