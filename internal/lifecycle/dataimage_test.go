package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeMaint struct {
	on      bool
	reason  string
	sets    []string
	failOff bool
}

func (f *fakeMaint) Maintenance(context.Context, string) (bool, string, error) {
	return f.on, f.reason, nil
}

func (f *fakeMaint) SetMaintenance(_ context.Context, _ string, on bool, reason string) error {
	if !on && f.failOff {
		return errors.New("ironic down")
	}
	f.on, f.reason = on, reason
	if on {
		f.sets = append(f.sets, "on:"+reason)
	} else {
		f.sets = append(f.sets, "off")
	}
	return nil
}

// WithOwnMaintenance ends only the maintenance it set: after success and
// after failure; a maintenance of someone else's, from before or taken over
// meanwhile, is left; a maintenance it cannot end is an error saying so.
func TestWithOwnMaintenance(t *testing.T) {
	ctx := context.Background()
	reason := MaintenanceReasonDataImage + " x"

	f := &fakeMaint{}
	err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error {
		if !f.on || f.reason != reason {
			t.Errorf("during fn: maintenance %v %q", f.on, f.reason)
		}
		return nil
	})
	if err != nil || f.on || strings.Join(f.sets, ",") != "on:"+reason+",off" {
		t.Fatalf("success: err %v, on %v, sets %q", err, f.on, f.sets)
	}

	f = &fakeMaint{}
	boom := errors.New("BMC said no")
	if err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return boom }); !errors.Is(err, boom) || f.on {
		t.Fatalf("failure: err %v, on %v", err, f.on)
	}

	f = &fakeMaint{on: true, reason: "operator: disk swap"}
	if err := WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return nil }); err != nil || !f.on ||
		f.reason != "operator: disk swap" || len(f.sets) != 0 {
		t.Fatalf("someone else's maintenance: err %v, %v %q, sets %q", err, f.on, f.reason, f.sets)
	}

	f = &fakeMaint{}
	err = WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error {
		f.reason = DetachReason // detached meanwhile
		return nil
	})
	if err != nil || !f.on || f.reason != DetachReason {
		t.Fatalf("taken over: err %v, %v %q", err, f.on, f.reason)
	}

	f = &fakeMaint{failOff: true}
	err = WithOwnMaintenance(ctx, f, nil, "h", "id", MaintenanceReasonDataImage, reason, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "STILL IN MAINTENANCE") {
		t.Fatalf("cannot clear: %v", err)
	}
}

// A data image is refused on a host whose boot interface boots it from the
// BMC's virtual CD, naming the image and the interface; a host that boots
// over the network, or whose interface is not read, is not.
func TestDataImageBootRefusal(t *testing.T) {
	const url = "http://images.example.com/ignition.iso"
	for boot, refused := range map[string]bool{
		"redfish-virtual-media": true, "idrac-redfish-virtual-media": true, "ilo-virtual-media": true, "irmc-virtual-media": true,
		"ipxe": false, "pxe": false, "redfish-https": false, "": false,
	} {
		r := DataImageBootRefusal(Observation{Exists: true, ID: "node-1", Name: "host-a", BootInterface: boot}, url)
		want := `The data image ` + url + ` cannot go on host "host-a" (node node-1): its boot_interface "` + boot + `" boots it from the BMC's virtual CD`
		switch {
		case !refused && r != nil:
			t.Errorf("%q: refused: %+v", boot, r)
		case refused && (r == nil || r.Attribute != "host_id" || r.Summary != "Host boots from virtual media" || !strings.HasPrefix(r.Detail, want)):
			t.Errorf("%q: refusal %+v, want one on host_id saying %q", boot, r, want)
		}
	}
}
