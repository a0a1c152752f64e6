package bmc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// startDialect serves one system "sys-0" with the dialect's profile.
func startDialect(t *testing.T, dialect string) *sim.Server {
	t.Helper()
	srv, err := sim.Start(sim.Options{Dialect: dialect}, 1, testUser, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// A reset to the power state the system is in is success on every
// dialect, though iLO answers 400 and iDRAC 409; a reset the state forbids
// is an error naming the MessageId, the text from the iLO registry the BMC
// serves, and the arguments.
func TestResetToCurrentStateIsSuccess(t *testing.T) {
	for _, d := range []string{sim.DialectDMTF, sim.DialectILO, sim.DialectIDRAC, sim.DialectSupermicro} {
		srv := startDialect(t, d)
		c := connect(t, srv)
		for _, step := range []struct{ reset, power string }{
			{"ForceOff", "Off"}, {"GracefulShutdown", "Off"}, {"On", "On"}, {"On", "On"}, {"ForceOff", "Off"},
		} {
			if err := c.ResetSystem("sys-0", step.reset); err != nil {
				t.Errorf("%q: %s: %v", d, step.reset, err)
			}
			if st, _ := srv.State("sys-0"); st.PowerState != step.power {
				t.Errorf("%q: after %s power is %s", d, step.reset, st.PowerState)
			}
		}
		// iLO and iDRAC refused ForceOff and GracefulShutdown (the system
		// starts off) and the second On.
		st, _ := srv.State("sys-0")
		if want := map[string]int{sim.DialectILO: 3, sim.DialectIDRAC: 3}[d]; len(st.RefusedResets) != want {
			t.Errorf("%q: refused %v", d, st.RefusedResets)
		}
	}

	c := connect(t, startDialect(t, sim.DialectILO))
	err := c.ResetSystem("sys-0", "ForceRestart")
	const want = `reset system sys-0 (ForceRestart): request failed (HTTP 400): iLO.2.14.InvalidOperationForSystemState: ` +
		`The operation cannot be carried out in the system's current power state (Power is off).`
	var re *RedfishError
	if !errors.As(err, &re) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("err = %v\nwant ...%s", err, want)
	}
	if len(re.Messages) != 1 || re.Messages[0].ID != "iLO.2.14.InvalidOperationForSystemState" || re.Messages[0].Args[0] != "Power is off" {
		t.Errorf("messages = %+v", re.Messages)
	}
}

// Every dialect's error names the MessageId and its text: iLO's bodies
// carry only the id, resolved from the standard Base messages when the
// BMC serves no Base registry (a 401 cannot read the registries anyway).
func TestErrorsNameMessageIDAndText(t *testing.T) {
	for _, tc := range []struct{ dialect, want string }{
		{sim.DialectDMTF, "(HTTP 401): Base.1.8.NoValidSession: authentication required or credentials rejected"},
		{sim.DialectILO, "(HTTP 401): Base.1.8.NoValidSession: There is no valid session established with the implementation."},
		{sim.DialectIDRAC, "(HTTP 401): Base.1.8.NoValidSession: authentication required or credentials rejected"},
		{sim.DialectSupermicro, "(HTTP 401): Base.v1_4_0.NoValidSession: authentication required or credentials rejected"},
	} {
		srv := startDialect(t, tc.dialect)
		cfg := testConfig(srv, "sys-0")
		cfg.Password = "wrong"
		err := CheckCredentials(testContext(t), cfg, "sys-0")
		if !errors.Is(err, ErrCredentialsRejected) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%q: err = %v\nwant ...%s", tc.dialect, err, tc.want)
		}
	}

	for _, tc := range []struct{ dialect, bios, want string }{
		{sim.DialectILO, "2", "iLO.2.14.UpdateServiceBusy: The firmware update service cannot take the request now: another firmware update is in progress."},
		{sim.DialectIDRAC, "Installed-159-1.8.2", "Base.1.12.ResourceInUse: The change to the requested resource failed because the resource is in use or in transition."},
		{sim.DialectSupermicro, "BIOS", "SMC.1.0.OemLicenseNotPassed: The request needs a license the BMC does not have: SFT-OOB-LIC."},
	} {
		srv := startDialect(t, tc.dialect)
		if err := srv.SetFaults("sys-0", sim.Faults{RefuseUpdates: true}); err != nil {
			t.Fatal(err)
		}
		c := connect(t, srv)
		items, err := c.Firmware("sys-0")
		if err != nil {
			t.Fatal(err)
		}
		bios, err := ResolveFirmwareComponent(items, "redfish:"+tc.bios)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.UpdateFirmware(context.Background(), bios, "http://images.invalid/bios.bin", UpdateOptions{})
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%q: err = %v\nwant ...%s", tc.dialect, err, tc.want)
		}
	}
}

func TestMessagesOfErrorBodies(t *testing.T) {
	c := &RedfishClient{}
	for _, tc := range []struct {
		name string
		body string
		want string
	}{
		{"iLO 4, MessageID spelled in capitals", `{"error":{"code":"iLO.0.10.ExtendedInfo","message":"See @Message.ExtendedInfo for more information.",` +
			`"@Message.ExtendedInfo":[{"MessageArgs":["Power is off"],"MessageID":"iLO.0.10.InvalidOperationForSystemState"}]}}`,
			`iLO.0.10.InvalidOperationForSystemState (arguments: "Power is off")`},
		{"Base id with arguments", `{"error":{"code":"Base.1.4.GeneralError","message":"A general error has occurred. See ExtendedInfo for more information.",` +
			`"@Message.ExtendedInfo":[{"MessageId":"Base.1.4.PropertyValueNotInList","MessageArgs":["Maybe","NumLock"]}]}}`,
			`Base.1.4.PropertyValueNotInList: The value Maybe for the property NumLock is not in the list of acceptable values.`},
		{"no ExtendedInfo", `{"error":{"code":"Base.1.0.InternalError","message":"the fan tray is missing"}}`,
			`Base.1.0.InternalError: the fan tray is missing`},
		{"not JSON", `<html>Bad Gateway</html>`, `<html>Bad Gateway</html>`},
		{"two messages", `{"error":{"code":"Base.1.12.GeneralError","message":"A general error has occurred. See ExtendedInfo for more information",` +
			`"@Message.ExtendedInfo":[{"MessageId":"IDRAC.2.8.SYS011","Message":"Pending configuration values are already committed."},` +
			`{"MessageId":"Base.1.12.ActionNotSupported","MessageArgs":["Bios.ResetBios"]}]}}`,
			`IDRAC.2.8.SYS011: Pending configuration values are already committed.; Base.1.12.ActionNotSupported: The action Bios.ResetBios is not supported by the resource.`},
	} {
		rf, ok := schemas.ConstructError(400, []byte(tc.body)).(*schemas.Error)
		if !ok {
			t.Fatal("not a Redfish error")
		}
		if got := messagesText(c.messagesOf(rf, false)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
