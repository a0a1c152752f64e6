package ironic

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/testenv"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Node tests wait on Ironic, not on CPU: run up to 4 at once unless
	// -parallel was given.
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}

// ironicEndpoint is BAREMETAL_ENDPOINT or the local test rig's Ironic.
func ironicEndpoint() string { return testenv.IronicEndpoint() }

var (
	rigOnce  sync.Once
	rigErr   error
	rigSC    *gophercloud.ServiceClient
	rigWatch *Watcher
	// rigMax is the rig's maximum microversion: the tests pin 1.82 (the
	// oldest supported) and tell the provisioner what the server has, as
	// the provider does.
	rigMax string
)

// rigProvisioner is a provisioner on the rig's client and watcher, told
// the server's maximum microversion as the provider's is.
func rigProvisioner(sc *gophercloud.ServiceClient, w *Watcher, opts ...Option) *Provisioner {
	return NewProvisioner(sc, w, append([]Option{WithServerMaxMicroversion(rigMax)}, opts...)...)
}

// realIronic returns a client for the real Ironic and the one shared
// watcher. It skips the test unless BAREMETAL_IRONIC_TESTS=1 asks for the
// real-Ironic tests, and fails it when they were asked for and Ironic does
// not answer.
func realIronic(t *testing.T) (*gophercloud.ServiceClient, *Watcher) {
	t.Helper()
	ep := testenv.RequireIronic(t)
	rigOnce.Do(func() {
		if rigErr = testenv.WaitForIronic(ep, time.Minute); rigErr != nil {
			return
		}
		// Through clients.Connect, as the provider: its transport retries
		// busy nodes and clears the pass memo on writes. The microversion is
		// negotiated, as the provider's is: pinned below 1.83, node lists
		// hide the nodes Ironic 2025.1 makes children of themselves on a
		// PATCH (parent_node), and a deploy's wait lost its node.
		conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: ep})
		if err != nil {
			rigErr = err
			return
		}
		sc := conn.Client
		rigSC = sc
		rigMax = conn.MaxMicroversion
		rigWatch = NewWatcher(sc, WatcherOptions{})
	})
	if rigErr != nil {
		t.Fatalf("%s=1 but no Ironic answers at %s (%v): start one with scripts/ironic.sh start, or set BAREMETAL_ENDPOINT", testenv.IronicVar, ep, rigErr)
	}
	return rigSC, rigWatch
}

var nameChars = regexp.MustCompile(`[^a-zA-Z0-9-._~]+`)

// uniqueName is a valid, unique Ironic node name for the test.
func uniqueName(t *testing.T) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	n := strings.ToLower(nameChars.ReplaceAllString(t.Name(), "-"))
	if len(n) > 50 {
		n = n[:50]
	}
	return n + "-" + hex.EncodeToString(b[:])
}

// randomMAC is a locally administered unicast MAC.
func randomMAC() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	b[0] = (b[0] | 0x02) & 0xfe
	parts := make([]string, 6)
	for i, x := range b {
		parts[i] = hex.EncodeToString([]byte{x})
	}
	return strings.Join(parts, ":")
}

// fakeInterfaces are all-fake interfaces for driver fake-hardware.
func fakeInterfaces() map[string]string {
	return map[string]string{
		"boot_interface":       "fake",
		"deploy_interface":     "fake",
		"inspect_interface":    "fake",
		"management_interface": "fake",
		"power_interface":      "fake",
		"bios_interface":       "fake",
		"raid_interface":       "fake",
		"vendor_interface":     "fake",
		"network_interface":    "noop",
	}
}

// fakeHost is a host on a fake-hardware node.
func fakeHost(t *testing.T) *lifecycle.Host {
	return &lifecycle.Host{Spec: lifecycle.HostSpec{
		Name: uniqueName(t),
		BMC: lifecycle.BMCAccess{
			Address:            "fake://",
			Driver:             "fake-hardware",
			Interfaces:         fakeInterfaces(),
			DriverInfo:         map[string]any{},
			CredentialsVersion: "v1",
		},
		BootMode:              lifecycle.BootModeUEFI,
		AutomatedCleaningMode: lifecycle.CleaningMetadata,
		Labels:                map[string]string{"rack": "r1"},
		Traits:                []string{"CUSTOM_TEST"},
		ResourceClass:         "baremetal",
	}}
}

// cleanupNode removes whatever node carries the host's id or name, waiting
// (through the watcher) for a running inspection or cleaning to settle.
func cleanupNode(t *testing.T, sc *gophercloud.ServiceClient, h *lifecycle.Host) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		_, w := realIronic(t)
		p := rigProvisioner(sc, w, WithJitter(0, nil))
		for ctx.Err() == nil {
			res, err := p.Delete(ctx, h)
			if err == nil && !res.Dirty {
				return
			}
			id := h.Status.ID
			if id == "" {
				id = h.Spec.Name
			}
			_ = w.Wait(ctx, id, 2*time.Second)
		}
		t.Logf("cleanup: node of %s not deleted", h.Spec.Name)
	})
}

// drive calls f until its result is no longer Dirty, waiting on the
// watcher between calls. Transient errors are retried a few times. It
// returns the final result (which may carry an ErrorMessage).
func drive(t *testing.T, ctx context.Context, w *Watcher, h *lifecycle.Host, what string, f func() (lifecycle.Result, error)) lifecycle.Result {
	t.Helper()
	deadline := time.Now().Add(150 * time.Second)
	transient := 0
	for calls := 0; ; calls++ {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not done after %d calls", what, calls)
		}
		res, err := f()
		if err != nil {
			transient++
			if transient > 5 {
				t.Fatalf("%s: %v (verb %q, provision state %q)", what, err, res.Verb, res.ProvisionState)
			}
			t.Logf("%s: transient error: %v", what, err)
			if werr := w.Wait(ctx, h.Status.ID, time.Second); werr != nil {
				t.Fatalf("%s: %v", what, werr)
			}
			continue
		}
		if !res.Dirty {
			t.Logf("%s: done after %d calls (verb %q, provision state %q, error %q)", what, calls+1, res.Verb, res.ProvisionState, res.ErrorMessage)
			return res
		}
		if werr := w.Wait(ctx, h.Status.ID, res.RequeueAfter); werr != nil {
			t.Fatalf("%s: %v", what, werr)
		}
	}
}

// register drives Register to completion and records the id.
func register(t *testing.T, ctx context.Context, p *Provisioner, w *Watcher, h *lifecycle.Host, credentialsChanged bool) lifecycle.Result {
	t.Helper()
	return drive(t, ctx, w, h, "register", func() (lifecycle.Result, error) {
		res, id, err := p.Register(ctx, h, credentialsChanged, false)
		if id != "" {
			h.Status.ID = id
		}
		credentialsChanged = false // pushed once
		return res, err
	})
}

func mustNoError(t *testing.T, what string, res lifecycle.Result) {
	t.Helper()
	if res.ErrorMessage != "" {
		t.Fatalf("%s failed: %s (verb %q, provision state %q)", what, res.ErrorMessage, res.Verb, res.ProvisionState)
	}
}

func getNode(t *testing.T, ctx context.Context, sc *gophercloud.ServiceClient, id string) *nodes.Node {
	t.Helper()
	n, err := nodes.Get(ctx, sc, id).Extract()
	if err != nil {
		t.Fatalf("get node %s: %v", id, err)
	}
	return n
}
