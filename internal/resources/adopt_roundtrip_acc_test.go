package resources_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// rigAdoptRig is the test rig's Ironic: nodes made through its API and
// moved to their state with its own verbs; writes counted in its log.
type rigAdoptRig struct {
	sc  *gophercloud.ServiceClient
	log *acctest.LogMark
}

func (r *rigAdoptRig) endpoint() string { return acctest.Endpoint() }

func (r *rigAdoptRig) create(t *testing.T, prefix string, n adoptNode) string {
	t.Helper()
	ctx := context.Background()
	opts := nodes.CreateOpts{Name: prefix + n.name, Driver: "fake-hardware", ResourceClass: n.class, DriverInfo: n.driverInfo}
	if n.labels != nil {
		opts.Extra = map[string]any{"labels": n.labels}
	}
	node, err := nodes.Create(ctx, r.sc, opts).Extract()
	if err != nil {
		t.Fatalf("create node %s: %v", opts.Name, err)
	}
	t.Cleanup(func() {
		_ = nodes.SetMaintenance(ctx, r.sc, node.UUID, nodes.MaintenanceOpts{Reason: "test cleanup"}).ExtractErr()
		if err := nodes.Delete(ctx, r.sc, node.UUID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("delete node %s: %v", opts.Name, err)
		}
	})
	if n.port != "" {
		if _, err := ports.Create(ctx, r.sc, ports.CreateOpts{NodeUUID: node.UUID, Address: n.port}).Extract(); err != nil {
			t.Fatalf("port of %s: %v", opts.Name, err)
		}
	}
	steps := map[string][]nodes.TargetProvisionState{
		"manageable": {nodes.TargetManage},
		"available":  {nodes.TargetManage, nodes.TargetProvide},
		"active":     {nodes.TargetManage, nodes.TargetProvide, nodes.TargetActive},
	}[n.state]
	ends := map[nodes.TargetProvisionState]string{nodes.TargetManage: "manageable", nodes.TargetProvide: "available", nodes.TargetActive: "active"}
	for _, s := range steps {
		if s == nodes.TargetActive {
			acctest.UpdateNode(t, node.UUID, "image of "+opts.Name,
				nodes.UpdateOperation{Op: nodes.AddOp, Path: "/instance_info/image_source", Value: "http://images.example/os.qcow2"},
				nodes.UpdateOperation{Op: nodes.AddOp, Path: "/instance_info/image_checksum", Value: "0123456789abcdef0123456789abcdef"})
		}
		if err := nodes.ChangeProvisionState(ctx, r.sc, node.UUID, nodes.ProvisionStateOpts{Target: s}).ExtractErr(); err != nil {
			t.Fatalf("%s %s: %v", s, opts.Name, err)
		}
		r.await(t, node.UUID, ends[s])
	}
	return node.UUID
}

// await polls the node until it is in provision state want (2 minutes at
// most: fake-hardware verbs end in seconds).
func (r *rigAdoptRig) await(t *testing.T, uuid, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		got := r.state(t, uuid)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s is %q after 2 minutes, want %q", uuid, got, want)
		}
		<-tick.C
	}
}

func (r *rigAdoptRig) state(t *testing.T, uuid string) string {
	t.Helper()
	n, err := nodes.Get(context.Background(), r.sc, uuid).Extract()
	if err != nil {
		t.Fatalf("read node %s: %v", uuid, err)
	}
	return n.ProvisionState
}

func (r *rigAdoptRig) mark(t *testing.T) { r.log = acctest.MarkIronicLog(t) }

func (r *rigAdoptRig) writes(t *testing.T, uuids []string) []string {
	t.Helper()
	w, err := r.log.WritesTo(uuids...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestAccAdoptionRoundTrip is the round trip on the test rig's Ironic,
// through terraform query with Terraform 1.14: nodes in enroll,
// manageable, available and active, with and without a resource class,
// driver_info, labels and a port. The adopting apply's writes are counted
// in Ironic's log.
func TestAccAdoptionRoundTrip(t *testing.T) {
	acctest.Terraform114(t)
	adoptionRoundTrip(t, &rigAdoptRig{sc: acctest.Ironic(t)}, os.Getenv("BAREMETAL_TF114_PATH"))
}
