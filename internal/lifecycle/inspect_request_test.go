package lifecycle

import (
	"context"
	"strings"
	"testing"
)

func TestCanReinspect(t *testing.T) {
	for _, tc := range []struct {
		st State
		ok bool
	}{
		{StateAvailable, true}, {StatePreparing, true}, {StateInspecting, true}, {StateRegistering, true},
		{StateProvisioned, false}, {StateProvisioning, false}, {StateExternallyProvisioned, false},
		{StateDeprovisioning, false}, {StateDeleting, false},
	} {
		err := CanReinspect("h-1", tc.st)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok %v", tc.st, err, tc.ok)
		}
		if err != nil {
			for _, want := range []string{`host "h-1"`, `"` + string(tc.st) + `"`, "inspect_trigger"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q: error lacks %s: %v", tc.st, want, err)
				}
			}
		}
	}
}

// A re-inspection of an available host goes manage -> inspect (with
// refresh) -> prepare -> provide, and the host ends available with the new
// details; on a provisioned host it is refused and nothing is called.
func TestRequestInspection(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.Online = false
	if err := RequestInspection(h); err != nil {
		t.Fatal(err)
	}
	newDetails := &HardwareDetails{NICs: []NIC{{Name: "eno9", MAC: "52:54:00:00:00:09"}}}
	e.prov.on("Inspect", provReply{res: Result{Dirty: true}, started: true}, provReply{details: newDetails})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatalf("Converge: %v", err)
	}
	ins := e.prov.callsTo("Inspect")
	if len(ins) != 2 || !ins[0].Refresh || ins[1].Refresh {
		t.Errorf("inspect calls %+v: want a refresh, then a wait without one", ins)
	}
	if h.Status.State != StateAvailable || h.InspectRequested || h.Status.HardwareDetails != newDetails {
		t.Errorf("state %q, requested %v, details %+v", h.Status.State, h.InspectRequested, h.Status.HardwareDetails)
	}
	if got := e.prov.methods(); !strings.Contains(got, "Inspect,Register,Inspect") || !strings.HasSuffix(got, "Provide,PowerOff") {
		t.Errorf("calls %s", got)
	}

	p := provisionedHost("http://img/a.qcow2")
	err := RequestInspection(p)
	if err == nil || p.InspectRequested || !strings.Contains(err.Error(), `state "provisioned"`) {
		t.Errorf("provisioned host: err %v, requested %v", err, p.InspectRequested)
	}
}
