package lifecycle

import "testing"

func TestAddressChangeInPlace(t *testing.T) {
	for _, tc := range []struct {
		state State
		err   ErrorType
		want  bool
	}{
		{StateNone, NoError, true},
		{StateUnmanaged, NoError, true},
		{StateRegistering, NoError, true},
		{StateRegistering, RegistrationError, true},
		{StateAvailable, RegistrationError, true}, // credentials broken after registration
		{StateInspecting, NoError, false},
		{StateAvailable, NoError, false},
		{StateProvisioned, NoError, false},
		{StateExternallyProvisioned, NoError, false},
		{StateAvailable, InspectionError, false},
		{StateProvisioned, PowerManagementError, false},
	} {
		if got := AddressChangeInPlace(tc.state, tc.err); got != tc.want {
			t.Errorf("state %q error %q: %v, want %v", tc.state, tc.err, got, tc.want)
		}
	}
}
