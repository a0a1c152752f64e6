package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Inventory is the hardware inventory in IPA's format (what
// ironic_python_agent.hardware.list_hardware_info returns), as inspection
// sends it and Ironic's inventory API shows it.
type Inventory struct {
	Interfaces   []Interface  `json:"interfaces"`
	CPU          CPU          `json:"cpu"`
	Disks        []Disk       `json:"disks"`
	Memory       Memory       `json:"memory"`
	BMCAddress   string       `json:"bmc_address"`
	BMCV6Address string       `json:"bmc_v6address"`
	SystemVendor SystemVendor `json:"system_vendor"`
	Boot         Boot         `json:"boot"`
	Hostname     string       `json:"hostname"`
}

// Interface is one NIC.
type Interface struct {
	Name        string  `json:"name"`
	MACAddress  string  `json:"mac_address"`
	IPv4Address *string `json:"ipv4_address"`
	IPv6Address *string `json:"ipv6_address"`
	HasCarrier  bool    `json:"has_carrier"`
	LLDP        any     `json:"lldp"`
	Vendor      string  `json:"vendor"`
	Product     string  `json:"product"`
	ClientID    *string `json:"client_id"`
	Biosdevname *string `json:"biosdevname"`
	SpeedMbps   int     `json:"speed_mbps"`
}

// CPU is the processors; Count is logical CPUs.
type CPU struct {
	ModelName    string   `json:"model_name"`
	Frequency    string   `json:"frequency"`
	Count        int      `json:"count"`
	Architecture string   `json:"architecture"`
	Flags        []string `json:"flags"`
	SocketCount  int      `json:"socket_count"`
}

// Disk is one block device.
type Disk struct {
	Name       string  `json:"name"`
	Model      string  `json:"model"`
	Size       int64   `json:"size"`
	Rotational bool    `json:"rotational"`
	WWN        *string `json:"wwn"`
	Serial     string  `json:"serial"`
	Vendor     string  `json:"vendor"`
	HCTL       *string `json:"hctl"`
	ByPath     string  `json:"by_path"`
}

// Memory: total bytes as the kernel sees it, physical_mb from DMI.
type Memory struct {
	Total      int64 `json:"total"`
	PhysicalMB int   `json:"physical_mb"`
}

// SystemVendor is DMI's system information.
type SystemVendor struct {
	ProductName  string   `json:"product_name"`
	SerialNumber string   `json:"serial_number"`
	Manufacturer string   `json:"manufacturer"`
	Firmware     Firmware `json:"firmware"`
}

// Firmware is the BIOS's DMI information.
type Firmware struct {
	Vendor    string `json:"vendor"`
	Version   string `json:"version"`
	BuildDate string `json:"build_date"`
}

// Boot is how the ramdisk booted.
type Boot struct {
	CurrentBootMode string `json:"current_boot_mode"`
	PXEInterface    string `json:"pxe_interface"`
}

// inspect posts the inventory to ironic-inspector, or to Ironic's built-in
// inspection (Config.InspectionURL), as IPA's inspector extension does,
// with the LLDP of the NICs' wiring (lldp.go); either answers with the
// node's UUID (inspector) or 202 (Ironic) while it waits for this host, and
// 4xx otherwise.
func (a *Agent) inspect(ctx context.Context) error {
	if a.cfg.InspectorURL == "" {
		a.awaitInspectWait(ctx)
	}
	inv := a.m.Inventory()
	a.withLLDP(&inv)
	root := ""
	for _, d := range inv.Disks {
		if d.Size >= 4<<30 && (root == "" || d.Size < sizeOf(inv.Disks, root)) {
			root = d.Name
		}
	}
	var rootDisk any
	for _, d := range inv.Disks {
		if d.Name == root {
			rootDisk = d
		}
	}
	body := map[string]any{
		"inventory":      inv,
		"root_disk":      rootDisk,
		"boot_interface": inv.Boot.PXEInterface,
		"configuration":  map[string]any{"collectors": []string{"default"}, "managers": []any{map[string]string{"name": hardwareManager, "version": managerVersion[hardwareManager]}}},
		"error":          nil,
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	target := a.cfg.InspectionURL()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	// No microversion header: Ironic then answers as ironic-inspector did
	// ({"uuid": ...}, HTTP 202). At 1.84 it would also hand out the
	// boot's agent token, which the lookup that follows must get.
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(req)
	rec := &InspectionRecord{}
	if err != nil {
		rec.Error = err.Error()
	} else {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		rec.Status, rec.Answer = resp.StatusCode, strings.TrimSpace(string(answer))
	}
	a.mu.Lock()
	if err == nil && rec.Status < 300 {
		a.rec.Inspection = rec
	} else {
		a.rec.InspectionRejected++
	}
	a.rec.event("posted the inventory to %s: HTTP %d %s", target, rec.Status, rec.Answer)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	if rec.Status >= 300 {
		return fmt.Errorf("inspector answered HTTP %d: %s", rec.Status, rec.Answer)
	}
	return nil
}

func sizeOf(disks []Disk, name string) int64 {
	for _, d := range disks {
		if d.Name == name {
			return d.Size
		}
	}
	return 0
}

// awaitInspectWait: Ironic's built-in inspection takes an inventory only
// from a node in "inspect wait" (404 otherwise). The simulated ramdisk boots
// at once, while the conductor that powered the host on still holds it in
// "inspecting"; a real ramdisk takes tens of seconds to boot. So when a
// node with one of the system's MACs is "inspecting", this waits (at
// LookupInterval, for at most LookupTimeout) until it no longer is, as
// bootTime does for network boots. Other boots are not delayed.
func (a *Agent) awaitInspectWait(ctx context.Context) {
	node := ""
	for _, mac := range a.m.MACs() {
		var r struct {
			Ports []struct {
				NodeUUID string `json:"node_uuid"`
			} `json:"ports"`
		}
		if err := a.getIronic(ctx, "/v1/ports?fields=node_uuid&address="+url.QueryEscape(strings.ToLower(mac)), &r); err == nil && len(r.Ports) > 0 {
			node = r.Ports[0].NodeUUID
			break
		}
	}
	if node == "" {
		return
	}
	for deadline := time.Now().Add(a.cfg.LookupTimeout); time.Now().Before(deadline); {
		var n struct {
			ProvisionState string `json:"provision_state"`
		}
		if err := a.getIronic(ctx, "/v1/nodes/"+url.PathEscape(node)+"?fields=provision_state", &n); err != nil || n.ProvisionState != "inspecting" {
			return
		}
		if !sleep(ctx, a.cfg.LookupInterval) {
			return
		}
	}
}
