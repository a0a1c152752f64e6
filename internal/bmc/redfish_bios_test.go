package bmc

import (
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// The BIOS attributes are those the system's Bios has, not every one of a
// registry written for the platform family; the registry gives their types
// and the dependencies that lock them.
func TestBIOSIsWhatTheSystemHas(t *testing.T) {
	for _, d := range []string{sim.DialectILO, sim.DialectIDRAC, sim.DialectSupermicro} {
		p, _ := sim.ProfileFor(d, 0)
		info, err := connect(t, startDialect(t, d)).BIOS("sys-0")
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Attributes) != len(p.BIOS) {
			t.Errorf("%q: %d attributes; the Bios has %d (the registry %d)", d, len(info.Attributes), len(p.BIOS), len(p.BIOS)+len(p.BIOSRegistryOnly))
		}
		byName := map[string]BIOSAttribute{}
		for _, a := range info.Attributes {
			byName[a.Name] = a
		}
		for _, a := range p.BIOSRegistryOnly {
			if _, ok := byName[a.Name]; ok {
				t.Errorf("%q: %s is only in the registry", d, a.Name)
			}
		}
		for _, dep := range p.BIOSDependencies {
			a := byName[dep.Attribute]
			if a.Type == "" || len(a.Locks) != 1 || a.Locks[0].Property != dep.Property || len(a.Locks[0].When) != 1 {
				t.Errorf("%q: %s = %+v", d, dep.Attribute, a)
				continue
			}
			if c, w := a.Locks[0].When[0], dep.When[0]; c.Attribute != w.Attribute || c.Condition != w.Condition || c.Value != w.Value {
				t.Errorf("%q: %s lock = %+v, want %+v", d, dep.Attribute, c, w)
			}
		}
	}
}

// Redfish values are rendered as Ironic stores them, for the current
// values and the values the registry's dependencies compare with.
func TestBIOSValue(t *testing.T) {
	for v, want := range map[any]string{nil: "", "x": "x", true: "True", false: "False", 2.5: "2.5", 3: "3"} {
		if got := BIOSValue(v); got != want {
			t.Errorf("BIOSValue(%v) = %q, want %q", v, got, want)
		}
	}
}
