// Package agent simulates the Ironic Python Agent (IPA) of one simulated
// system: what the real agent does after the ramdisk boots. It looks its
// node up in Ironic by MAC (GET /v1/lookup), keeps the agent token Ironic
// hands out, heartbeats (POST /v1/heartbeat/{node}) at the interval Ironic
// asks for, and serves the command API Ironic's conductor calls
// (/v1/commands/): clean and deploy steps, write_image (a real HTTP download
// whose checksum is checked with the requested algorithm, and a config drive
// that is decoded and recorded), install_bootloader, power off, sync and log
// collection. With an inspector URL it also posts an inventory in IPA's
// format to ironic-inspector, as an inspection ramdisk does (or, with
// InspectIronic, to Ironic's /v1/continue_inspection). A machine Ironic does
// not know posts it all the same, without a node: an Ironic with
// auto-discovery enrolls it from that inventory.
//
// The protocol is the one Ironic 21.4 speaks (ironic/drivers/modules/
// agent_client.py, agent_base.py, agent.py and api/controllers/v1/
// ramdisk.py). Every power-on starts a fresh agent: a new lookup, a new
// token and an empty command list, as a rebooted ramdisk has.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Version is the agent version reported in heartbeats (IPA of the 2023.1
// series, which Ironic 21.4 belongs to).
const Version = "9.4.1"

// apiVersion is the Ironic API microversion the agent asks for: agent
// tokens (1.62) and agent_verify_ca (1.68).
const apiVersion = "1.68"

// Machine is the simulated system an agent runs on.
type Machine interface {
	// MACs are the system's NIC MAC addresses (lookup sends them all).
	MACs() []string
	// PowerOff turns the system off, as `poweroff` in the ramdisk does.
	PowerOff()
	// Reboot restarts the system.
	Reboot()
	// SetPendingBIOS stores BIOS settings that apply on the next boot,
	// through the system's own BMC.
	SetPendingBIOS(settings map[string]any) error
	// Inventory is the hardware as the agent would find it.
	Inventory() Inventory
}

// Config configures the agents of a simulator.
type Config struct {
	// IronicURL is Ironic's API, e.g. http://127.0.0.1:6385.
	IronicURL string
	// InspectorURL, if set, is ironic-inspector's API: every boot first
	// posts the inventory to {InspectorURL}/v1/continue.
	InspectorURL string
	// InspectIronic, without InspectorURL: every boot first posts the
	// inventory to Ironic's own {IronicURL}/v1/continue_inspection
	// (built-in inspection with inspect interface "agent", Ironic 2024.1+,
	// API 1.84), as IPA does when its ipa-inspection-callback-url is
	// Ironic's.
	InspectIronic bool
	// ListenHost is the address the command API listens on; default
	// 127.0.0.1 with a free port per agent.
	ListenHost string
	// LookupInterval is the pause between lookups that find nothing
	// (default 2 s); after LookupTimeout (default 60 s) without a node the
	// system is taken to have booted from disk and the agent goes quiet.
	LookupInterval time.Duration
	LookupTimeout  time.Duration
	// MaxHeartbeatInterval caps the interval Ironic asks for (0: no cap).
	MaxHeartbeatInterval time.Duration
	// CustomDeploySteps are in-band deploy steps (interface deploy,
	// priority 0) this agent offers for custom deploys; default
	// ["custom_deploy"].
	CustomDeploySteps []string
	// DHCPLess marks the simulated network as having no DHCP: a ramdisk
	// reaches Ironic only when its boot media carries the node's
	// network_data (see bootPath).
	DHCPLess bool
	// BootURL is the boot HTTP server the simulated network's DHCP points
	// iPXE at (Ironic's [deploy] http_url): a power-on with a PXE boot
	// override chains {BootURL}/boot.ipxe and the per-MAC config Ironic
	// wrote, and boots the ramdisk it names (see netboot.go). Without it
	// a network boot starts the agent as any power-on does.
	BootURL string
	// HTTPClient is used for Ironic, inspector and image downloads.
	HTTPClient *http.Client
	// Logf receives one line per event.
	Logf func(format string, args ...any)
}

// Agent is the agent of one system. Its command API listens for as long as
// the Agent exists (so its callback URL is stable), but answers only while
// a boot runs; when the system is off it drops connections, as a powered
// off host does.
type Agent struct {
	cfg  Config
	name string
	m    Machine
	http *http.Client

	ln  net.Listener
	srv *http.Server
	url string

	mu      sync.Mutex
	boot    *boot
	bootSeq int
	// instanceNext: the next power-on boots the image written by this
	// agent from disk instead of the ramdisk (set when a deploy powered
	// the system off at its end).
	instanceNext bool
	rec          Record
	faults       Faults
}

// boot is the state of one run of the ramdisk.
type boot struct {
	seq      int
	ctx      context.Context
	cancel   context.CancelFunc
	token    string
	node     string
	timeout  float64 // heartbeat_timeout from lookup, seconds
	commands []*Command
	running  bool
	kick     chan struct{}
	wroteOS  bool
	// network: this boot came from the network (a PXE boot override);
	// api is the Ironic API the ramdisk talks to (Config.IronicURL, or
	// the ipa-api-url its kernel command line gave); inspect: post the
	// inventory to inspector first.
	network bool
	api     string
	inspect bool
}

// New starts the command API of system name's agent; it runs no boot until
// PowerOn.
func New(cfg Config, name string, m Machine) (*Agent, error) {
	if cfg.LookupInterval <= 0 {
		cfg.LookupInterval = 2 * time.Second
	}
	if cfg.LookupTimeout <= 0 {
		cfg.LookupTimeout = time.Minute
	}
	if cfg.ListenHost == "" {
		cfg.ListenHost = "127.0.0.1"
	}
	if cfg.CustomDeploySteps == nil {
		cfg.CustomDeploySteps = []string{"custom_deploy"}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.ListenHost, "0"))
	if err != nil {
		return nil, fmt.Errorf("agent %s: listen: %w", name, err)
	}
	a := &Agent{cfg: cfg, name: name, m: m, http: hc, ln: ln, url: "http://" + ln.Addr().String()}
	a.rec.CallbackURL = a.url
	a.srv = &http.Server{Handler: a.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// InspectionURL is where the inventory is posted: ironic-inspector's
// {InspectorURL}/v1/continue, else with InspectIronic Ironic's
// {IronicURL}/v1/continue_inspection, else "" (no inspection).
func (c Config) InspectionURL() string {
	switch {
	case c.InspectorURL != "":
		return strings.TrimRight(c.InspectorURL, "/") + "/v1/continue"
	case c.InspectIronic && c.IronicURL != "":
		return strings.TrimRight(c.IronicURL, "/") + "/v1/continue_inspection"
	}
	return ""
}

// URL is the agent's callback URL.
func (a *Agent) URL() string { return a.url }

// Close stops the agent and its listener.
func (a *Agent) Close() error {
	a.PowerOff()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := a.srv.Shutdown(ctx); err != nil {
		return a.srv.Close()
	}
	return nil
}

func (a *Agent) logf(format string, args ...any) {
	if a.cfg.Logf != nil {
		a.cfg.Logf("agent %s: "+format, append([]any{a.name}, args...)...)
	}
}

// PowerOn is called when the system boots: it starts a fresh agent (unless
// this boot is the deployed instance booting from disk).
func (a *Agent) PowerOn() { a.powerOn(false) }

func (a *Agent) powerOn(network bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
	network = network && a.cfg.BootURL != ""
	if a.instanceNext && !network {
		a.instanceNext = false
		a.rec.InstanceBoots++
		a.rec.event("booted the deployed instance from disk (no agent)")
		return
	}
	if a.cfg.IronicURL == "" {
		return
	}
	a.bootSeq++
	ctx, cancel := context.WithCancel(context.Background())
	b := &boot{seq: a.bootSeq, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1),
		network: network, api: a.cfg.IronicURL, inspect: a.cfg.InspectionURL() != ""}
	a.boot = b
	a.rec.Boots++
	a.rec.NodeUUID = ""
	a.rec.Commands = nil
	a.rec.event("ramdisk booted (boot %d)", b.seq)
	go a.run(b)
}

// PowerOff is called when the system loses power: the running agent, its
// token and its commands are gone.
func (a *Agent) PowerOff() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
}

func (a *Agent) stopLocked() {
	if a.boot != nil {
		a.boot.cancel()
		a.rec.event("ramdisk stopped (boot %d)", a.boot.seq)
		a.boot = nil
	}
}

// current returns the running boot b if it is still current.
func (a *Agent) current(b *boot) bool {
	return a.boot == b && b.ctx.Err() == nil
}

// run is one boot: inspection post (if configured), lookup, heartbeats.
func (a *Agent) run(b *boot) {
	if b.network && !a.netbootPath(b) || !b.network && !a.bootPath(b) {
		return
	}
	if b.inspect {
		if err := a.inspect(b.ctx); err != nil {
			a.mu.Lock()
			a.rec.event("inspection: %v", err)
			a.mu.Unlock()
		}
	}
	if b.api == "" {
		return // an inspection-only ramdisk (netboot.go)
	}
	deadline := time.Now().Add(a.cfg.LookupTimeout)
	for {
		err := a.lookup(b)
		if err == nil {
			break
		}
		if b.ctx.Err() != nil {
			return
		}
		if time.Now().After(deadline) {
			a.mu.Lock()
			if a.current(b) {
				a.rec.event("lookup found no node for %v; booting from disk", a.m.MACs())
			}
			a.mu.Unlock()
			return
		}
		if !sleep(b.ctx, a.cfg.LookupInterval) {
			return
		}
	}
	for {
		a.mu.Lock()
		stopped := a.faults.HeartbeatStopped
		a.mu.Unlock()
		if !stopped {
			if err := a.heartbeat(b); err != nil {
				a.logf("heartbeat: %v", err)
			}
		}
		t := time.NewTimer(a.heartbeatInterval(b))
		select {
		case <-b.ctx.Done():
			t.Stop()
			return
		case <-b.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

// heartbeatInterval is IPA's: heartbeat_timeout times a jitter between 0.3
// and 0.6, capped by MaxHeartbeatInterval.
func (a *Agent) heartbeatInterval(b *boot) time.Duration {
	timeout := b.timeout
	if timeout <= 0 {
		timeout = 300
	}
	var r [1]byte
	_, _ = rand.Read(r[:])
	d := time.Duration(timeout * (0.3 + 0.3*float64(r[0])/255) * float64(time.Second))
	if a.cfg.MaxHeartbeatInterval > 0 && d > a.cfg.MaxHeartbeatInterval {
		d = a.cfg.MaxHeartbeatInterval
	}
	return d
}

// forceHeartbeat makes the boot heartbeat now, as IPA does when a command
// finishes.
func (b *boot) forceHeartbeat() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

var errNotFound = errors.New("not found")
