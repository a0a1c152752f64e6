package lifecycle

import (
	"slices"
	"strings"
	"testing"
)

func TestInspectInterfaces(t *testing.T) {
	for _, tc := range []struct {
		driver string
		mode   InspectionMode
		want   []string
		err    string
	}{
		{"redfish", InspectionEnabled, []string{"agent", "inspector"}, ""},
		{"ipmi", InspectionEnabled, []string{"agent", "inspector"}, ""},
		{"idrac", "", []string{"agent", "inspector"}, ""},
		{"redfish", InspectionOutOfBand, []string{"redfish"}, ""},
		{"idrac", InspectionOutOfBand, []string{"idrac-redfish"}, ""},
		{"ilo", InspectionOutOfBand, []string{"ilo"}, ""},
		{"irmc", InspectionOutOfBand, []string{"irmc"}, ""},
		{"ipmi", InspectionOutOfBand, nil, `Ironic driver "ipmi" cannot inspect out of band`},
		{"redfish", InspectionDisabled, []string{"no-inspect"}, ""},
		{"fake-hardware", InspectionEnabled, []string{"fake"}, ""},
		{"fake-hardware", InspectionOutOfBand, []string{"fake"}, ""},
		{"fake-hardware", InspectionDisabled, []string{"no-inspect"}, ""},
		{"redfish", "sometimes", nil, `inspection = "sometimes" is not one of`},
	} {
		got, err := InspectInterfaces(tc.driver, tc.mode)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s/%s: error %v, want %q", tc.driver, tc.mode, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s/%s: %v, %v; want %v", tc.driver, tc.mode, got, err, tc.want)
		}
	}
}
