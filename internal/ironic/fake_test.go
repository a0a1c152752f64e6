package ironic

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// onFake returns a Provisioner talking to a fake Ironic through the real
// client stack (clients.Connect: microversion negotiation, the retrying
// transport, memo invalidation), with fast retries and no jitter.
func onFake(t *testing.T, opts ...Option) (*Provisioner, *ironictest.Server) {
	t.Helper()
	sc, srv := fakeClient(t)
	return NewProvisioner(sc, nil, append([]Option{WithJitter(0, nil)}, opts...)...), srv
}

// watchedFake is onFake with a Watcher in front: the hosts of a pass
// share node lists.
func watchedFake(t *testing.T) (*Provisioner, *Watcher, *ironictest.Server) {
	t.Helper()
	sc, srv := fakeClient(t)
	w := NewWatcher(sc, WatcherOptions{MinInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond})
	return NewProvisioner(sc, w, WithJitter(0, nil)), w, srv
}

// fakeClient is a client of a new fake Ironic through the real client
// stack, with fast retries; the fake's request log starts after it
// connected.
func fakeClient(t *testing.T) (*gophercloud.ServiceClient, *ironictest.Server) {
	t.Helper()
	srv := ironictest.New(t)
	conn, err := clients.Connect(context.Background(), clients.Config{
		Endpoint: srv.URL, MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("connect to the fake Ironic: %v", err)
	}
	srv.ResetRequests()
	return conn.Client, srv
}

// fakeSpecHost is a host on the fake's fake-hardware driver.
func fakeSpecHost(name string) *lifecycle.Host {
	return &lifecycle.Host{Spec: lifecycle.HostSpec{
		Name: name,
		BMC: lifecycle.BMCAccess{
			Address: "fake://", Driver: "fake-hardware", Interfaces: fakeInterfaces(),
			DriverInfo: map[string]any{"password": "s3cret"}, CredentialsVersion: "v1",
		},
		BootMode:              lifecycle.BootModeUEFI,
		AutomatedCleaningMode: lifecycle.CleaningMetadata,
		Traits:                []string{"CUSTOM_TEST"},
		ResourceClass:         "baremetal",
	}}
}

// osImage is the image the fake tests deploy.
func osImage() *lifecycle.Image {
	return &lifecycle.Image{URL: "http://images/os.qcow2", Checksum: "abc", ChecksumType: "sha256", Format: "qcow2"}
}

// imageHostIn is host h1, to deploy osImage, on a new fake Ironic where
// its node (whose uuid it returns) is already in state.
func imageHostIn(t *testing.T, state string) (*Provisioner, *ironictest.Server, *lifecycle.Host, string) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	h.Spec.Image = osImage()
	return p, srv, h, nodeIn(srv, h, state, "")
}

// until calls f until its result is no longer Dirty (the fake settles a
// node when it is read, so no waiting is needed) and returns the last one.
func until(t *testing.T, what string, f func() (lifecycle.Result, error)) lifecycle.Result {
	t.Helper()
	for range 20 {
		res, err := f()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !res.Dirty {
			return res
		}
	}
	t.Fatalf("%s: still dirty after 20 calls", what)
	return lifecycle.Result{}
}

// registered registers h on the fake and returns it in manageable.
func registered(t *testing.T, p *Provisioner, h *lifecycle.Host) {
	t.Helper()
	ctx := context.Background()
	changed := h.Status.ID == "" // credentials are pushed once, as the state machine does
	res := until(t, "register", func() (lifecycle.Result, error) {
		res, id, err := p.Register(ctx, h, changed, false)
		changed = false
		if id != "" {
			h.Status.ID = id
		}
		return res, err
	})
	if res.ErrorMessage != "" {
		t.Fatalf("register: %s", res.ErrorMessage)
	}
}

// nodeIn adds a node for h to the fake in the given provision state.
func nodeIn(srv *ironictest.Server, h *lifecycle.Host, state, lastError string) string {
	id := srv.AddNode(nodesNode(h.Spec.Name, state, lastError))
	h.Status.ID = id
	return id
}
