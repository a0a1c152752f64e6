package ironic

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The inspection mode picks the node's inspect interface on registration:
// the first of the mode's preferences that Ironic enables for the driver
// (GET /v1/drivers/{name}, read once per driver).
func TestFakeInspectInterfaceByMode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		driver   string
		mode     lifecycle.InspectionMode
		explicit string
		enabled  []string // nil: the driver is unknown (404)
		want     string
		wantErr  string
	}{
		{name: "in-band: agent", driver: "redfish", mode: lifecycle.InspectionEnabled,
			enabled: []string{"agent", "inspector", "no-inspect", "redfish"}, want: "agent"},
		{name: "in-band on an Ironic without agent inspection: inspector", driver: "redfish", mode: lifecycle.InspectionEnabled,
			enabled: []string{"inspector", "no-inspect", "redfish"}, want: "inspector"},
		{name: "in-band impossible: registration error", driver: "redfish", mode: lifecycle.InspectionEnabled,
			enabled: []string{"no-inspect", "redfish"}, wantErr: `inspection = "enabled" needs inspect interface agent or inspector, which this Ironic does not enable for driver "redfish" (enabled: no-inspect, redfish)`},
		{name: "out-of-band: redfish", driver: "redfish", mode: lifecycle.InspectionOutOfBand,
			enabled: []string{"agent", "redfish"}, want: "redfish"},
		{name: "out-of-band on idrac", driver: "idrac", mode: lifecycle.InspectionOutOfBand,
			enabled: []string{"agent", "idrac-redfish"}, want: "idrac-redfish"},
		{name: "out-of-band on ipmi: registration error", driver: "ipmi", mode: lifecycle.InspectionOutOfBand,
			enabled: []string{"agent"}, wantErr: `Ironic driver "ipmi" cannot inspect out of band`},
		{name: "disabled: no-inspect", driver: "redfish", mode: lifecycle.InspectionDisabled,
			enabled: []string{"no-inspect", "redfish"}, want: "no-inspect"},
		{name: "disabled without no-inspect: Ironic's default", driver: "fake-hardware", mode: lifecycle.InspectionDisabled,
			enabled: []string{"fake"}, want: ""},
		{name: "fake-hardware: fake", driver: "fake-hardware", mode: lifecycle.InspectionEnabled,
			enabled: []string{"fake", "no-inspect"}, want: "fake"},
		{name: "explicit interface wins", driver: "redfish", mode: lifecycle.InspectionOutOfBand, explicit: "inspector",
			enabled: []string{"inspector", "redfish"}, want: "inspector"},
		{name: "driver unknown to Ironic: first preference", driver: "redfish", mode: lifecycle.InspectionEnabled, want: "agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := onFake(t)
			srv.HandleFunc("GET /v1/drivers/{name}", func(w http.ResponseWriter, r *http.Request) {
				if tc.enabled == nil || r.PathValue("name") != tc.driver {
					ironictest.WriteJSON(w, http.StatusNotFound, map[string]any{"error_message": "no such driver"})
					return
				}
				ironictest.WriteJSON(w, http.StatusOK, map[string]any{"name": tc.driver, "enabled_inspect_interfaces": tc.enabled})
			})
			h := fakeSpecHost("h1")
			h.Spec.BMC.Driver, h.Spec.Inspection = tc.driver, tc.mode
			h.Spec.BMC.Interfaces = map[string]string{}
			if tc.explicit != "" {
				h.Spec.BMC.Interfaces["inspect_interface"] = tc.explicit
			}
			res, _, err := p.Register(context.Background(), h, true, false)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if !strings.Contains(res.ErrorMessage, tc.wantErr) {
					t.Fatalf("error %q, want %q", res.ErrorMessage, tc.wantErr)
				}
				if srv.NodeCount() != 0 {
					t.Fatal("a node was created")
				}
				return
			}
			if res.ErrorMessage != "" {
				t.Fatal(res.ErrorMessage)
			}
			if got := srv.MustNode("h1").InspectInterface; got != tc.want {
				t.Fatalf("inspect_interface %q, want %q", got, tc.want)
			}
			if h.Spec.BMC.Interfaces["inspect_interface"] != tc.explicit {
				t.Fatal("Register changed the caller's spec")
			}
			// The driver is asked once.
			if _, _, err := p.Register(context.Background(), h, false, false); err != nil {
				t.Fatal(err)
			}
			if n := srv.Count(http.MethodGet, "/drivers/"+tc.driver); tc.explicit == "" && n != 1 {
				t.Fatalf("GET /v1/drivers/%s %d times, want once", tc.driver, n)
			}
		})
	}
}

// Hosts registering at once in a fresh provider process ask Ironic about
// their driver once, not once each.
func TestFakeDriverReadOncePerDriver(t *testing.T) {
	p, srv := onFake(t)
	release := make(chan struct{})
	var mu sync.Mutex
	gets := 0
	srv.HandleFunc("GET /v1/drivers/{name}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gets++
		mu.Unlock()
		<-release // hold the first read until every caller is in flight
		ironictest.WriteJSON(w, http.StatusOK, map[string]any{"name": r.PathValue("name"), "enabled_inspect_interfaces": []string{"fake"}})
	})
	const hosts = 20
	var started, done sync.WaitGroup
	errs := make(chan error, hosts)
	for range hosts {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			started.Done()
			list, known, err := p.enabledInspectInterfaces(context.Background(), "fake-hardware")
			if err == nil && (!known || len(list) != 1 || list[0] != "fake") {
				err = fmt.Errorf("got %v %v", list, known)
			}
			errs <- err
		}()
	}
	started.Wait()
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if gets > 2 {
		t.Fatalf("%d reads of the driver for %d hosts, want 1 (at most 2 if a caller came after the first read ended)", gets, hosts)
	}
}
