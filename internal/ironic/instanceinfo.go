package ironic

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// customDeployPriority is the priority of the custom deploy step (BMO).
const customDeployPriority = 80

// BootModeCapabilities is properties.capabilities for a boot mode
// (BMO capabilities.go): UEFI is the default.
func BootModeCapabilities(mode lifecycle.BootMode) string {
	switch mode {
	case lifecycle.BootModeUEFISecureBoot:
		return "boot_mode:uefi,secure_boot:true"
	case lifecycle.BootModeLegacy:
		return "boot_mode:bios"
	default:
		return "boot_mode:uefi"
	}
}

// BootModeOf reads the boot mode back from a node's capabilities string
// ("boot_mode:uefi,secure_boot:true"); "" when it names none.
func BootModeOf(capabilities string) lifecycle.BootMode {
	caps := map[string]string{}
	for _, kv := range strings.Split(capabilities, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), ":"); ok {
			caps[k] = v
		}
	}
	switch {
	case caps["boot_mode"] == "bios":
		return lifecycle.BootModeLegacy
	case caps["boot_mode"] == "uefi" && caps["secure_boot"] == "true":
		return lifecycle.BootModeUEFISecureBoot
	case caps["boot_mode"] == "uefi":
		return lifecycle.BootModeUEFI
	}
	return ""
}

// instanceCapabilities is instance_info.capabilities (secure boot only).
func instanceCapabilities(mode lifecycle.BootMode) map[string]any {
	if mode == lifecycle.BootModeUEFISecureBoot {
		return map[string]any{"secure_boot": "true"}
	}
	return map[string]any{}
}

// RootDeviceHintMap converts hints to Ironic's root_device syntax
// (BMO devicehints.go). It returns nil when no hint is set.
func RootDeviceHintMap(h *lifecycle.RootDeviceHints) map[string]any {
	if h.IsZero() {
		return nil
	}
	m := map[string]any{}
	if h.DeviceName != "" {
		if strings.HasPrefix(h.DeviceName, "/dev/disk/by-path/") {
			m["by_path"] = "s== " + h.DeviceName
		} else {
			m["name"] = "s== " + h.DeviceName
		}
	}
	// Each string hint with its operator: exact, or contained for the
	// names a disk reports in several spellings.
	for _, hint := range []struct{ key, op, value string }{
		{"hctl", "s== ", h.HCTL},
		{"model", "<in> ", h.Model},
		{"vendor", "<in> ", h.Vendor},
		{"serial", "s== ", h.SerialNumber},
		{"wwn", "s== ", h.WWN},
		{"wwn_with_extension", "s== ", h.WWNWithExtension},
		{"wwn_vendor_extension", "s== ", h.WWNVendorExtension},
	} {
		if hint.value != "" {
			m[hint.key] = hint.op + hint.value
		}
	}
	if h.MinSizeGigabytes != 0 {
		m["size"] = fmt.Sprintf(">= %d", h.MinSizeGigabytes)
	}
	if h.Rotational != nil {
		if *h.Rotational {
			m["rotational"] = "true"
		} else {
			m["rotational"] = "false"
		}
	}
	return m
}

// DesiredInstanceInfo is what instance_info must hold to deploy the host
// (BMO IR ironicProvisioner.setLiveIsoUpdateOptsForNode, setDirectDeployUpdateOptsForNode, setCustomDeployUpdateOptsForNode, getInstanceUpdateOpts): the keys mapped to nil must be absent. deployInterface
// is the top-level deploy_interface the image needs ("" = leave as is unless
// it is ramdisk/custom-agent, which must be reset to the driver default).
func DesiredInstanceInfo(spec *lifecycle.HostSpec) (info map[string]any, deployInterface string) {
	info = map[string]any{
		"capabilities": instanceCapabilities(spec.BootMode),
	}
	if hints := RootDeviceHintMap(spec.RootDeviceHints); hints != nil {
		info["root_device"] = hints
	} else {
		info["root_device"] = nil
	}
	img := spec.Image
	clearImage := func() {
		for _, k := range []string{"boot_iso", "image_source", "image_disk_format", "image_checksum", "image_os_hash_algo", "image_os_hash_value", "image_pull_secret"} {
			info[k] = nil
		}
	}
	switch {
	case spec.CustomDeploy != "":
		deployInterface = "custom-agent"
		clearImage()
		if img != nil && img.URL != "" {
			info["image_source"] = img.URL
			setPullSecret(info, img)
			if img.Format != "" {
				info["image_disk_format"] = img.Format
			}
			if img.Checksum != "" {
				algo, sum := checksumAlgo(img)
				if algo == "" {
					info["image_checksum"] = sum
				} else {
					info["image_os_hash_algo"] = algo
					info["image_os_hash_value"] = sum
				}
			}
		}
	case img.IsLiveISO():
		deployInterface = "ramdisk"
		clearImage()
		info["boot_iso"] = img.URL
	case img != nil:
		clearImage()
		info["image_source"] = img.URL
		setPullSecret(info, img)
		if img.Format != "" {
			info["image_disk_format"] = img.Format
		}
		algo, sum := checksumAlgo(img)
		switch {
		case sum == "":
		case algo == "":
			info["image_checksum"] = sum
		default:
			info["image_os_hash_algo"] = algo
			info["image_os_hash_value"] = sum
		}
	}
	return info, deployInterface
}

// setPullSecret adds instance_info.image_pull_secret (Ironic 2025.1+), the
// credentials Ironic's conductor uses to read an oci:// image's registry.
// Ironic masks it ("******") when showing the node, so a deploy always
// writes it again.
func setPullSecret(info map[string]any, img *lifecycle.Image) {
	if img.PullSecret != "" {
		info["image_pull_secret"] = img.PullSecret
	}
}

// checksumAlgo returns ("", sum) for an untyped (auto) checksum, else the
// algorithm name Ironic expects in image_os_hash_algo.
func checksumAlgo(img *lifecycle.Image) (algo, sum string) {
	switch strings.ToLower(img.ChecksumType) {
	case "", "auto":
		return "", img.Checksum
	default:
		return strings.ToLower(img.ChecksumType), img.Checksum
	}
}

// sameImage reports whether instance_info already describes img
// (BMO ironicHasSameImage). An oci:// image is compared by reference and
// digest (lifecycle.SameOCIImage), and by checksum only when it has one.
func sameImage(ii map[string]any, img *lifecycle.Image) bool {
	if img == nil {
		return false
	}
	if img.IsLiveISO() {
		return ii["boot_iso"] == img.URL
	}
	algo, sum := checksumAlgo(img)
	src, _ := ii["image_source"].(string)
	if lifecycle.IsOCI(img.URL) {
		// An oci:// image is the reference's: the registry holds its
		// checksum, so without one in the spec nothing else is compared.
		if !lifecycle.SameOCIImage(src, img.URL) {
			return false
		}
		if sum == "" {
			return true
		}
	} else if src != img.URL {
		return false
	}
	if algo == "" {
		return ii["image_checksum"] == sum && ii["image_os_hash_algo"] == nil && ii["image_os_hash_value"] == nil
	}
	return ii["image_checksum"] == nil && ii["image_os_hash_algo"] == algo && ii["image_os_hash_value"] == sum
}

// deployedImage reads the image back from instance_info (nil when none).
func deployedImage(ii map[string]any) *lifecycle.Image {
	str := func(k string) string { s, _ := ii[k].(string); return s }
	if iso := str("boot_iso"); iso != "" {
		return &lifecycle.Image{URL: iso, Format: "live-iso"}
	}
	src := str("image_source")
	if src == "" {
		return nil
	}
	img := &lifecycle.Image{URL: src, Format: str("image_disk_format")}
	if sum := str("image_checksum"); sum != "" {
		img.Checksum = sum
	} else if v := str("image_os_hash_value"); v != "" {
		img.Checksum = v
		img.ChecksumType = str("image_os_hash_algo")
	}
	return img
}

// instanceInfoPatch returns the JSON patch that makes the node's
// instance_info, instance_uuid and deploy_interface match the spec.
func instanceInfoPatch(node *nodes.Node, spec *lifecycle.HostSpec) nodes.UpdateOpts {
	want, deployIface := DesiredInstanceInfo(spec)
	patch := mapPatch("/instance_info/", node.InstanceInfo, want)
	if spec.InstanceUUID != "" && node.InstanceUUID != spec.InstanceUUID {
		patch = append(patch, nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/instance_uuid", Value: spec.InstanceUUID})
	}
	switch {
	case deployIface != "" && node.DeployInterface != deployIface:
		patch = append(patch, nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/deploy_interface", Value: deployIface})
	case deployIface == "" && (node.DeployInterface == "ramdisk" || node.DeployInterface == "custom-agent"):
		// Back to the driver's default deploy interface.
		patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/deploy_interface"})
	}
	return patch
}

// ConfigDrive builds the config drive (BMO IR ironicProvisioner.getConfigDrive): user_data,
// network_data and meta_data with BMO's defaults, overridden by
// Spec.MetaData. A live ISO gets none (nil).
func ConfigDrive(spec *lifecycle.HostSpec) *nodes.ConfigDrive {
	if spec.Image.IsLiveISO() {
		return nil
	}
	cd := &nodes.ConfigDrive{
		MetaData: map[string]any{
			"uuid":           spec.InstanceUUID,
			"metal3-name":    spec.Name,
			"local-hostname": spec.Name,
			"local_hostname": spec.Name,
			"name":           spec.Name,
		},
	}
	for k, v := range spec.MetaData {
		cd.MetaData[k] = v
	}
	if spec.UserData != "" {
		cd.UserData = spec.UserData
	}
	if len(spec.NetworkData) > 0 {
		cd.NetworkData = spec.NetworkData
	}
	return cd
}

// customDeploySteps is the deploy step of a custom deploy (priority 80).
func customDeploySteps(spec *lifecycle.HostSpec) []nodes.DeployStep {
	if spec.CustomDeploy == "" {
		return nil
	}
	return []nodes.DeployStep{{
		Interface: nodes.InterfaceDeploy,
		Step:      spec.CustomDeploy,
		Args:      map[string]any{},
		Priority:  customDeployPriority,
	}}
}

// mapPatch is the JSON patch, in key order, that makes the node's map at
// path (e.g. "/instance_info/") hold want: a key wanted nil is removed
// when the node has it, any other is added when it differs.
func mapPatch(path string, cur, want map[string]any) nodes.UpdateOpts {
	var patch nodes.UpdateOpts
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v := want[k]
		c, has := cur[k]
		switch {
		case v == nil && has:
			patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: path + k})
		case v != nil && (!has || !jsonEqual(c, v)):
			patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: path + k, Value: v})
		}
	}
	return patch
}

// jsonEqual compares two JSON-ish values after a round trip, so that
// map[string]string and map[string]any with the same content are equal.
func jsonEqual(a, b any) bool {
	na, errA := normalizeJSON(a)
	nb, errB := normalizeJSON(b)
	if errA != nil || errB != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}

func normalizeJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}
