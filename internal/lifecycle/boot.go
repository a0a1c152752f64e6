package lifecycle

import "fmt"

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
