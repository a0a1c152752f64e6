package acctest

import (
	"strings"
	"testing"
)

// SimHost writes the password as a literal or an expression (or not at
// all), the bmc extras inside the bmc block, and the simulator driver
// unless told otherwise.
func TestSimHostHCL(t *testing.T) {
	h := SimHost{Name: "n", Address: "redfish+http://127.0.0.1:1/redfish/v1/Systems/sys-0", Username: "admin", Password: `p"w`,
		BMCExtra: "    check_credentials = false", Extra: "  online = true"}
	got := h.HCL()
	for _, want := range []string{
		`resource "baremetal_host" "test" {`, `name = "n"`, `password = "p\"w"`,
		"    check_credentials = false\n  }\n" + SimHostDriver, "  online = true\n}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("HCL lacks %q:\n%s", want, got)
		}
	}
	h.Resource, h.Password, h.PasswordExpr = "h", "", "var.pw"
	if got := h.HCL(); !strings.Contains(got, `resource "baremetal_host" "h" {`) || !strings.Contains(got, "password = var.pw\n") {
		t.Errorf("HCL with a password expression:\n%s", got)
	}
	h.PasswordExpr = ""
	if got := h.BMC(); strings.Contains(got, "password") {
		t.Errorf("bmc block without a password:\n%s", got)
	}
}

func TestSimHostDriverWith(t *testing.T) {
	got := SimHostDriverWith("bios", "redfish")
	if got != strings.Replace(SimHostDriver, `bios       = "fake"`, `bios       = "redfish"`, 1) {
		t.Errorf("SimHostDriverWith(bios, redfish):\n%s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for an interface SimHostDriver does not set")
		}
	}()
	SimHostDriverWith("rescue", "agent")
}
