package bmc

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is a system's BIOS resource and its attribute registry (from
// the Registries service): each setting's current value, type, allowed
// values and bounds.

// BIOSAttribute is one BIOS setting with its registry entry.
type BIOSAttribute struct {
	Name          string
	Type          string // Enumeration, Integer, String, Boolean, Password; "" without registry
	AllowedValues []string
	LowerBound    *int64
	UpperBound    *int64
	MinLength     *int
	MaxLength     *int
	ReadOnly      bool
	ResetRequired bool
	CurrentValue  any
	// Locks are the registry's Dependencies that make the attribute
	// read-only or hidden while other attributes have some values; their
	// condition values are rendered by BIOSValue.
	Locks []lifecycle.BIOSLock
}

// BIOSInfo are the BIOS attributes the system has (its Bios resource's
// Attributes, not every attribute of a registry written for a family of
// platforms), with their registry entries; Registry is empty when the BMC
// did not publish the attribute registry (then only names and values are
// known).
type BIOSInfo struct {
	Registry   string
	Attributes []BIOSAttribute // sorted by name
}

// BIOS reads the BIOS attributes of systemID with their registry.
func (c *RedfishClient) BIOS(systemID string) (BIOSInfo, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return BIOSInfo{}, err
	}
	return c.bios(sys)
}

func (c *RedfishClient) bios(sys *schemas.ComputerSystem) (BIOSInfo, error) {
	b, err := sys.Bios()
	if err != nil {
		return BIOSInfo{}, c.wrap("read BIOS of "+sys.ID, err)
	}
	if b == nil {
		return BIOSInfo{}, nil
	}
	reg, err := c.attributeRegistry(b.AttributeRegistry)
	if err != nil {
		return BIOSInfo{}, err
	}
	info := BIOSInfo{}
	entries := map[string]schemas.Attributes{}
	locks := map[string][]lifecycle.BIOSLock{}
	if reg != nil {
		info.Registry = b.AttributeRegistry
		for _, a := range reg.RegistryEntries.Attributes {
			entries[a.AttributeName] = a
		}
		for _, d := range reg.RegistryEntries.Dependencies {
			if l, ok := registryLock(d); ok {
				locks[d.Dependency.MapToAttribute] = append(locks[d.Dependency.MapToAttribute], l)
			}
		}
	}
	for name, v := range b.Attributes {
		a, ok := entries[name]
		switch {
		case !ok:
			info.Attributes = append(info.Attributes, BIOSAttribute{Name: name, CurrentValue: v})
		case !a.Hidden:
			attr := registryAttribute(a, v)
			attr.Locks = locks[name]
			info.Attributes = append(info.Attributes, attr)
		}
	}
	sort.Slice(info.Attributes, func(i, j int) bool { return info.Attributes[i].Name < info.Attributes[j].Name })
	return info, nil
}

// registryLock reads a Map dependency that makes its attribute read-only,
// greyed out or hidden on the current values of others; ok is false for
// the other kinds (values, bounds, texts), which the provider ignores.
func registryLock(d schemas.Dependencies) (lifecycle.BIOSLock, bool) {
	dep := d.Dependency
	switch dep.MapToProperty {
	case schemas.ReadOnlyMapToProperty, schemas.GrayOutMapToProperty, schemas.HiddenMapToProperty:
	default:
		return lifecycle.BIOSLock{}, false
	}
	if on, _ := dep.MapToValue.(bool); !on || dep.MapToAttribute == "" || len(dep.MapFrom) == 0 ||
		(d.Type != "" && d.Type != schemas.MapDependencyType) {
		return lifecycle.BIOSLock{}, false
	}
	l := lifecycle.BIOSLock{Property: string(dep.MapToProperty)}
	for _, f := range dep.MapFrom {
		if f.MapFromProperty != "" && f.MapFromProperty != schemas.CurrentValueMapFromProperty {
			return lifecycle.BIOSLock{}, false
		}
		l.When = append(l.When, lifecycle.BIOSCondition{
			Attribute: f.MapFromAttribute, Condition: string(f.MapFromCondition), Value: BIOSValue(f.MapFromValue),
			Or: f.MapTerms == schemas.ORMapTerms,
		})
	}
	return l, true
}

// BIOSValue renders a Redfish BIOS attribute value as Ironic stores it:
// booleans as "True" and "False", numbers without exponent, nil as "".
func BIOSValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func registryAttribute(a schemas.Attributes, current any) BIOSAttribute {
	out := BIOSAttribute{
		Name: a.AttributeName, Type: string(a.Type), ReadOnly: a.ReadOnly || a.Immutable,
		ResetRequired: a.ResetRequired, CurrentValue: current,
		MinLength: a.MinLength, MaxLength: a.MaxLength,
	}
	for _, v := range a.Value {
		out.AllowedValues = append(out.AllowedValues, v.ValueName)
	}
	if a.LowerBound != nil {
		v := int64(*a.LowerBound)
		out.LowerBound = &v
	}
	if a.UpperBound != nil {
		v := int64(*a.UpperBound)
		out.UpperBound = &v
	}
	return out
}

// attributeRegistry finds the registry named by Bios.AttributeRegistry in
// the Registries collection; nil when the BMC does not publish it.
func (c *RedfishClient) attributeRegistry(name string) (*schemas.AttributeRegistry, error) {
	if name == "" {
		return nil, nil
	}
	files, err := c.registryFiles()
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, nil
		}
		return nil, c.wrap("list registries", err)
	}
	base, _, _ := strings.Cut(name, ".")
	for _, f := range files {
		if f.ID != name && f.Registry != name && f.ID != base {
			continue
		}
		uri := registryURI(f)
		if uri == "" {
			return nil, nil
		}
		reg, err := schemas.GetAttributeRegistry(c.api, uri)
		if err != nil {
			return nil, c.wrap("read BIOS attribute registry "+name, err)
		}
		return reg, nil
	}
	return nil, nil
}
