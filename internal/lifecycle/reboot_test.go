package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// A reboot request powers a powered-on host off (soft first) and on again,
// in place; a failed soft power off goes on hard at once, without counting
// as the host's failure; a host that is to stay off is left off.
func TestRebootRequest(t *testing.T) {
	softFails := provReply{res: Result{ErrorMessage: "Timed out waiting for a soft power off", Verb: "soft power off"}}
	for _, tc := range []struct {
		name     string
		state    State
		online   bool
		powerOff []provReply
		want     string // provisioner calls after Adopt/Provide
		modes    string // PowerOff modes, in order
		wantErr  string
	}{
		{name: "provisioned: soft off then on", state: StateProvisioned, online: true,
			powerOff: []provReply{busy10, {}}, want: "PowerOff,PowerOff,PowerOn", modes: "soft,soft"},
		{name: "available: soft off then on", state: StateAvailable, online: true,
			powerOff: []provReply{{}}, want: "PowerOff,PowerOn", modes: "soft"},
		{name: "soft fails: hard, then on", state: StateProvisioned, online: true,
			powerOff: []provReply{softFails, busy10, {}}, want: "PowerOff,PowerOff,PowerOff,PowerOn", modes: "soft,hard,hard"},
		{name: "hard fails too: power management error", state: StateProvisioned, online: true,
			powerOff: []provReply{softFails, {res: Result{ErrorMessage: "BMC unreachable", Verb: "power off"}}},
			want:     "PowerOff,PowerOff", modes: "soft,hard", wantErr: "reboot: BMC unreachable"},
		{name: "host kept off: nothing to reboot", state: StateAvailable, online: false,
			want: "PowerOff", modes: "soft"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv()
			h := newHost(tc.state)
			h.Spec.Online = tc.online
			h.Status.PoweredOn = true
			if tc.state == StateProvisioned {
				h = provisionedHost("http://img/a.qcow2")
			}
			h.RebootRequested = true
			e.prov.on("PowerOff", tc.powerOff...)
			err := e.m.Converge(context.Background(), h, ConvergeOptions{})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Converge: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			var power, modes []string
			for _, c := range e.prov.calls {
				switch c.Method {
				case "PowerOff":
					modes = append(modes, string(c.Mode))
					power = append(power, c.Method)
				case "PowerOn":
					power = append(power, c.Method)
				}
			}
			if got := strings.Join(power, ","); got != tc.want {
				t.Errorf("power calls %s, want %s", got, tc.want)
			}
			if got := strings.Join(modes, ","); got != tc.modes {
				t.Errorf("power off modes %s, want %s", got, tc.modes)
			}
			if tc.wantErr == "" {
				if h.RebootRequested || h.Status.ErrorType != NoError || h.Status.PoweredOn != tc.online {
					t.Errorf("after reboot: requested %v, error %q, powered on %v", h.RebootRequested, h.Status.ErrorType, h.Status.PoweredOn)
				}
				if h.Status.State != tc.state {
					t.Errorf("state %q, want %q (in place)", h.Status.State, tc.state)
				}
			}
			// A second Converge does not reboot again.
			if tc.wantErr == "" {
				before := len(e.prov.callsTo("PowerOff"))
				_ = e.m.Converge(context.Background(), h, ConvergeOptions{})
				if tc.online && len(e.prov.callsTo("PowerOff")) != before {
					t.Errorf("second converge powered off again")
				}
			}
		})
	}
}
