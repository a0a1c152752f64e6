package resources_test

import (
	"fmt"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// bondedHost is a fake-hardware host with two ports and the given
// port_groups.
func bondedHost(groups string) string {
	return fmt.Sprintf(`
resource "baremetal_host" "h" {
  name   = "h"
  driver = "fake-hardware"
  ports = [
    { mac = "52:54:00:00:00:01" },
    { mac = "52:54:00:00:00:02" },
  ]
  port_groups = %s
}
`, groups)
}

// port_groups is checked at terraform validate (no Ironic asked): a mode
// that is not a Linux bonding mode, a member that is not one of the host's
// ports, a port in two groups, a name twice, a name Ironic refuses; a good
// bond plans.
func TestHostPortGroupsValidate_fake(t *testing.T) {
	cases := []struct{ name, groups, want string }{
		{"bad mode", `[{ name = "bond0", mode = "lacp", ports = ["52:54:00:00:00:01"] }]`,
			`(?s)port_groups.*value must be one of:.*"balance-rr".*"802.3ad".*got: "lacp"`},
		{"member not a port", `[{ name = "bond0", ports = ["52:54:00:00:00:01", "52:54:00:00:00:09"] }]`,
			`(?s)Port group member is not a port.*port group "bond0" lists member 52:54:00:00:00:09, which is not one of\s+the\s+host's\s+ports.*Add\s+\{\s+mac\s+=\s+"52:54:00:00:00:09"\s+\}\s+to\s+ports`},
		{"port in two groups", `[{ name = "bond0", ports = ["52:54:00:00:00:01"] }, { name = "bond1", ports = ["52:54:00:00:00:01"] }]`,
			`(?s)Port in two port groups.*52:54:00:00:00:01 is a member of port groups`},
		{"name twice", `[{ name = "bond0", ports = ["52:54:00:00:00:01"] }, { name = "bond0", ports = ["52:54:00:00:00:02"] }]`,
			`(?s)Duplicate port group name.*"bond0" more than once`},
		{"bad name", `[{ name = "bond 0", ports = ["52:54:00:00:00:01"] }]`, `(?s)port_groups.*name`},
		{"no members", `[{ name = "bond0", ports = [] }]`, `(?s)port_groups.*at least 1`},
		{"good", `[{ name = "bond0", mode = "802.3ad", address = "52:54:00:00:00:01", properties = { miimon = "100" }, ports = ["52:54:00:00:00:01", "52:54:00:00:00:02"] }]`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			planOnFake(t, ironictest.New(t), bondedHost(tc.groups), tc.want)
		})
	}
}

// A port group's physical_network is refused at plan on an Ironic older
// than API 1.102 (2025.1 offers 1.96), naming the microversion; at 1.102 it
// plans.
func TestHostPortGroupPhysnetTooOld_fake(t *testing.T) {
	host := bondedHost(`[{ name = "bond0", physical_network = "physnet1", ports = ["52:54:00:00:00:01"] }]`)
	planOnFake(t, fakeWith(t, func(s *ironictest.Server) { s.MaxMicroversion = "1.96" }), host,
		`(?s)Ironic too old for a port group's physical_network.*port group "bond0": port_groups.physical_network needs\s+Ironic\s+API\s+microversion\s+1.102\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+1.96`)
	planOnFake(t, fakeWith(t, func(s *ironictest.Server) { s.MaxMicroversion = "1.102" }), host, "")
}
