package faults

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// BMC faults from the simulator while hosts register, inspect and power on
// (one host per fault, all in one apply): transient ones (a burst of 5xx,
// slow answers) are survived; permanent ones (wrong credentials, power that
// never changes, a BMC that drops connections) fail with an error naming
// the host and the cause. The healthy hosts are not held back, and nothing
// is duplicated or left behind.
func TestFaultBMC(t *testing.T) {
	sc := preCheck(t)
	t.Parallel() // with the other tests that leave Ironic alone
	const user, pass = "admin", "fault-pass"
	srv, _ := acctest.StartSim(t, 7, user, pass)
	prefix := acctest.Name("flt-bmc")
	cases := []struct {
		fault  string
		faults sim.Faults
		// noCheck skips the provider's own BMC check, so that the fault
		// meets Ironic instead.
		noCheck bool
		// want is "" for a host that must reach available, else text
		// its error must contain.
		want string
	}{
		{"401 (wrong credentials)", sim.Faults{WrongCredentials: true}, false, "401"},
		{"burst of three 503s", sim.Faults{ErrorBurst: 3, ErrorStatus: 503}, false, ""},
		{"slow answers (1.5 s each)", sim.Faults{Delay: 1500 * time.Millisecond}, false, ""},
		{"stuck power", sim.Faults{PowerStuck: true}, false, "power"},
		{"unreachable (connections dropped)", sim.Faults{Unreachable: true}, false, "unreachable"},
		{"401 met by Ironic (check_credentials = false)", sim.Faults{WrongCredentials: true}, true, "registration error"},
		{"unreachable met by Ironic (check_credentials = false)", sim.Faults{Unreachable: true}, true, "registration error"},
	}
	var b strings.Builder
	var names []string
	for i, c := range cases {
		id := fmt.Sprintf("sys-%d", i)
		if err := srv.SetFaults(id, c.faults); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s-%d", prefix, i)
		names = append(names, name)
		b.WriteString(acctest.SimHost{Resource: fmt.Sprintf("h%d", i), Name: name, Address: acctest.SimAddress(srv, id), Username: user, Password: pass,
			BMCExtra: map[bool]string{true: "    check_credentials = false"}[c.noCheck], Extra: "  online = true"}.HCL())
	}
	w := newWorkspace(t, b.String())
	defer func() {
		for i := range cases {
			_ = srv.ClearFaults(fmt.Sprintf("sys-%d", i))
		}
		w.destroy()
		expectFleet(t, sc, prefix, nil, "")
	}()

	out, took, err := w.apply()
	if err == nil {
		t.Fatalf("apply succeeded despite three broken BMCs:\n%s", tail(out, 40))
	}
	errs := errorsIn(out)
	byHost := map[string]string{}
	for _, e := range errs {
		// Errors from Ironic name the host; the BMC pre-flight check
		// fails at plan time on the resource, which Terraform names.
		if m := hostErrorRE.FindStringSubmatch(e); m != nil {
			byHost[m[1]] = e[strings.Index(e, m[0]):]
		} else if m := resourceRE.FindStringSubmatch(e); m != nil {
			i, _ := strconv.Atoi(m[1])
			byHost[names[i]] = m[0] + ": " + e[strings.LastIndex(e, "} ")+2:]
		} else {
			t.Errorf("error names no host: %s", e)
		}
	}
	got := fleet(t, sc, prefix)
	for i, c := range cases {
		name := names[i]
		e, failed := byHost[name]
		ns := got[name]
		if len(ns) > 1 {
			t.Errorf("%s: %d nodes", name, len(ns))
		}
		var happened string
		switch {
		case c.want == "" && failed:
			t.Errorf("%s (%s) failed, want it survived: %s", name, c.fault, e)
		case c.want == "":
			if len(ns) != 1 || ns[0].ProvisionState != "available" {
				t.Errorf("%s (%s): nodes %+v, want one available", name, c.fault, ns)
			}
			happened = "survived by retries: host available and powered on"
		case !failed:
			t.Errorf("%s (%s) did not fail", name, c.fault)
		case !strings.Contains(strings.ToLower(e), strings.ToLower(c.want)):
			t.Errorf("%s (%s): error lacks %q: %s", name, c.fault, c.want, e)
		default:
			happened = "clear error: " + e
		}
		lost := "nothing"
		if len(ns) == 1 {
			lost += fmt.Sprintf(" (node in %s, kept in state)", ns[0].ProvisionState)
		} else if len(ns) == 0 {
			lost += " (no node created)"
		}
		record(t, row{"BMC fault during register/inspect/power: " + c.fault, happened, secs(took) + " (whole apply)", lost})
	}
}

var resourceRE = regexp.MustCompile(`baremetal_host\.h(\d+)`)
