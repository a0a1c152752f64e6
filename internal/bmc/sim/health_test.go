package sim

import "testing"

// A drive or fan fault rolls up into the System's and the Chassis'
// Status.HealthRollup (the worst of them), the faulty component shows its
// own Health, the other system stays OK, and clearing the faults heals it.
func TestHealthFaults(t *testing.T) {
	s := startServer(t, Options{}, 2)
	admin := newCaller(t, s.URL())
	admin.noAuth = true
	c := newCaller(t, s.URL())
	type resource struct {
		Status struct{ Health, HealthRollup string }
		Fans   []struct {
			Name   string
			Status struct{ Health string }
		}
	}
	get := func(path string) resource {
		t.Helper()
		var r resource
		c.expect(200, "GET", path, nil, &r)
		return r
	}
	rollup := func(id string) (system, chassis string) {
		t.Helper()
		return get("/redfish/v1/Systems/" + id).Status.HealthRollup, get("/redfish/v1/Chassis/" + id).Status.HealthRollup
	}
	if sys, ch := rollup("sys-0"); sys != "OK" || ch != "OK" {
		t.Fatalf("healthy system: rollup %q, chassis %q; want OK", sys, ch)
	}

	for _, tc := range []struct {
		name   string
		faults map[string]any
		want   string
	}{
		{"critical drive", map[string]any{"drive_health": map[string]string{"Disk.1": "Critical"}}, "Critical"},
		{"warning fan", map[string]any{"fan_health": "Warning"}, "Warning"},
		{"worst wins", map[string]any{"fan_health": "Warning", "drive_health": map[string]string{"Disk.0": "Critical"}}, "Critical"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			admin.expect(200, "POST", "/sim/systems/sys-0/faults", tc.faults, nil)
			if sys, ch := rollup("sys-0"); sys != tc.want || ch != tc.want {
				t.Errorf("rollup %q, chassis %q; want %s", sys, ch, tc.want)
			}
			if h := get("/redfish/v1/Systems/sys-0").Status.Health; h != "OK" {
				t.Errorf("the system's own Health %q; want OK (only the rollup says the component)", h)
			}
			if sys, _ := rollup("sys-1"); sys != "OK" {
				t.Errorf("the other system rolls up %q", sys)
			}
		})
	}
	if h := get("/redfish/v1/Systems/sys-0/Storage/1/Drives/Disk.0").Status.Health; h != "Critical" {
		t.Errorf("Disk.0 Health %q; want Critical", h)
	}
	if h := get("/redfish/v1/Systems/sys-0/Storage/1/Drives/Disk.1").Status.Health; h != "OK" {
		t.Errorf("Disk.1 Health %q after the faults were replaced; want OK", h)
	}
	if fans := get("/redfish/v1/Chassis/sys-0/Thermal").Fans; len(fans) != 1 || fans[0].Status.Health != "Warning" {
		t.Errorf("fans %+v; want Fan1 Warning", fans)
	}
	if err := s.SetFaults("sys-0", Faults{}); err != nil {
		t.Fatal(err)
	}
	if sys, ch := rollup("sys-0"); sys != "OK" || ch != "OK" {
		t.Errorf("faults cleared: rollup %q, chassis %q; want OK", sys, ch)
	}
}
