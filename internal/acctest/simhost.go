package acctest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// SimAddress is the bmc.address of simulator system id (Ironic's redfish
// driver over plain HTTP).
func SimAddress(srv *sim.Server, id string) string {
	return "redfish+" + srv.SystemURL(id)
}

// StartSimHost starts a simulator with one system, sys-0, that accepts
// user and pass (StartSim), and returns it with the system's profile and a
// host on it: baremetal_host.test named Name(prefix), with those
// credentials.
func StartSimHost(t *testing.T, prefix, user, pass string) (*sim.Server, sim.Profile, SimHost) {
	t.Helper()
	srv, profiles := StartSim(t, 1, user, pass)
	return srv, profiles[0], SimHost{Name: Name(prefix), Address: SimAddress(srv, "sys-0"), Username: user, Password: pass}
}

// SimHost is the configuration of a baremetal_host whose BMC is a
// simulator system: every acceptance test that registers a host on the
// simulator writes it through here.
type SimHost struct {
	// Resource is the resource name ("test" when empty).
	Resource string
	Name     string
	// Address is bmc.address (SimAddress for a simulator system).
	Address  string
	Username string
	// Password is bmc.password, a literal; PasswordExpr, when set, is
	// written instead as an HCL expression (var.x). With neither, the bmc
	// block has no password line (password_wo goes in BMCExtra).
	Password     string
	PasswordExpr string
	// BMCExtra is lines inside the bmc block.
	BMCExtra string
	// Driver is the lines that choose the driver and interfaces:
	// SimHostDriver when empty.
	Driver string
	// Extra is lines inside the resource.
	Extra string
}

// BMC is the host's bmc block, indented for a resource or data source
// body; data sources that read the same BMC use it too.
func (h SimHost) BMC() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  bmc = {\n    address  = %q\n    username = %q\n", h.Address, h.Username)
	switch {
	case h.PasswordExpr != "":
		fmt.Fprintf(&b, "    password = %s\n", h.PasswordExpr)
	case h.Password != "":
		fmt.Fprintf(&b, "    password = %s\n", strconv.Quote(h.Password))
	}
	if h.BMCExtra != "" {
		b.WriteString(strings.TrimRight(h.BMCExtra, "\n") + "\n")
	}
	b.WriteString("  }\n")
	return b.String()
}

// HCL is the resource block.
func (h SimHost) HCL() string {
	res, driver := h.Resource, h.Driver
	if res == "" {
		res = "test"
	}
	if driver == "" {
		driver = SimHostDriver
	}
	return fmt.Sprintf("\nresource \"baremetal_host\" %q {\n  name = %q\n%s%s\n%s\n}\n", res, h.Name, h.BMC(), driver, h.Extra)
}

// WithExtra is h with Extra set to extra: the same host, one setting
// different.
func (h SimHost) WithExtra(extra string) SimHost {
	h.Extra = extra
	return h
}

// SimHostDriverWith is SimHostDriver with interface iface set to impl
// (e.g. bios = "redfish").
func SimHostDriverWith(iface, impl string) string { return driverWith(SimHostDriver, iface, impl) }

// driverWith is driver (SimHostDriver's form) with interface iface set to
// impl.
func driverWith(driver, iface, impl string) string {
	for _, line := range strings.Split(driver, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == iface && f[1] == "=" {
			return strings.Replace(driver, line, strings.Replace(line, f[2], strconv.Quote(impl), 1), 1)
		}
	}
	panic("driver has no interface " + iface)
}

// SimPower checks that simulator system id's power state is want
// (sim.PowerOn or sim.PowerOff): the machine's side of a host's power, as
// every power check of the acceptance tests reads it.
func SimPower(srv *sim.Server, id, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := srv.State(id)
		if err != nil {
			return err
		}
		if st.PowerState != want {
			return fmt.Errorf("simulator %s power state %q, want %q (resets seen: %v)", id, st.PowerState, want, st.Resets)
		}
		return nil
	}
}

// SimResetsSince is simulator system id's resets after the first from of
// them, and how many it has seen in all: the machine's side of every power
// change, as the acceptance tests count them. It is an error when the
// system has seen fewer than from.
func SimResetsSince(srv *sim.Server, id string, from int) (resets []string, total int, err error) {
	st, err := srv.State(id)
	if err != nil {
		return nil, 0, err
	}
	if from > len(st.Resets) {
		return nil, 0, fmt.Errorf("simulator %s has %d resets, fewer than the %d seen before", id, len(st.Resets), from)
	}
	return st.Resets[from:], len(st.Resets), nil
}
