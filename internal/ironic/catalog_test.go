package ironic

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/allocations"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// catCounter is an http.RoundTripper that records every request.
type catCounter struct {
	base http.RoundTripper
	mu   sync.Mutex
	reqs []string
}

func (c *catCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, r.Method+" "+r.URL.RequestURI())
	c.mu.Unlock()
	return c.base.RoundTrip(r)
}

func (c *catCounter) reset() {
	c.mu.Lock()
	c.reqs = nil
	c.mu.Unlock()
}

func (c *catCounter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reqs)
}

func (c *catCounter) paths() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// catCountingClient is a client of its own for the real Ironic (1.82) whose
// requests are counted.
func catCountingClient(t *testing.T) (*gophercloud.ServiceClient, *catCounter) {
	t.Helper()
	realIronic(t) // skips when Ironic does not answer
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: ironicEndpoint() + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.82"
	rc := &catCounter{base: http.DefaultTransport}
	sc.HTTPClient = http.Client{Transport: rc, Timeout: 30 * time.Second}
	return sc, rc
}

type catalogNodeSpec struct {
	labels        map[string]string
	properties    map[string]any
	macs          []string
	resourceClass string // default "baremetal"
	traits        []string
}

// createCatalogNode creates a fake-hardware node (in enroll) with ports
// directly through gophercloud; it is deleted (its allocation released
// first) when the test ends.
func createCatalogNode(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, spec catalogNodeSpec) *nodes.Node {
	t.Helper()
	body := nodeBody{
		"name":            uniqueName(t),
		"driver":          "fake-hardware",
		"resource_class":  "baremetal",
		"automated_clean": false,
	}
	if spec.resourceClass != "" {
		body["resource_class"] = spec.resourceClass
	}
	for k, v := range fakeInterfaces() {
		body[k] = v
	}
	if spec.labels != nil {
		// As Provisioner.Register stores them.
		body["extra"] = map[string]any{"labels": spec.labels}
	}
	if spec.properties != nil {
		body["properties"] = spec.properties
	}
	n, err := nodes.Create(ctx, sc, body).Extract()
	if err != nil {
		t.Fatalf("create node: %v", err)
	}
	t.Cleanup(func() { deleteCatalogNode(t, sc, n.UUID) })
	if len(spec.traits) > 0 {
		resp, err := sc.Put(ctx, sc.ServiceURL("nodes", n.UUID, "traits"), map[string]any{"traits": spec.traits}, nil,
			&gophercloud.RequestOpts{OkCodes: []int{204}})
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		if err != nil {
			t.Fatalf("set traits: %v", err)
		}
	}
	for _, mac := range spec.macs {
		pxe := true
		if _, err := ports.Create(ctx, sc, ports.CreateOpts{NodeUUID: n.UUID, Address: mac, PXEEnabled: &pxe}).Extract(); err != nil {
			t.Fatalf("create port %s: %v", mac, err)
		}
	}
	return n
}

func deleteCatalogNode(t *testing.T, sc *gophercloud.ServiceClient, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		n, err := nodes.Get(ctx, sc, id).Extract()
		if isNotFound(err) {
			return
		}
		if err == nil && n.AllocationUUID != "" {
			_ = allocations.Delete(ctx, sc, n.AllocationUUID).ExtractErr()
		}
		err = nodes.Delete(ctx, sc, id).ExtractErr()
		if err == nil || isNotFound(err) {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("cleanup: node %s not deleted", id)
}

// catWaitNode polls the node until cond holds.
func catWaitNode(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, id, what string, cond func(*nodes.Node) bool) *nodes.Node {
	t.Helper()
	for {
		n, err := nodes.Get(ctx, sc, id).Extract()
		if err == nil && cond(n) {
			return n
		}
		select {
		case <-ctx.Done():
			if n != nil {
				t.Fatalf("node %s: waiting for %s: %v (provision state %q, power %q, last error %q)",
					id, what, ctx.Err(), n.ProvisionState, n.PowerState, n.LastError)
			}
			t.Fatalf("node %s: waiting for %s: %v (%v)", id, what, ctx.Err(), err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// catMakeAvailable moves enroll nodes to available with a known power state
// (allocations only consider nodes whose power_state is known).
func catMakeAvailable(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, ids ...string) {
	t.Helper()
	verb := func(id string, target nodes.TargetProvisionState) {
		for {
			err := nodes.ChangeProvisionState(ctx, sc, id, nodes.ProvisionStateOpts{Target: target}).ExtractErr()
			if err == nil {
				return
			}
			if !isConflict(err) || ctx.Err() != nil {
				t.Fatalf("node %s: %s: %v", id, target, err)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	for _, id := range ids {
		verb(id, nodes.TargetManage)
	}
	for _, id := range ids {
		catWaitNode(t, ctx, sc, id, "manageable", func(n *nodes.Node) bool {
			return n.ProvisionState == psManageable && n.TargetProvisionState == ""
		})
		verb(id, nodes.TargetProvide)
	}
	for _, id := range ids {
		catWaitNode(t, ctx, sc, id, "available", func(n *nodes.Node) bool {
			return n.ProvisionState == psAvailable && n.TargetProvisionState == ""
		})
		for {
			err := nodes.ChangePowerState(ctx, sc, id, nodes.PowerStateOpts{Target: nodes.PowerOff}).ExtractErr()
			if err == nil {
				break
			}
			if !isConflict(err) || ctx.Err() != nil {
				t.Fatalf("node %s: power off: %v", id, err)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	for _, id := range ids {
		catWaitNode(t, ctx, sc, id, "power off", func(n *nodes.Node) bool {
			return n.PowerState == powerOff && n.TargetPowerState == ""
		})
	}
}

func TestCatalogHosts(t *testing.T) {
	sc, _ := realIronic(t)
	ctx := catCtx(t, 90*time.Second)

	macA1, macA2, macB := randomMAC(), randomMAC(), randomMAC()
	a := createCatalogNode(t, ctx, sc, catalogNodeSpec{
		labels:     map[string]string{"rack": "r1", "role": "worker"},
		properties: map[string]any{"cpus": 32, "memory_mb": 131072, "local_gb": 893, "cpu_arch": "x86_64"},
		macs:       []string{macA1, macA2},
		traits:     []string{"CUSTOM_GPU"},
	})
	b := createCatalogNode(t, ctx, sc, catalogNodeSpec{macs: []string{macB}})
	bare := createCatalogNode(t, ctx, sc, catalogNodeSpec{labels: map[string]string{}})
	catMakeAvailable(t, ctx, sc, b.UUID)
	// An image in instance_info comes back as DeployedImage.
	if _, err := nodes.Update(ctx, sc, b.UUID, nodes.UpdateOpts{
		nodes.UpdateOperation{Op: nodes.AddOp, Path: "/instance_info/image_source", Value: "http://images.example/ubuntu.qcow2"},
		nodes.UpdateOperation{Op: nodes.AddOp, Path: "/instance_info/image_checksum", Value: "0123abcd"},
	}).Extract(); err != nil {
		t.Fatal(err)
	}

	csc, count := catCountingClient(t)
	c := NewCatalog(csc)
	count.reset()
	hosts, err := c.Hosts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Hosts: %d hosts in %d requests: %v", len(hosts), count.total(), count.paths())
	if count.total() != 2 {
		t.Errorf("Hosts made %d requests, want 2 (one node list, one port list): %v", count.total(), count.paths())
	}
	byID := map[string]lifecycle.HostSummary{}
	for _, h := range hosts {
		byID[h.ID] = h
	}

	ha, ok := byID[a.UUID]
	if !ok {
		t.Fatalf("node %s not listed", a.UUID)
	}
	if !ha.Exists || ha.Name != a.Name || ha.State != lifecycle.StateRegistering || ha.ProvisionState != psEnroll ||
		ha.ResourceClass != "baremetal" || !slices.Equal(ha.Traits, []string{"CUSTOM_GPU"}) || ha.AllocationID != "" ||
		ha.DeployedImage != nil {
		t.Errorf("host a = %+v", ha.Observation)
	}
	if len(ha.Labels) != 2 || ha.Labels["rack"] != "r1" || ha.Labels["role"] != "worker" {
		t.Errorf("host a labels = %v", ha.Labels)
	}
	hw := ha.Hardware
	if hw == nil || hw.CPUCount != 32 || hw.CPUArch != "x86_64" || hw.RAMMebibytes != 131072 ||
		len(hw.Storage) != 1 || hw.Storage[0].SizeBytes != 893<<30 {
		t.Fatalf("host a hardware = %+v", hw)
	}
	var macs []string
	for _, n := range hw.NICs {
		if !n.PXE {
			t.Errorf("nic %s: pxe false", n.MAC)
		}
		macs = append(macs, n.MAC)
	}
	slices.Sort(macs)
	want := []string{macA1, macA2}
	slices.Sort(want)
	if !slices.Equal(macs, want) {
		t.Errorf("host a macs = %v, want %v", macs, want)
	}

	hb := byID[b.UUID]
	if hb.State != lifecycle.StateAvailable || hb.PoweredOn == nil || *hb.PoweredOn || hb.Labels != nil {
		t.Errorf("host b = %+v", hb.Observation)
	}
	if hb.DeployedImage == nil || hb.DeployedImage.URL != "http://images.example/ubuntu.qcow2" || hb.DeployedImage.Checksum != "0123abcd" {
		t.Errorf("host b deployed image = %+v", hb.DeployedImage)
	}
	if hb.Hardware == nil || len(hb.Hardware.NICs) != 1 || hb.Hardware.NICs[0].MAC != macB || hb.Hardware.CPUCount != 0 {
		t.Errorf("host b hardware = %+v", hb.Hardware)
	}
	if hbare := byID[bare.UUID]; hbare.Hardware != nil || len(hbare.Labels) != 0 || hbare.PoweredOn != nil {
		t.Errorf("bare host = %+v, hardware %+v", hbare.Observation, hbare.Hardware)
	}

	// Host by name and by UUID gives the same summary (node + its ports).
	count.reset()
	one, err := c.Host(ctx, a.Name)
	if err != nil {
		t.Fatal(err)
	}
	if count.total() != 2 {
		t.Errorf("Host made %d requests: %v", count.total(), count.paths())
	}
	if one.ID != a.UUID || one.Labels["role"] != "worker" || one.Hardware == nil || len(one.Hardware.NICs) != 2 {
		t.Errorf("Host(%s) = %+v, hardware %+v", a.Name, one.Observation, one.Hardware)
	}

	// Small pages: every page is followed.
	count.reset()
	paged, err := NewCatalog(csc, WithListPageLimit(1)).Hosts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, h := range paged {
		if h.ID == a.UUID || h.ID == b.UUID || h.ID == bare.UUID {
			found++
			if h.ID == a.UUID && (h.Hardware == nil || len(h.Hardware.NICs) != 2) {
				t.Errorf("paged host a hardware = %+v", h.Hardware)
			}
		}
	}
	if found != 3 || count.total() <= len(paged) {
		t.Errorf("paged: found %d of 3 in %d hosts with %d requests", found, len(paged), count.total())
	}
}
