package lifecycle_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// A host with an architecture and no deploy image of its own boots the
// provider's default of its architecture; its own deploy image, or an
// architecture without default, leaves it as it is.
func TestBootSpecWithDefaults(t *testing.T) {
	arm := lifecycle.DeployImage{Kernel: "http://img/aarch64/vmlinuz", Ramdisk: "http://img/aarch64/initramfs"}
	defaults := lifecycle.DefaultDeployImages{"aarch64": arm}
	own := &lifecycle.DeployImage{ISO: "http://img/own.iso"}
	for _, c := range []struct {
		name string
		in   lifecycle.BootSpec
		want *lifecycle.DeployImage
	}{
		{"default of its architecture", lifecycle.BootSpec{Architecture: "aarch64"}, &arm},
		{"its own wins", lifecycle.BootSpec{Architecture: "aarch64", DeployImage: own}, own},
		{"no default for x86_64", lifecycle.BootSpec{Architecture: "x86_64"}, nil},
		{"no architecture", lifecycle.BootSpec{}, nil},
	} {
		got := c.in.WithDefaults(defaults)
		if !reflect.DeepEqual(got.DeployImage, c.want) {
			t.Errorf("%s: deploy image %+v, want %+v", c.name, got.DeployImage, c.want)
		}
	}
}

// The node's network_data equals the document it was written from once
// completed as Ironic stores it; another document differs.
func TestSameNetworkData(t *testing.T) {
	doc := `{"links":[{"id":"enp1s0","type":"phy"}],"networks":[{"id":"p","type":"ipv4","link":"enp1s0"}]}`
	node := map[string]any{
		"links":    []any{map[string]any{"id": "enp1s0", "type": "phy"}},
		"networks": []any{map[string]any{"id": "p", "type": "ipv4", "link": "enp1s0", "network_id": "p"}},
		"services": []any{},
	}
	if !lifecycle.SameNetworkData(doc, node) {
		t.Error("the completed document differs from the node's")
	}
	node["services"] = []any{map[string]any{"type": "dns", "address": "192.0.2.53"}}
	if lifecycle.SameNetworkData(doc, node) {
		t.Error("a node with a DNS service the document has not is the same")
	}
	if lifecycle.SameNetworkData("not json", node) {
		t.Error("an invalid document is the same")
	}
}

func TestDeployImageOf(t *testing.T) {
	if d := lifecycle.DeployImageOf(map[string]string{"ipmi_address": "x"}); d != nil {
		t.Errorf("driver_info without deploy keys reads %+v", d)
	}
	d := lifecycle.DeployImageOf(map[string]string{"deploy_iso": "http://i.iso", "kernel_append_params": "%default%"})
	if d == nil || d.ISO != "http://i.iso" || d.KernelParams != "%default%" || d.Kernel != "" {
		t.Errorf("read %+v", d)
	}
}

// A deployment without network_data gets the host's preprovisioning
// network data (the node's network_data) in its config drive (BMO); its
// own network_data wins.
func TestDeployDefaultsToPreprovisioningNetworkData(t *testing.T) {
	pre := map[string]any{"links": []any{}, "networks": []any{map[string]any{"id": "pre"}}, "services": []any{}}
	own := map[string]any{"links": []any{}, "networks": []any{map[string]any{"id": "own"}}, "services": []any{}}
	for _, c := range []struct {
		name      string
		node, dep map[string]any
		want      map[string]any
	}{
		{"none given", pre, nil, pre},
		{"its own", pre, own, own},
		{"neither", nil, nil, nil},
	} {
		n := lifecycletest.New()
		n.Boot.NetworkData = c.node
		spec := deploySpec()
		spec.NetworkData = c.dep
		if _, err := lifecycletest.NewMachine(n).Deploy(context.Background(), lifecycle.DeployRequest{Ref: "node-1", Spec: spec}); err != nil {
			t.Fatal(err)
		}
		if got := n.Deployed()[0].Spec.NetworkData; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: deployed with network_data %v, want %v", c.name, got, c.want)
		}
	}
}

// A deploy image's driver_info names every key (unset ones empty, so they
// are removed); architectures compare by their usual names.
func TestDeployImageAndArchitecture(t *testing.T) {
	var none *lifecycle.DeployImage
	if di := none.DriverInfo(); len(di) != 5 || di["deploy_kernel"] != "" || di["kernel_append_params"] != "" {
		t.Errorf("nil deploy image: %v", di)
	}
	d := &lifecycle.DeployImage{ISO: "http://img/ipa.iso", KernelParams: "console=ttyS0"}
	if di := d.DriverInfo(); di["deploy_iso"] != d.ISO || di["kernel_append_params"] != d.KernelParams || di["deploy_ramdisk"] != "" {
		t.Errorf("driver_info %v", di)
	}
	for _, c := range []struct{ in, want string }{
		{"amd64", "x86_64"}, {"X86-64", "x86_64"}, {"x64", "x86_64"}, {"arm", "aarch64"}, {"ARM64", "aarch64"},
		{"arm-a64", "aarch64"}, {"ppc64le", "ppc64le"},
	} {
		if got := lifecycle.NormArch(c.in); got != c.want {
			t.Errorf("NormArch(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ want, found, msg string }{
		{"x86_64", "x86_64", ""}, {"", "aarch64", ""}, {"x86_64", "", ""},
		{"x86_64", "aarch64", "architecture mismatch: the host is configured as x86_64 (architecture), but inspection found aarch64"},
	} {
		if got := lifecycle.ArchMismatch(c.want, c.found); !strings.HasPrefix(got, c.msg) || (c.msg == "") != (got == "") {
			t.Errorf("ArchMismatch(%q, %q) = %q", c.want, c.found, got)
		}
	}
	if !(&lifecycle.Image{Format: "live-iso"}).IsLiveISO() || (&lifecycle.Image{Format: "qcow2"}).IsLiveISO() || (*lifecycle.Image)(nil).IsLiveISO() {
		t.Error("IsLiveISO")
	}
}

// At plan, a detached host is refused; one that cannot be read is left to
// the apply, and one that does not exist yet may go ahead.
func TestMachineCheckAttached(t *testing.T) {
	n := lifecycletest.New()
	m := lifecycletest.NewMachine(n)
	if err := m.CheckAttached(context.Background(), "host-a", "deploy on it"); err != nil {
		t.Errorf("attached: %v", err)
	}
	n.Maintenance = true
	if d := lifecycle.AsDetached(m.CheckAttached(context.Background(), "host-a", "deploy on it")); d == nil || d.Forgotten || d.ID != "node-1" {
		t.Errorf("detached: %+v", d)
	}
	if err := m.CheckAttached(context.Background(), "host-b", "deploy on it"); err != nil {
		t.Errorf("not created yet: %v", err)
	}
	n.ObserveErr = errors.New("ironic down")
	if err := m.CheckAttached(context.Background(), "host-a", "deploy on it"); err != nil {
		t.Errorf("unreadable at plan: %v", err)
	}
	if d := lifecycle.AsDetached(lifecycle.ForgetDetached(lifecycle.Observation{Exists: true, ID: "node-9", Maintenance: true,
		MaintenanceReason: lifecycle.DetachReason}, "undeploy it")); d == nil || d.Host != "node-9" {
		t.Errorf("a host without a name is named by its node: %+v", d)
	}
}
