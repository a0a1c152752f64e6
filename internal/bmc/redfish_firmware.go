package bmc

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// This file is the firmware inventory of the UpdateService: the
// components that belong to a system (a BMC serving several systems
// relates each component to its owner). Updating them is update.go's.

// FirmwareComponent is one entry of the firmware inventory.
type FirmwareComponent struct {
	ID         string
	Name       string
	Version    string
	Updateable bool
	// URI is the inventory item's @odata.id (a SimpleUpdate target).
	URI string
}

// Firmware reads the firmware inventory that belongs to systemID.
func (c *RedfishClient) Firmware(systemID string) ([]FirmwareComponent, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return nil, err
	}
	return c.firmware(sys)
}

func (c *RedfishClient) firmware(sys *schemas.ComputerSystem) ([]FirmwareComponent, error) {
	us, err := c.api.Service.UpdateService()
	if err != nil {
		return nil, c.wrap("read update service", err)
	}
	if us == nil {
		return nil, nil
	}
	items, err := us.FirmwareInventory()
	if err != nil {
		return nil, c.wrap("read firmware inventory", err)
	}
	// A BMC serving several systems relates each component to its owner.
	owners := map[string]bool{strings.TrimSuffix(sys.ODataID, "/"): true}
	var raw struct {
		Links struct {
			ManagedBy, Chassis []struct {
				ID string `json:"@odata.id"`
			}
		}
	}
	if json.Unmarshal(sys.RawData, &raw) == nil {
		for _, l := range append(raw.Links.ManagedBy, raw.Links.Chassis...) {
			owners[strings.TrimSuffix(l.ID, "/")] = true
		}
	}
	var out []FirmwareComponent
	for _, it := range items {
		if related := relatedItems(it.RawData); len(related) > 0 && !anyOwned(related, owners) {
			continue
		}
		out = append(out, FirmwareComponent{ID: it.ID, Name: it.Name, Version: it.Version, Updateable: it.Updateable, URI: it.ODataID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func relatedItems(raw []byte) []string {
	var v struct {
		RelatedItem []struct {
			ID string `json:"@odata.id"`
		}
	}
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	for _, r := range v.RelatedItem {
		out = append(out, strings.TrimSuffix(r.ID, "/"))
	}
	return out
}

func anyOwned(related []string, owners map[string]bool) bool {
	for _, r := range related {
		if owners[r] {
			return true
		}
	}
	return false
}
