package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
)

// BootSpec is what a host's agent ramdisk boots with, for sites off the
// rig's happy network (issue 25): BMO's preprovisioningNetworkData, the
// architecture BMO sets before inspection, and the per-architecture deploy
// kernel/ramdisk/ISO (BMO's PreprovisioningImage).
type BootSpec struct {
	// NetworkData is network_data.json (a JSON object) for the ramdisk on
	// networks without DHCP: the node's network_data (Ironic API 1.66+),
	// which virtual media carries to the agent. "" leaves the node's alone.
	NetworkData string
	// Architecture (x86_64, aarch64, ...) is the node's properties.cpu_arch
	// before inspection; inspection finding another one is an error.
	Architecture string
	// DeployImage, when set, is the node's own deploy image.
	DeployImage *DeployImage
}

// DeployImage is the agent ramdisk a node boots: kernel and ramdisk, or an
// ISO; the UEFI bootloader (ESP image) and the kernel parameters. They are
// the node's driver_info deploy_kernel, deploy_ramdisk, deploy_iso,
// bootloader and kernel_append_params.
type DeployImage struct {
	Kernel       string
	Ramdisk      string
	ISO          string
	Bootloader   string
	KernelParams string
}

// Complete reports whether d can boot: kernel and ramdisk, or an ISO (what
// deploy_image's validator asks of a configuration).
func (d *DeployImage) Complete() bool {
	return d != nil && (d.ISO != "" || (d.Kernel != "" && d.Ramdisk != ""))
}

// DriverInfo is the driver_info the deploy image sets; keys of unset parts
// map to "" (removed).
func (d *DeployImage) DriverInfo() map[string]string {
	if d == nil {
		d = &DeployImage{}
	}
	return map[string]string{
		"deploy_kernel": d.Kernel, "deploy_ramdisk": d.Ramdisk, "deploy_iso": d.ISO,
		"bootloader": d.Bootloader, "kernel_append_params": d.KernelParams,
	}
}

// ArchMismatch is the error message when inspection found another
// architecture than the host's, "" when they agree (or either is unknown).
func ArchMismatch(want, inspected string) string {
	if want == "" || inspected == "" || want == inspected {
		return ""
	}
	return fmt.Sprintf("architecture mismatch: the host is configured as %s (architecture), but inspection found %s: "+
		"correct architecture, and give the host a deploy_image of its architecture", want, inspected)
}

// DefaultDeployImages are the provider's deploy images per architecture
// (the provider's deploy_images): BMO picks the PreprovisioningImage of
// the host's architecture the same way.
type DefaultDeployImages map[string]DeployImage

// WithDefaults is b with the default deploy image of its architecture when
// it names no deploy image of its own (b unchanged otherwise).
func (b BootSpec) WithDefaults(defaults DefaultDeployImages) BootSpec {
	if b.DeployImage != nil || b.Architecture == "" {
		return b
	}
	if d, ok := defaults[b.Architecture]; ok {
		b.DeployImage = &d
	}
	return b
}

// BootObservation is what a node shows of its boot settings, read back for
// drift: its network_data (nil when empty), its cpu_arch named as the
// host's architecture is ("arm" reads as aarch64), and its deploy image's
// driver_info keys (nil when the node has none of them).
type BootObservation struct {
	NetworkData  map[string]any
	Architecture string
	DeployImage  *DeployImage
}

// NormArch names an architecture as the host's architecture does (x86_64,
// aarch64), whatever spelling Ironic or inspection used (Ironic 21.4's
// redfish inspection writes "arm" for ARM-A64).
func NormArch(a string) string {
	switch strings.ToLower(a) {
	case "x86_64", "amd64", "x86-64", "x64":
		return "x86_64"
	case "aarch64", "arm64", "arm", "arm-a64":
		return "aarch64"
	}
	return a
}

// DeployImageOf reads a deploy image back from driver_info (nil when it
// has none of its keys).
func DeployImageOf(info map[string]string) *DeployImage {
	d := DeployImage{Kernel: info["deploy_kernel"], Ramdisk: info["deploy_ramdisk"], ISO: info["deploy_iso"],
		Bootloader: info["bootloader"], KernelParams: info["kernel_append_params"]}
	if d == (DeployImage{}) {
		return nil
	}
	return &d
}

// CompleteNetworkData completes network_data.json as Ironic's schema wants
// it for a node's network_data (baremetal_network_data renders what config
// drives take): links, networks and services present, and every network
// with a network_id (its id when it has none). doc is changed in place.
func CompleteNetworkData(doc map[string]any) {
	for _, k := range []string{"links", "networks", "services"} {
		if doc[k] == nil {
			doc[k] = []any{}
		}
	}
	networks, _ := doc["networks"].([]any)
	for _, n := range networks {
		if m, ok := n.(map[string]any); ok && m["network_id"] == nil {
			m["network_id"] = m["id"]
		}
	}
}

// SameNetworkData reports whether the node's network_data is what the
// JSON document want gives it (once completed as Ironic stores it).
func SameNetworkData(want string, node map[string]any) bool {
	var doc map[string]any
	if err := json.Unmarshal([]byte(want), &doc); err != nil {
		return false
	}
	CompleteNetworkData(doc)
	a, errA := json.Marshal(doc)
	b, errB := json.Marshal(node)
	return errA == nil && errB == nil && string(a) == string(b)
}
