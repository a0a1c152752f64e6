package bmc

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// This file is the firmware inventory of the UpdateService: the
// components that belong to a system, its managers, its chassis and what
// they contain (drives, enclosures, NICs, storage controllers, power
// supplies). A BMC serving several systems relates each component to its
// owner (redfish_ownership.go). Updating them is update.go's.

// FirmwareComponent is one entry of the firmware inventory.
type FirmwareComponent struct {
	ID         string
	Name       string
	Version    string
	Updateable bool
	// URI is the inventory item's @odata.id (a SimpleUpdate target).
	URI string
	// RelatedTo are the item's RelatedItem links, as the BMC gives them.
	RelatedTo []string
	// State is the item's Status.State ("Enabled", "StandbySpare", ...;
	// "" when the BMC does not say).
	State string
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
	// Which items are the system's is redfish_ownership.go's.
	owner := newOwnership(c, sys)
	var out []FirmwareComponent
	for _, it := range items {
		related := relatedItems(it.RawData)
		if !owner.keep(related) {
			continue
		}
		out = append(out, FirmwareComponent{
			ID: it.ID, Name: it.Name, Version: it.Version, Updateable: it.Updateable, URI: it.ODataID,
			RelatedTo: related, State: string(it.Status.State),
		})
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
		if r.ID != "" {
			out = append(out, r.ID)
		}
	}
	return out
}

// linkPath is a link compared as BMCs mean it: without case (iLO spells
// links in lower case), trailing slash or fragment.
func linkPath(uri string) string {
	return strings.ToLower(trimLink(uri))
}

// trimLink is uri without fragment or trailing slash.
func trimLink(uri string) string {
	p, _, _ := strings.Cut(uri, "#")
	return strings.TrimRight(p, "/")
}

func anyOwned(related, owners []string) bool {
	for _, r := range related {
		r = linkPath(r)
		for _, o := range owners {
			if o != "" && (r == o || strings.HasPrefix(r, o+"/")) {
				return true
			}
		}
	}
	return false
}
