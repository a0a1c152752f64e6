package bmc

import (
	"net/http"
	"sort"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
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
}

// BIOSInfo are the BIOS attributes; Registry is empty when the BMC did not
// publish the attribute registry (then only names and values are known).
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
	seen := map[string]bool{}
	if reg != nil {
		info.Registry = b.AttributeRegistry
		for _, a := range reg.RegistryEntries.Attributes {
			if a.AttributeName == "" || a.Hidden {
				continue
			}
			current, ok := b.Attributes[a.AttributeName]
			if !ok {
				current = a.CurrentValue
			}
			seen[a.AttributeName] = true
			info.Attributes = append(info.Attributes, registryAttribute(a, current))
		}
	}
	for name, v := range b.Attributes {
		if !seen[name] {
			info.Attributes = append(info.Attributes, BIOSAttribute{Name: name, CurrentValue: v})
		}
	}
	sort.Slice(info.Attributes, func(i, j int) bool { return info.Attributes[i].Name < info.Attributes[j].Name })
	return info, nil
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
