package ironic

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestBootModeCapabilities(t *testing.T) {
	for mode, want := range map[lifecycle.BootMode]string{
		"":                               "boot_mode:uefi",
		lifecycle.BootModeUEFI:           "boot_mode:uefi",
		lifecycle.BootModeUEFISecureBoot: "boot_mode:uefi,secure_boot:true",
		lifecycle.BootModeLegacy:         "boot_mode:bios",
	} {
		if got := BootModeCapabilities(mode); got != want {
			t.Errorf("%q: %q, want %q", mode, got, want)
		}
	}
}

func TestRootDeviceHintMap(t *testing.T) {
	if RootDeviceHintMap(nil) != nil || RootDeviceHintMap(&lifecycle.RootDeviceHints{}) != nil {
		t.Fatal("empty hints must give nil")
	}
	no := false
	got := RootDeviceHintMap(&lifecycle.RootDeviceHints{
		DeviceName: "/dev/sda", HCTL: "0:0:0:0", Model: "SSD", Vendor: "ACME", SerialNumber: "S1",
		MinSizeGigabytes: 100, WWN: "0x1", WWNWithExtension: "0x1ext", WWNVendorExtension: "0xv", Rotational: &no,
	})
	want := map[string]any{
		"name": "s== /dev/sda", "hctl": "s== 0:0:0:0", "model": "<in> SSD", "vendor": "<in> ACME",
		"serial": "s== S1", "size": ">= 100", "wwn": "s== 0x1", "wwn_with_extension": "s== 0x1ext",
		"wwn_vendor_extension": "s== 0xv", "rotational": "false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got := RootDeviceHintMap(&lifecycle.RootDeviceHints{DeviceName: "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"}); got["by_path"] != "s== /dev/disk/by-path/pci-0000:00:1f.2-ata-1" {
		t.Errorf("by-path: %v", got)
	}
}

func TestDesiredInstanceInfo(t *testing.T) {
	spec := &lifecycle.HostSpec{
		BootMode: lifecycle.BootModeUEFISecureBoot,
		Image:    &lifecycle.Image{URL: "http://i/img.qcow2", Checksum: "abc", Format: "qcow2"},
	}
	info, iface := DesiredInstanceInfo(spec)
	if iface != "" || info["image_source"] != "http://i/img.qcow2" || info["image_checksum"] != "abc" ||
		info["image_disk_format"] != "qcow2" || info["image_os_hash_algo"] != nil || info["boot_iso"] != nil {
		t.Errorf("direct: %v %q", info, iface)
	}
	if caps := info["capabilities"].(map[string]any); caps["secure_boot"] != "true" {
		t.Errorf("capabilities %v", caps)
	}

	spec.Image.ChecksumType = "sha256"
	info, _ = DesiredInstanceInfo(spec)
	if info["image_checksum"] != nil || info["image_os_hash_algo"] != "sha256" || info["image_os_hash_value"] != "abc" {
		t.Errorf("sha256: %v", info)
	}

	spec.Image = &lifecycle.Image{URL: "http://i/live.iso", Format: "live-iso"}
	info, iface = DesiredInstanceInfo(spec)
	if iface != "ramdisk" || info["boot_iso"] != "http://i/live.iso" || info["image_source"] != nil {
		t.Errorf("live-iso: %v %q", info, iface)
	}
	if ConfigDrive(spec) != nil {
		t.Error("live ISO must get no config drive")
	}

	spec.Image = nil
	spec.CustomDeploy = "install_coreos"
	info, iface = DesiredInstanceInfo(spec)
	if iface != "custom-agent" || info["image_source"] != nil {
		t.Errorf("custom deploy: %v %q", info, iface)
	}
	steps := customDeploySteps(spec)
	if len(steps) != 1 || steps[0].Step != "install_coreos" || steps[0].Priority != 80 || steps[0].Interface != "deploy" {
		t.Errorf("deploy steps %+v", steps)
	}
}

func TestInstanceInfoPatch(t *testing.T) {
	spec := &lifecycle.HostSpec{
		Image:           &lifecycle.Image{URL: "http://i/a", Checksum: "c", Format: "raw"},
		RootDeviceHints: &lifecycle.RootDeviceHints{DeviceName: "/dev/vda"},
		InstanceUUID:    "u-1",
	}
	node := &nodes.Node{DeployInterface: "ramdisk", InstanceInfo: map[string]any{"boot_iso": "x", "capabilities": map[string]any{}}}
	patch := instanceInfoPatch(node, spec)
	got := map[string]string{}
	for _, op := range patch {
		u := op.(nodes.UpdateOperation)
		got[u.Path] = string(u.Op)
	}
	want := map[string]string{
		"/instance_info/boot_iso": "remove", "/instance_info/image_source": "add", "/instance_info/image_checksum": "add",
		"/instance_info/image_disk_format": "add", "/instance_info/root_device": "add",
		"/instance_uuid": "replace", "/deploy_interface": "remove",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("patch %v\nwant %v", got, want)
	}
	// Applied: nothing left to patch.
	node = &nodes.Node{DeployInterface: "direct", InstanceUUID: "u-1", InstanceInfo: map[string]any{
		"image_source": "http://i/a", "image_checksum": "c", "image_disk_format": "raw",
		"root_device": map[string]any{"name": "s== /dev/vda"}, "capabilities": map[string]any{},
	}}
	if p := instanceInfoPatch(node, spec); len(p) != 0 {
		t.Errorf("second patch not empty: %+v", p)
	}
	if !sameImage(node.InstanceInfo, spec.Image) {
		t.Error("sameImage false")
	}
	if img := deployedImage(node.InstanceInfo); img == nil || img.URL != "http://i/a" || img.Checksum != "c" {
		t.Errorf("deployedImage %+v", img)
	}
}

func TestConfigDrive(t *testing.T) {
	spec := &lifecycle.HostSpec{
		Name: "host-1", InstanceUUID: "u-1", UserData: "#cloud-config",
		MetaData:    map[string]any{"local-hostname": "custom", "extra": "x"},
		NetworkData: map[string]any{"links": []any{}},
		Image:       &lifecycle.Image{URL: "http://i/a"},
	}
	cd := ConfigDrive(spec)
	raw, _ := json.Marshal(cd)
	var got map[string]any
	_ = json.Unmarshal(raw, &got)
	md := got["meta_data"].(map[string]any)
	want := map[string]any{"uuid": "u-1", "metal3-name": "host-1", "local-hostname": "custom", "local_hostname": "host-1", "name": "host-1", "extra": "x"}
	if !reflect.DeepEqual(md, want) || got["user_data"] != "#cloud-config" || got["network_data"] == nil {
		t.Errorf("config drive %s", raw)
	}
	spec.UserData = ""
	raw, _ = json.Marshal(ConfigDrive(spec))
	got = nil
	if _ = json.Unmarshal(raw, &got); got["user_data"] != nil {
		t.Errorf("empty user data sent: %s", raw)
	}
}

func TestBootModeOf(t *testing.T) {
	for _, mode := range []lifecycle.BootMode{lifecycle.BootModeUEFI, lifecycle.BootModeUEFISecureBoot, lifecycle.BootModeLegacy} {
		if got := BootModeOf(BootModeCapabilities(mode)); got != mode {
			t.Errorf("round trip of %s gave %q", mode, got)
		}
	}
	if got := BootModeOf("cpu_vt:true,boot_mode:uefi,secure_boot:false"); got != lifecycle.BootModeUEFI {
		t.Errorf("uefi among other capabilities: %q", got)
	}
	if got := BootModeOf(""); got != "" {
		t.Errorf("no capabilities: %q", got)
	}
}

// An oci:// image's pull secret goes to instance_info.image_pull_secret;
// Ironic shows it masked, so it is written again on every deploy and never
// read back; an image without one removes a left-over secret.
func TestInstanceInfoPullSecret(t *testing.T) {
	ops := func(patch nodes.UpdateOpts) map[string]nodes.UpdateOperation {
		got := map[string]nodes.UpdateOperation{}
		for _, op := range patch {
			u := op.(nodes.UpdateOperation)
			got[u.Path] = u
		}
		return got
	}
	oci := &lifecycle.HostSpec{Image: &lifecycle.Image{URL: "oci://reg.example/demo/disk:1", PullSecret: "cm9ib3Q6cHc="}}
	masked := &nodes.Node{DeployInterface: "direct", InstanceInfo: map[string]any{
		"image_source": "oci://reg.example/demo/disk:1", "image_pull_secret": "******", "capabilities": map[string]any{}}}
	op, ok := ops(instanceInfoPatch(masked, oci))["/instance_info/image_pull_secret"]
	if !ok || op.Op != nodes.AddOp || op.Value != "cm9ib3Q6cHc=" {
		t.Fatalf("pull secret op %+v (present %v), want add of the secret", op, ok)
	}
	if img := deployedImage(masked.InstanceInfo); img == nil || img.PullSecret != "" {
		t.Errorf("deployedImage read a secret back: %+v", img)
	}
	plain := &lifecycle.HostSpec{Image: &lifecycle.Image{URL: "http://i/a", Checksum: "c"}}
	if op := ops(instanceInfoPatch(masked, plain))["/instance_info/image_pull_secret"]; op.Op != nodes.RemoveOp {
		t.Errorf("an image without a secret left the old one: %+v", op)
	}
}

// sameImage compares oci:// images by reference and digest: a tag
// reference without a digest is the same tag's, a digest-pinned one the
// same digest's (whatever tag it carries), with no checksum needed; a
// checksum, when the image has one, is still compared. Other images keep
// comparing URL and checksum.
func TestSameImageOCI(t *testing.T) {
	const digest = "sha256:8b1a9953c4611296a827abf8c47804d7e6c49c6b3e4e6b8f1f1f4b5d4c3b2a10"
	const other = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct {
		name, deployed string
		info           map[string]any // more of instance_info
		img            lifecycle.Image
		same           bool
	}{
		{"same tag", "oci://reg.example/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:1"}, true},
		{"other tag", "oci://reg.example/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:2"}, false},
		{"no tag and a tag", "oci://reg.example/demo/disk", nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:latest"}, false},
		{"same tag, registry with a port", "oci://reg.example:5000/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example:5000/demo/disk:1"}, true},
		{"other repository", "oci://reg.example/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example/demo/other:1"}, false},
		{"registry in upper case", "oci://REG.example/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:1"}, true},
		{"same digest", "oci://reg.example/demo/disk@" + digest, nil, lifecycle.Image{URL: "oci://reg.example/demo/disk@" + digest}, true},
		{"same digest, tag beside it", "oci://reg.example/demo/disk:1@" + digest, nil, lifecycle.Image{URL: "oci://reg.example/demo/disk@" + digest}, true},
		{"other digest", "oci://reg.example/demo/disk@" + digest, nil, lifecycle.Image{URL: "oci://reg.example/demo/disk@" + other}, false},
		{"digest and tag only", "oci://reg.example/demo/disk:1@" + digest, nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:1"}, false},
		{"checksum Ironic recorded", "oci://reg.example/demo/disk:1",
			map[string]any{"image_os_hash_algo": "sha256", "image_os_hash_value": "abc"}, lifecycle.Image{URL: "oci://reg.example/demo/disk:1"}, true},
		{"same checksum", "oci://reg.example/demo/disk:1", map[string]any{"image_checksum": "abc"},
			lifecycle.Image{URL: "oci://reg.example/demo/disk:1", Checksum: "abc"}, true},
		{"other checksum", "oci://reg.example/demo/disk:1", map[string]any{"image_checksum": "abc"},
			lifecycle.Image{URL: "oci://reg.example/demo/disk:1", Checksum: "def"}, false},
		{"http image and an oci one", "http://reg.example/demo/disk:1", nil, lifecycle.Image{URL: "oci://reg.example/demo/disk:1"}, false},
		{"http image, same URL and checksum", "http://i/a", map[string]any{"image_checksum": "c"}, lifecycle.Image{URL: "http://i/a", Checksum: "c"}, true},
		{"http image, other URL", "http://i/a", map[string]any{"image_checksum": "c"}, lifecycle.Image{URL: "http://i/b", Checksum: "c"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ii := map[string]any{"image_source": tc.deployed}
			for k, v := range tc.info {
				ii[k] = v
			}
			if got := sameImage(ii, &tc.img); got != tc.same {
				t.Errorf("sameImage(%v, %s) = %v, want %v", ii, tc.img.URL, got, tc.same)
			}
		})
	}
}
