package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// The boot path: what a real ramdisk needs before it can reach Ironic.
//
// A deploy kernel of another architecture than the system's does not boot
// at all; without a per-node deploy kernel (driver_info deploy_kernel or
// deploy_iso) the host boots the conductor-wide one, which on the rig is
// x86_64. On a network without DHCP (Config.DHCPLess) the ramdisk has an
// address only if its boot media carries the node's network_data (Ironic
// writes it into the virtual media ISO as openstack/latest/network_data.json);
// the simulator reads what the media would carry from the node itself.
// A ramdisk that cannot boot or has no address stays silent: no inspection
// post, no lookup, no heartbeat, so Ironic waits until its timeout, as it
// does for a real host.

// DefaultDeployArch is the architecture of the conductor-wide deploy
// kernel a node without its own boots.
const DefaultDeployArch = "x86_64"

// bootMedia is what the node's boot media carries.
type bootMedia struct {
	node        string
	networkData json.RawMessage
	kernel      string // deploy_kernel, else deploy_iso
}

// bootPath says whether boot b can run the agent, recording why not.
func (a *Agent) bootPath(b *boot) bool {
	arch := a.m.Inventory().CPU.Architecture
	media, err := a.media(b.ctx)
	if err != nil {
		a.mu.Lock()
		a.rec.event("boot media: %v", err)
		a.mu.Unlock()
		media = &bootMedia{}
	}
	kernelArch := DefaultDeployArch
	if media.kernel != "" {
		kernelArch, err = a.kernelArch(b.ctx, media.kernel)
		if err != nil {
			kernelArch = ""
			a.mu.Lock()
			a.rec.event("deploy kernel %s: %v", media.kernel, err)
			a.mu.Unlock()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.current(b) {
		return false
	}
	a.rec.DeployKernel, a.rec.DeployKernelArch = media.kernel, kernelArch
	if kernelArch != "" && arch != "" && kernelArch != arch {
		a.rec.BootRefused = fmt.Sprintf("deploy kernel %q is %s, the system is %s: the ramdisk does not boot", orDefault(media.kernel), kernelArch, arch)
		a.rec.event("%s", a.rec.BootRefused)
		return false
	}
	if a.cfg.DHCPLess {
		if len(media.networkData) == 0 || string(media.networkData) == "null" || string(media.networkData) == "{}" {
			a.rec.BootRefused = "no DHCP on this network and no network_data on the boot media: the ramdisk has no address"
			a.rec.event("%s", a.rec.BootRefused)
			return false
		}
		a.rec.BootNetworkData = media.networkData
		a.rec.event("configured the network from the boot media's network_data")
	}
	a.rec.BootRefused = ""
	return true
}

func orDefault(kernel string) string {
	if kernel == "" {
		return "(conductor default)"
	}
	return kernel
}

// media finds this system's node (by its ports' MACs) and reads what its
// boot media would carry.
func (a *Agent) media(ctx context.Context) (*bootMedia, error) {
	m := &bootMedia{}
	for _, mac := range a.m.MACs() {
		var ps struct {
			Ports []struct {
				NodeUUID string `json:"node_uuid"`
			} `json:"ports"`
		}
		if err := a.getIronic(ctx, "/v1/ports?fields=node_uuid&address="+url.QueryEscape(strings.ToLower(mac)), &ps); err != nil {
			return m, err
		}
		if len(ps.Ports) > 0 {
			m.node = ps.Ports[0].NodeUUID
			break
		}
	}
	if m.node == "" {
		return m, nil
	}
	var n struct {
		NetworkData json.RawMessage `json:"network_data"`
		DriverInfo  map[string]any  `json:"driver_info"`
	}
	if err := a.getIronic(ctx, "/v1/nodes/"+url.PathEscape(m.node)+"?fields=network_data,driver_info", &n); err != nil {
		return m, err
	}
	m.networkData = n.NetworkData
	for _, k := range []string{"deploy_kernel", "deploy_iso"} {
		if s, _ := n.DriverInfo[k].(string); s != "" {
			m.kernel = s
			break
		}
	}
	return m, nil
}

// getIronic GETs path from Ironic's API at version 1.66 (network_data).
func (a *Agent) getIronic(ctx context.Context, path string, out any) error {
	_, err := a.callIronic(ctx, a.cfg.IronicURL, "1.66", http.MethodGet, path, nil, out)
	return err
}

// kernelArch reads the architecture of a deploy kernel (http(s) URL or
// file:// path) from its header: the arm64 Image magic "ARM\x64" at offset
// 56, the x86 boot protocol's "HdrS" at 0x202, or an ELF e_machine.
// An ISO's name decides for an ISO (aarch64 or arm64 in it).
func (a *Agent) kernelArch(ctx context.Context, loc string) (string, error) {
	if strings.HasSuffix(strings.ToLower(loc), ".iso") {
		l := strings.ToLower(loc)
		if strings.Contains(l, "aarch64") || strings.Contains(l, "arm64") {
			return "aarch64", nil
		}
		return "x86_64", nil
	}
	head, err := a.readHead(ctx, loc, 1024)
	if err != nil {
		return "", err
	}
	return KernelArch(head), nil
}

// KernelArch is the architecture a kernel image's first bytes name, "" when
// unknown.
func KernelArch(head []byte) string {
	switch {
	case len(head) >= 60 && bytes.Equal(head[56:60], []byte("ARM\x64")):
		return "aarch64"
	case len(head) >= 0x206 && bytes.Equal(head[0x202:0x206], []byte("HdrS")):
		return "x86_64"
	case len(head) >= 20 && bytes.Equal(head[:4], []byte("\x7fELF")):
		switch binary.LittleEndian.Uint16(head[18:20]) {
		case 0x3e:
			return "x86_64"
		case 0xb7:
			return "aarch64"
		}
	}
	return ""
}

// KernelFor returns a tiny fake kernel image of arch whose header
// KernelArch reads, for tests to serve.
func KernelFor(arch string) []byte {
	b := make([]byte, 1024)
	switch arch {
	case "aarch64":
		copy(b[56:], "ARM\x64")
	default:
		copy(b[0x202:], "HdrS")
	}
	return b
}

func (a *Agent) readHead(ctx context.Context, loc string, n int64) ([]byte, error) {
	if p, ok := strings.CutPrefix(loc, "file://"); ok {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, n))
	}
	return a.fetch(ctx, loc, n)
}
