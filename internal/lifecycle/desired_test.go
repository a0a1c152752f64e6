package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// TestConvergeDesiredState: a host kept in enroll or manageable is never
// provided (so never cleaned); one kept manageable is still inspected and
// powered as online says.
func TestConvergeDesiredState(t *testing.T) {
	cases := []struct {
		name    string
		desired DesiredState
		start   State
		online  bool
		want    State
		calls   string
	}{
		{"new host kept manageable: inspected, not provided", DesiredManageable, StateNone, true, StatePreparing,
			"Register,Register,Register,Inspect,Register,Inspect,Register,Prepare,PowerOn"},
		{"adopted manageable node stays", DesiredManageable, StatePreparing, false, StatePreparing, "Register,Prepare,PowerOff"},
		{"adopted enroll node stays", DesiredEnroll, StateRegistering, false, StateRegistering, "Register"},
		{"available goes on to available", DesiredAvailable, StatePreparing, false, StateAvailable, "Register,Prepare,Register,Provide,PowerOff"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv()
			var h *Host
			if c.start == StateNone {
				h = newUnregisteredHost(e)
			} else {
				h = newHost(c.start)
			}
			h.Spec.Desired = c.desired
			h.Spec.Online = c.online
			if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
				t.Fatal(err)
			}
			if h.Status.State != c.want {
				t.Errorf("state %q, want %q", h.Status.State, c.want)
			}
			if got := e.prov.methods(); got != c.calls {
				t.Errorf("calls = %s\nwant    %s", got, c.calls)
			}
			if strings.Contains(e.prov.methods(), "Provide") != (c.desired == DesiredAvailable) {
				t.Errorf("provided = %v for desired %q", !strings.Contains(e.prov.methods(), "Provide"), c.desired)
			}
		})
	}
}

func TestDesiredFromIronic(t *testing.T) {
	for ps, want := range map[string]DesiredState{
		"enroll": DesiredEnroll, "verifying": DesiredEnroll,
		"manageable": DesiredManageable, "inspect wait": DesiredManageable, "inspect failed": DesiredManageable,
		"available": DesiredAvailable, "active": DesiredAvailable, "clean failed": DesiredAvailable, "": DesiredAvailable,
	} {
		if got := DesiredFromIronic(ps); got != want {
			t.Errorf("DesiredFromIronic(%q) = %q, want %q", ps, got, want)
		}
	}
}

// TestPlanStateMove: which updates move a node, what the warning says they
// run, and the moves backward that are refused.
func TestPlanStateMove(t *testing.T) {
	cases := []struct {
		from     string
		desired  DesiredState
		cleaning string
		inspect  bool
		online   bool
		to       string
		runs     []string // substrings of the runs, in order
		err      string
	}{
		{from: "manageable", desired: DesiredManageable},
		{from: "enroll", desired: DesiredEnroll},
		{from: "available", desired: DesiredAvailable},
		{from: "active", desired: ""},
		{from: "", desired: DesiredAvailable},
		{from: "manageable", desired: DesiredAvailable, cleaning: CleaningMetadata, to: "available",
			runs: []string{`automated cleaning (automated_cleaning_mode = "metadata")`, "power-off"}},
		{from: "manageable", desired: "", online: true, to: "available", runs: []string{`automated cleaning (automated_cleaning_mode = "metadata")`}},
		{from: "manageable", desired: DesiredAvailable, cleaning: CleaningDisabled, online: true, to: "available",
			runs: []string{"no automated cleaning"}},
		{from: "enroll", desired: DesiredManageable, inspect: true, to: "manageable", runs: []string{"verifying", "inspection"}},
		{from: "enroll", desired: DesiredManageable, to: "manageable", runs: []string{"verifying"}},
		{from: "enroll", desired: DesiredAvailable, inspect: true, to: "available", runs: []string{"verifying", "inspection", "automated cleaning", "power-off"}},
		{from: "available", desired: DesiredManageable, err: `provision state "available", past "manageable"`},
		{from: "active", desired: DesiredEnroll, err: `set desired_state = "available"`},
		{from: "manageable", desired: DesiredEnroll, err: `set desired_state = "manageable"`},
	}
	for _, c := range cases {
		mv, err := PlanStateMove(c.from, c.desired, c.cleaning, c.inspect, c.online)
		name := c.from + "->" + string(c.desired)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one with %q", name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if mv.To != c.to {
			t.Errorf("%s: to %q, want %q", name, mv.To, c.to)
		}
		if len(mv.Runs) != len(c.runs) {
			t.Errorf("%s: runs %q, want %d like %q", name, mv.Runs, len(c.runs), c.runs)
			continue
		}
		for i, r := range c.runs {
			if !strings.Contains(mv.Runs[i], r) {
				t.Errorf("%s: run %d is %q, want %q in it", name, i, mv.Runs[i], r)
			}
		}
	}
}
