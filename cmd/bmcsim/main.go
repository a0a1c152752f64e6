// Command bmcsim runs the Redfish BMC simulator (internal/bmc/sim) as a
// standalone process, for tests that drive a separate Ironic.
//
//	bmcsim -listen 127.0.0.1:8000 -systems 3 -username admin -password password
//
// It prints one line per system with its Redfish URL, then serves until
// SIGINT or SIGTERM. Faults can be injected at /sim/systems/{id}/faults.
//
// With -ironic URL every system runs a simulated Ironic Python Agent
// whenever it powers on (package sim/agent): it looks its node up in that
// Ironic, heartbeats, and runs the clean and deploy commands Ironic sends;
// /sim/systems/{id}/agent shows what it received and
// /sim/systems/{id}/agent/faults injects agent faults. With -inspector URL
// it also posts its inventory to ironic-inspector at every boot.
//
// With -vm-dir DIR every system is a qemu machine in DIR/<id> instead
// (package sim/vm), which boots whatever Ironic gives it (the real agent's
// ISO by virtual media, then the deployed disk): it reaches the host only
// at 10.0.2.100 on the -vm-forward ports (Ironic's API and boot HTTP
// server), and system i's agent API answers on 127.0.0.1 at
// -vm-agent-port-base + i. Its serial console is DIR/<id>/console.log.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/cmdmain"
)

func main() {
	cmdmain.Run("bmcsim", func(ctx context.Context) error { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bmcsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8000", "address of the shared listener")
	systems := fs.Int("systems", 1, "number of simulated systems (sys-0 .. sys-N-1)")
	username := fs.String("username", "admin", "BMC username of every system")
	password := fs.String("password", "password", "BMC password of every system")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a self-signed certificate")
	portBase := fs.Int("per-system-port-base", 0, "if set, system i also listens on port base+i")
	verbose := fs.Bool("v", false, "log every request")
	offset := fs.Int("profile-offset", 0, "system i gets hardware profile offset+i (distinct MACs for simulators sharing one Ironic)")
	ironicURL := fs.String("ironic", "", "Ironic API URL: systems run a simulated agent that talks to it")
	inspectorURL := fs.String("inspector", "", "ironic-inspector API URL the agents post their inventory to at boot")
	bootURL := fs.String("boot-url", "", "boot HTTP server (Ironic's http_url) a PXE boot chains boot.ipxe from; without it a PXE boot starts the agent as any power-on")
	dialect := fs.String("dialect", "", "hardware and answers shaped like a vendor's BMC: ilo, idrac or supermicro (default: the DMTF mockups')")
	maxHeartbeat := fs.Duration("agent-max-heartbeat", 0, "cap on the agents' heartbeat interval (0: the interval Ironic asks for)")
	vmDir := fs.String("vm-dir", "", "every system is a qemu machine in DIR/<id> (the real agent boots in it); not with -ironic")
	vmForward := fs.String("vm-forward", "", "comma-separated loopback ports the machines reach at 10.0.2.100 (Ironic's API and boot HTTP server)")
	vmAgentPortBase := fs.Int("vm-agent-port-base", 0, "system i's agent API answers on 127.0.0.1 at this port + i")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *systems < 1 {
		return fmt.Errorf("-systems must be at least 1")
	}
	opts := sim.Options{Addr: *listen, TLS: *useTLS, ProfileOffset: *offset, Dialect: *dialect}
	if *portBase > 0 {
		opts.PerSystemListeners = true
		opts.PerSystemPortBase = *portBase
	}
	if *vmDir != "" {
		if *ironicURL != "" {
			return fmt.Errorf("-vm-dir and -ironic exclude each other: a machine runs the real agent")
		}
		vm, err := vmOptions(*vmDir, *vmForward, *vmAgentPortBase, *systems)
		if err != nil {
			return err
		}
		opts.VM = vm
	}
	if *ironicURL != "" {
		opts.Agent = &agent.Config{IronicURL: *ironicURL, InspectorURL: *inspectorURL, BootURL: *bootURL, MaxHeartbeatInterval: *maxHeartbeat}
	}
	if *verbose {
		logger := log.New(stderr, "", log.LstdFlags)
		opts.Logf = logger.Printf
	}
	srv, err := sim.Start(opts, *systems, *username, *password)
	if err != nil {
		return err
	}
	defer func() { _ = srv.Close() }() // stopping anyway; nothing to report

	printURLs(stdout, srv)
	<-ctx.Done()
	fmt.Fprintln(stdout, "bmcsim: stopping")
	return nil
}

func printURLs(w io.Writer, srv *sim.Server) {
	fmt.Fprintf(w, "bmcsim: serving on %s (admin API at %s/sim/systems)\n", srv.URL(), srv.URL())
	for _, id := range srv.SystemIDs() {
		u := srv.SystemURL(id)
		scheme := "redfish+http"
		if strings.HasPrefix(u, "https://") {
			scheme = "redfish+https"
		}
		_, rest, _ := strings.Cut(u, "://")
		fmt.Fprintf(w, "%s %s://%s\n", id, scheme, rest)
	}
}

// vmOptions is -vm-dir, -vm-forward and -vm-agent-port-base as sim.VMOptions.
func vmOptions(dir, forward string, agentPortBase, systems int) (*sim.VMOptions, error) {
	o := &sim.VMOptions{Dir: dir}
	for _, f := range strings.Split(forward, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.Atoi(f)
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("-vm-forward: %q is not a port", f)
		}
		o.Forwards = append(o.Forwards, p)
	}
	if agentPortBase > 0 {
		o.AgentPorts = map[string]int{}
		for i := range systems {
			o.AgentPorts[fmt.Sprintf("sys-%d", i)] = agentPortBase + i
		}
	}
	return o, nil
}
