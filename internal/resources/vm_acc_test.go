package resources_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/inventory"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// The end-to-end lane (make test-vm): a host that is a qemu machine behind
// the Redfish simulator, running the real Ironic Python Agent (Debian 13's
// 10.2.0, scripts/ipa.sh) on the rig of IRONIC_VM=1 (scripts/ironic.sh),
// and a real OS image (scripts/osimage.sh). The machine reaches only
// loopback ports, through qemu's user network (restrict=on).

// vmLane is what the lane's rig and builds provide, from the environment
// scripts/test.sh vm sets.
type vmLane struct {
	kernel, ramdisk, image, imageSHA256 string
	ironicPort, httpPort                int
}

func vmLaneEnv(t *testing.T) vmLane {
	t.Helper()
	if os.Getenv("BAREMETAL_TEST_VM") != "1" {
		t.Skip("end-to-end test with the real agent in a VM: run make test-vm (BAREMETAL_TEST_VM=1 comes from scripts/ironic.sh env on a rig started with IRONIC_VM=1)")
	}
	acctest.PreCheck(t)
	l := vmLane{kernel: os.Getenv("IPA_KERNEL"), ramdisk: os.Getenv("IPA_RAMDISK"), image: os.Getenv("OS_IMAGE"), imageSHA256: os.Getenv("OS_IMAGE_SHA256")}
	for name, v := range map[string]string{"IPA_KERNEL": l.kernel, "IPA_RAMDISK": l.ramdisk, "OS_IMAGE": l.image, "OS_IMAGE_SHA256": l.imageSHA256} {
		if v == "" {
			t.Fatalf("%s is not set: scripts/ipa.sh env and scripts/osimage.sh env print it (make test-vm sets it)", name)
		}
	}
	u, err := url.Parse(acctest.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if l.ironicPort, err = strconv.Atoi(u.Port()); err != nil {
		t.Fatalf("Ironic's endpoint %s has no port", acctest.Endpoint())
	}
	if l.httpPort, err = strconv.Atoi(os.Getenv("BAREMETAL_TEST_IRONIC_HTTP_PORT")); err != nil {
		t.Fatal("BAREMETAL_TEST_IRONIC_HTTP_PORT is not set (scripts/ironic.sh env prints it with IRONIC_VM=1)")
	}
	return l
}

// vmRigHost is the name the lane's URLs use for the host: the agent's
// ramdisk resolves it to the guest-side address of the forwarded loopback
// ports (scripts/ipa.sh), the rig's Ironic to 127.0.0.1 (scripts/ironic.sh),
// so that one URL serves Ironic's checks and the agent's download.
const vmRigHost = "baremetal-rig"

// serveFiles serves files (URL path -> local path) on a loopback port
// until the test ends, and returns the port; the rig's Ironic downloads
// the ramdisk from there, the agent the OS image. A path in gone answers
// HEAD (the size of the file it names) but not GET: an image removed after
// Ironic checked it.
func serveFiles(t *testing.T, files map[string]string, gone ...string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := files[r.URL.Path]
		if !ok || (slices.Contains(gone, r.URL.Path) && r.Method != http.MethodHead) {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, p)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startVMHost starts a simulator whose one system, sys-0, is a qemu
// machine: the Redfish side of a real machine without hardware. The agent
// of each boot advertises the loopback port forwarded to its API.
func startVMHost(t *testing.T, l vmLane, filesPort int) (*sim.Server, sim.Profile, int) {
	t.Helper()
	agentPort := freeTCPPort(t)
	srv := sim.New(sim.Options{Logf: t.Logf, VM: &sim.VMOptions{
		Dir:        t.TempDir(),
		Forwards:   []int{l.ironicPort, l.httpPort, filesPort},
		AgentPorts: map[string]int{"sys-0": agentPort},
	}})
	p := sim.DefaultProfile(0)
	for i := range p.NICs {
		p.NICs[i].MAC = acctest.MAC()
	}
	if err := srv.AddSystem(sim.SystemConfig{ID: "sys-0", Username: "admin", Password: "password", Profile: p}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if m := srv.Machine("sys-0"); m != nil && t.Failed() {
			if b, err := os.ReadFile(m.ConsolePath()); err == nil {
				t.Logf("console of sys-0 (last 60 lines of %s):\n%s", m.ConsolePath(), agentToken.ReplaceAllString(lastLines(string(b), 60), "$1=***"))
			}
		}
		_ = srv.Close()
	})
	return srv, p, agentPort
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// vmRig is what a lane test starts from: the files it serves, a machine
// behind the simulator, and the recorder of its host's provision states,
// which the test logs with their times when it ends.
type vmRig struct {
	l                   vmLane
	sc                  *gophercloud.ServiceClient
	name, pool, address string
	files               string // base URL of the served files
	srv                 *sim.Server
	profile             sim.Profile
	agentPort           int
	agentParams         string // more of the agent's kernel parameters
	states              *stateRecorder
}

// startVMRig serves the ramdisk, os.qcow2 and gone.qcow2 (the image that
// answers HEAD only), and starts the machine, for a host named after
// prefix.
func startVMRig(t *testing.T, prefix string) vmRig {
	t.Helper()
	r := vmRig{l: vmLaneEnv(t), sc: acctest.Ironic(t), name: acctest.Name(prefix), pool: acctest.Name(prefix + "-pool")}
	filesPort := serveFiles(t, map[string]string{"/ipa.kernel": r.l.kernel, "/ipa.initramfs": r.l.ramdisk,
		"/os.qcow2": r.l.image, "/gone.qcow2": r.l.image}, "/gone.qcow2")
	r.files = fmt.Sprintf("http://%s:%d", vmRigHost, filesPort)
	r.srv, r.profile, r.agentPort = startVMHost(t, r.l, filesPort)
	r.address = "redfish-virtualmedia+" + r.srv.SystemURL("sys-0")
	r.states = recordStates(t, r.sc, r.name)
	began := time.Now()
	t.Cleanup(func() { logTransitions(t, r.name, r.states, began) })
	return r
}

// config is vmConfig for the rig's host.
func (r vmRig) config(image, extra string) string {
	return vmConfig(r.name, r.pool, r.address, r.files, r.agentPort, r.agentParams, r.l, image, extra)
}

// vmConfig is the lane's configuration: a host on the machine's BMC
// (redfish-virtualmedia, BIOS boot) that boots the agent from the
// ramdisk's kernel and initramfs, its hardware, an address from a pool,
// the network data that puts it on the machine's NIC, and a deployment of
// the OS image with user data.
func vmConfig(name, pool, address, files string, agentPort int, agentParams string, l vmLane, image, extra string) string {
	host := acctest.SimHost{Name: name, Address: address, Username: "admin", Password: "password",
		Driver: "  # the driver and interfaces from the address: redfish, redfish-virtual-media, agent inspection, direct deploy",
		Extra: fmt.Sprintf(`  boot_mode = "legacy"
  deploy_image = {
    kernel        = %q
    ramdisk       = %q
    kernel_params = "%%default%% console=ttyS0,115200 ipa-advertise-host=127.0.0.1 ipa-advertise-port=%d%s"
  }
  timeouts = { create = "40m", delete = "40m" }
%s`, files+"/ipa.kernel", files+"/ipa.initramfs", agentPort, agentParams, extra)}
	hcl := poolHCL(pool, 96, 10, 19) + host.HCL() + `
data "baremetal_hardware" "test" {
  host_id = baremetal_host.test.id
}

resource "baremetal_ip_claim" "ip" {
  pool  = baremetal_ip_pool.pool.name
  owner = baremetal_host.test.name
}

data "baremetal_network_data" "test" {
  host_id = baremetal_host.test.id
  nics    = data.baremetal_hardware.test.nic_macs
  links = {
    ethernets = [{ id = "enp0s2", from_host_interface = "enp0s2" }]
  }
  networks = {
    ipv4 = [{ id = "baremetal", link = "enp0s2", address = baremetal_ip_claim.ip.address, prefix = baremetal_ip_claim.ip.prefix, gateway = baremetal_ip_claim.ip.gateway }]
  }
}
`
	if image != "" {
		hcl += deployment(files+image, l.imageSHA256, "sha256", `  user_data            = "#cloud-config\nhostname: ${baremetal_host.test.name}\n"
  network_data         = data.baremetal_network_data.test.json
  provisioning_retries = 0
  timeouts             = { create = "40m", delete = "40m" }
`)
	}
	return hcl
}

// consoleShows waits, up to timeout, for the machine's console to print a
// line matching re (the deployed OS boots after Ironic reports it active),
// and returns the line.
func consoleShows(srv *sim.Server, id string, re *regexp.Regexp, timeout time.Duration) (string, error) {
	m := srv.Machine(id)
	if m == nil {
		return "", fmt.Errorf("system %s has no machine", id)
	}
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		b, _ := os.ReadFile(m.ConsolePath())
		if line := re.Find(b); line != nil {
			return string(line), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("after %s the console of %s (%s) shows no line matching %s; its last lines:\n%s",
				timeout, id, m.ConsolePath(), re, agentToken.ReplaceAllString(lastLines(string(b), 40), "$1=***"))
		}
		<-tick.C
	}
}

// TestVM_lifecycle takes a machine running the real agent from its BMC
// address to a booted OS and back, with terraform apply and destroy only:
// registration from a redfish-virtualmedia:// address, built-in inspection
// by the agent (its real inventory read by baremetal_hardware), automated
// cleaning of the virtual disk, a deployment of the OS image with user data
// and network_data whose address comes from a baremetal_ip_claim, the
// machine rebooting into that OS and cloud-init configuring the address,
// then deprovisioning, cleaning and deleting. It logs each provision state
// with its time, the agent's version, the inventory and the console lines.
func TestVM_lifecycle(t *testing.T) {
	r := startVMRig(t, "vm-host")
	name, srv, states, mac := r.name, r.srv, r.states, r.profile.NICs[0].MAC
	recordedTest(t, name, states, []resource.TestStep{
		{
			Config: r.config("", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "source", "inventory"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "ram_mebibytes", "2048"),
				resource.TestMatchResourceAttr("data.baremetal_hardware.test", "cpu.model", regexp.MustCompile(`^QEMU`)),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "system_vendor.manufacturer", "QEMU"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "nic_macs.enp0s2", mac),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "storage.#", "1"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "storage.0.size_bytes", strconv.Itoa(8<<30)),
				states.passedThrough("enroll", "verifying", "manageable", "inspecting", "inspect wait", "manageable", "cleaning", "clean wait", "available"),
				vmInventory(t, name),
			),
		},
		{
			Config: r.config("/os.qcow2", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckResourceAttr("baremetal_ip_claim.ip", "address", "10.96.0.10"),
				states.passedThrough("available", "deploying", "wait call-back", "deploying", "active"),
				func(*terraform.State) error {
					return deployedOSShows(t, srv, name, "10.96.0.10/24")
				},
			),
		},
	})
}

// deployedOSShows waits for the deployed OS named name to print its
// addresses on the console of sys-0 (it boots after Ironic reports the
// node active), checks that they include addr, and logs its cloud-init
// lines.
func deployedOSShows(t *testing.T, srv *sim.Server, name, addr string) error {
	re := regexp.MustCompile(`baremetal-os: ` + regexp.QuoteMeta(name) + ` up; addresses:[^\r\n]*`)
	line, err := consoleShows(srv, "sys-0", re, 10*time.Minute)
	if err != nil {
		return err
	}
	if !strings.Contains(line, " "+addr) {
		return fmt.Errorf("the deployed OS did not configure the claimed address %s: %q", addr, line)
	}
	m := srv.Machine("sys-0")
	b, _ := os.ReadFile(m.ConsolePath())
	t.Logf("the agent's boots on the console (%s):\n%s", m.ConsolePath(), grepLines(string(b),
		regexp.MustCompile(`Command line:|Starting ironic-python-agent version|Lookup succeeded|Posting collected data|inspection finished|successfully destroyed|Clean step completed|Image .*(written|downloaded)|write_image|Asynchronous command .* completed`), 60))
	t.Logf("the deployed OS's console (%s):\n%s", m.ConsolePath(),
		grepLines(string(b), regexp.MustCompile(`cloud-init\[|ci-info: \|.*(enp|True)|baremetal-os`), 40))
	return nil
}

// agentToken is the agent token on a ramdisk's kernel command line.
var agentToken = regexp.MustCompile(`(ipa-agent-token|agent_token)=[^\s&]+`)

// grepLines is the lines of s that match re, at most n of the last, with
// agent tokens masked.
func grepLines(s string, re *regexp.Regexp, n int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if re.MatchString(line) {
			out = append(out, agentToken.ReplaceAllString(strings.TrimRight(line, "\r"), "$1=***"))
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "\n")
}

// vmInventory logs what the real agent found, as Ironic stored it, and
// checks that it is the machine's: a virtio disk by its PCI path, the
// agent's version from its heartbeats.
func vmInventory(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := acctest.Ironic(t)
		n, err := nodes.Get(context.Background(), c, name).Extract()
		if err != nil {
			return err
		}
		inv, err := nodes.GetInventory(context.Background(), c, n.UUID).Extract()
		if err != nil {
			return fmt.Errorf("inventory of %s: %w", name, err)
		}
		i := inv.Inventory
		// udev names a virtio disk's path pci-0000:00:03.0 and
		// virtio-pci-0000:00:03.0; the agent reports either.
		if len(i.Disks) != 1 || !strings.HasPrefix(i.Disks[0].ByPath, "/dev/disk/by-path/") || !strings.Contains(i.Disks[0].ByPath, "pci-0000:") {
			return fmt.Errorf("inventory disks %+v, want one virtio disk by its PCI path", i.Disks)
		}
		t.Logf("the agent's inventory of %s: cpu %q x%d (%s); memory %d MiB; disk %s %d bytes %s; nics %v; system %s %s, firmware %s %s; agent_version %v",
			name, i.CPU.ModelName, i.CPU.Count, i.CPU.Architecture, i.Memory.PhysicalMb, i.Disks[0].Name, i.Disks[0].Size, i.Disks[0].ByPath,
			nicSummary(i.Interfaces), i.SystemVendor.Manufacturer, i.SystemVendor.ProductName, i.SystemVendor.Firmware.Vendor, i.SystemVendor.Firmware.Version,
			n.DriverInternalInfo["agent_version"])
		return nil
	}
}

func nicSummary(ifaces []inventory.InterfaceType) string {
	var s []string
	for _, i := range ifaces {
		s = append(s, i.Name+" "+i.MACAddress+" "+i.IPV4Address)
	}
	return strings.Join(s, ", ")
}

// logTransitions logs the node's provision states with their times, from
// Ironic's log (scripts/ironic.sh keeps it), relative to the test's start.
func logTransitions(t *testing.T, name string, states *stateRecorder, began time.Time) {
	states.mu.Lock()
	uuid := states.uuid
	states.mu.Unlock()
	dir := os.Getenv("BAREMETAL_TEST_IRONIC_LOG_DIR")
	if uuid == "" || dir == "" {
		return
	}
	var b strings.Builder
	for _, tr := range loggedTransitions(dir, uuid) {
		fmt.Fprintf(&b, "\n  %s  %-16s -> %s", tr.at, tr.from, tr.to)
	}
	t.Logf("%s (%s): provision states, from Ironic's log (the test began at %s):%s", name, uuid, began.UTC().Format("15:04:05"), b.String())
}

// TestVM_faults: faults with the real agent. An image that answers
// Ironic's check but not the agent's download (removed in between): the
// apply fails with the agent's own error. The machine powered off from its
// BMC while the agent writes the image: Ironic gives up waiting for the
// agent (its callback timeout), the apply fails with Ironic's last_error,
// and the next apply converges: the failed deployment is replaced and the
// OS boots. Cleaning is disabled on this host: the faults are not about it.
func TestVM_faults(t *testing.T) {
	r := startVMRig(t, "vm-fault")
	// The agent tries a download once, for 10 s (by default 10 times, for
	// a minute and a half each).
	r.agentParams = " ipa-image-download-connection-retries=0 ipa-image-download-connection-timeout=10"
	name, sc, srv, states := r.name, r.sc, r.srv, r.states
	noClean := "  automated_cleaning_mode = \"disabled\"\n"
	config := func(image string) string { return r.config(image, noClean) }
	// Each fault's apply must fail with what the user is to see: the
	// test case's ErrorCheck logs that error and lets the step pass when
	// it matches the step's expectation (failWith); the next step checks
	// that it did fail (failed).
	var want *regexp.Regexp
	var got string
	failWith := func(re *regexp.Regexp) { want, got = re, "" }
	failed := func(what string) {
		if got == "" {
			t.Fatalf("the apply with %s did not fail", what)
		}
	}
	var watch func() string
	tc := acctest.Case(t, noNodesNamed(t, name), []resource.TestStep{
		{
			// The agent's download answers 404.
			PreConfig: func() {
				failWith(regexp.MustCompile(`(?s)` + regexp.QuoteMeta(name) + `.*gone\.qcow2.*404`))
			},
			Config: config("/gone.qcow2"),
		},
		{
			// Powered off from the BMC while the agent writes the image.
			PreConfig: func() {
				failed("an image that answers 404")
				logLastError(t, sc, name, "after the 404")
				watch = powerOffDuring(t, sc, srv, name, "write_image")
				failWith(regexp.MustCompile(`(?s)` + regexp.QuoteMeta(name) + `.*Timeout reached while waiting for callback`))
			},
			Config: config("/os.qcow2"),
		},
		{
			// The next apply converges.
			PreConfig: func() {
				failed("the machine powered off while the agent wrote the image")
				t.Logf("the power-off: %s", watch())
				logLastError(t, sc, name, "after the power-off")
				failWith(nil)
			},
			Config: config("/os.qcow2"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				func(*terraform.State) error { return deployedOSShows(t, srv, name, "10.96.0.10/24") },
			),
		},
	})
	tc.PreCheck = func() { acctest.PreCheck(t); states.start() }
	tc.ErrorCheck = func(err error) error {
		if want == nil || !want.MatchString(err.Error()) {
			return err
		}
		t.Logf("the apply failed, as the fault should make it:\n%s", err)
		got, want = err.Error(), nil
		return nil
	}
	resource.ParallelTest(t, tc)
}

// logLastError logs node name's provision state, last_error and the last
// error event of its history (API 1.78).
func logLastError(t *testing.T, sc *gophercloud.ServiceClient, name, when string) {
	n, err := nodes.Get(context.Background(), sc, name).Extract()
	if err != nil {
		t.Logf("%s: %v", name, err)
		return
	}
	var h struct {
		History []struct {
			CreatedAt string `json:"created_at"`
			Severity  string `json:"severity"`
			Event     string `json:"event"`
		} `json:"history"`
	}
	last := "none"
	if _, err := sc.Get(context.Background(), sc.ServiceURL("nodes", n.UUID, "history"), &h, nil); err == nil {
		for _, e := range h.History {
			if e.Severity == "ERROR" {
				last = e.CreatedAt + " " + e.Event
			}
		}
	}
	t.Logf("%s %s: provision state %q, last_error: %q; Ironic's last error event: %s", name, when, n.ProvisionState, n.LastError, last)
}

// powerOffDuring powers system sys-0 off at its BMC once node name runs
// the deploy step step (the agent is at work), watching Ironic every two
// seconds until the test ends; the returned func says what it did.
func powerOffDuring(t *testing.T, sc *gophercloud.ServiceClient, srv *sim.Server, name, step string) func() string {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- "never: the node did not run " + step
				return
			case <-tick.C:
			}
			n, err := nodes.Get(ctx, sc, name).Extract()
			if err != nil || n.DeployStep["step"] != step {
				continue
			}
			if err := srv.SetPower("sys-0", sim.PowerOff); err != nil {
				done <- "failed: " + err.Error()
				return
			}
			done <- fmt.Sprintf("at %s, in %q running deploy step %v", time.Now().UTC().Format("15:04:05"), n.ProvisionState, n.DeployStep)
			return
		}
	}()
	var once string
	t.Cleanup(cancel)
	return func() string {
		if once == "" {
			cancel()
			once = <-done
		}
		return once
	}
}
