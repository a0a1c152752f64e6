package resources_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// The agent acceptance tests: hosts on simulator systems whose simulated
// Ironic Python Agent does the in-band work (deploy "direct"), so that
// cleaning waits for an agent, the image is downloaded and its checksum
// checked, and the config drive reaches a host that records it.

// stateRecorder watches the provision states an Ironic node goes through
// for the length of a test: from the transitions Ironic's conductor logs
// (BAREMETAL_TEST_IRONIC_LOG_DIR, set by make test), which polling can
// miss when a state lasts less than a poll, else from polling Ironic.
type stateRecorder struct {
	mu     sync.Mutex
	uuid   string
	states []string
	begin  chan struct{}
	once   sync.Once
}

// recordStates makes the recorder of the node named name; it starts when
// the test's PreCheck calls start, once the parallel test has its slot (a
// recorder that started before polled Ironic four times a second for as
// long as the test waited: thousands of requests in a full run). With
// Ironic's log it polls only until it knows the node's uuid.
func recordStates(t *testing.T, sc *gophercloud.ServiceClient, name string) *stateRecorder {
	r := &stateRecorder{begin: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	logged := os.Getenv("BAREMETAL_TEST_IRONIC_LOG_DIR") != ""
	go func() {
		defer close(done)
		select {
		case <-r.begin:
		case <-ctx.Done():
			return
		}
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := nodes.Get(ctx, sc, name).Extract(); err == nil {
				r.mu.Lock()
				r.uuid = n.UUID
				if len(r.states) == 0 || r.states[len(r.states)-1] != n.ProvisionState {
					r.states = append(r.states, n.ProvisionState)
				}
				r.mu.Unlock()
				if logged {
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		t.Logf("Ironic states of %s: %s", name, strings.Join(r.seen(), " -> "))
	})
	return r
}

// start begins recording (from the test's PreCheck).
func (r *stateRecorder) start() { r.once.Do(func() { close(r.begin) }) }

func (r *stateRecorder) seen() []string {
	r.mu.Lock()
	uuid, polled := r.uuid, slices.Clone(r.states)
	r.mu.Unlock()
	if dir := os.Getenv("BAREMETAL_TEST_IRONIC_LOG_DIR"); dir != "" && uuid != "" {
		if logged := loggedStates(dir, uuid); len(logged) > 0 {
			return logged
		}
	}
	return polled
}

// agentRig is what an agent test starts from: a one-system simulator with
// the simulated agent, agentHost's HCL for a host named name on its sys-0,
// and the recorder of that host's provision states (recordedTest starts
// it). configure adjusts the agent's Config.
type agentRig struct {
	name    string
	sc      *gophercloud.ServiceClient
	srv     *sim.Server
	profile sim.Profile
	host    string
	states  *stateRecorder
}

func startAgentRig(t *testing.T, prefix string, configure ...func(*agent.Config)) agentRig {
	t.Helper()
	r := agentRig{name: acctest.Name(prefix), sc: acctest.Ironic(t)}
	srv, profiles := acctest.StartAgentSim(t, 1, "admin", "password", configure...)
	r.srv, r.profile = srv, profiles[0]
	r.host = agentHost(r.name, acctest.SimAddress(srv, "sys-0"))
	r.states = recordStates(t, r.sc, r.name)
	return r
}

// recordedTest is acctest.ParallelTest for a test that records its host's
// provision states: the recorder starts once the test has its slot.
func recordedTest(t *testing.T, name string, states *stateRecorder, steps []resource.TestStep) {
	t.Helper()
	tc := acctest.Case(t, noNodesNamed(t, name), steps)
	tc.PreCheck = func() { acctest.PreCheck(t); states.start() }
	resource.ParallelTest(t, tc)
}

// loggedStates is the provision states node uuid moved through, in order,
// from the "moved to provision state" lines of the Ironic logs in dir.
func loggedStates(dir, uuid string) []string {
	var states []string
	for _, tr := range loggedTransitions(dir, uuid) {
		if len(states) == 0 {
			states = append(states, tr.from)
		}
		states = append(states, tr.to)
	}
	return states
}

// transition is one provision state change of a node in Ironic's log.
type transition struct{ at, from, to string }

// loggedTransitions is node uuid's provision state changes, in order, from
// the "moved to provision state" lines of the Ironic logs in dir (each line
// starts with its timestamp).
func loggedTransitions(dir, uuid string) []transition {
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	re := regexp.MustCompile(`Node ` + regexp.QuoteMeta(uuid) + ` moved to provision state "([^"]*)" from state "([^"]*)"`)
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if re.MatchString(l) {
				lines = append(lines, l)
			}
		}
	}
	// By timestamp; lines of the same millisecond stay in log order.
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(a[:min(23, len(a))], b[:min(23, len(b))]) })
	var out []transition
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		out = append(out, transition{at: l[:min(23, len(l))], from: m[2], to: m[1]})
	}
	return out
}

// passedThrough checks that the node went through want, in this order.
func (r *stateRecorder) passedThrough(want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		seen := r.seen()
		i := 0
		for _, s := range seen {
			if i < len(want) && s == want[i] {
				i++
			}
		}
		if i < len(want) {
			return fmt.Errorf("Ironic states %v do not pass through %v in order", seen, want)
		}
		return nil
	}
}

// agentRecord checks what system id's agent received.
func agentRecord(srv *sim.Server, id string, check func(agent.Record) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		rec, err := srv.AgentRecord(id)
		if err != nil {
			return err
		}
		if err := check(rec); err != nil {
			return fmt.Errorf("agent of %s: %w (events: %s)", id, err, strings.Join(rec.Events, "; "))
		}
		return nil
	}
}

// sameJSON checks that the agent's config drive held the JSON document the
// attribute res.attr has.
func sameJSON(res, attr string, got func() json.RawMessage) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[res]
		if rs == nil {
			return fmt.Errorf("no %s in state", res)
		}
		var want, have any
		if err := json.Unmarshal([]byte(rs.Primary.Attributes[attr]), &want); err != nil {
			return fmt.Errorf("%s.%s: %w", res, attr, err)
		}
		if err := json.Unmarshal(got(), &have); err != nil {
			return fmt.Errorf("config drive: %w (%q)", err, got())
		}
		if !reflect.DeepEqual(want, have) {
			return fmt.Errorf("config drive holds %s, %s.%s is %s", got(), res, attr, rs.Primary.Attributes[attr])
		}
		return nil
	}
}

// agentHost is a baremetal_host on simulator system sys-0 with the agent
// driver, and data sources for its hardware and network data.
func agentHost(name, address string) string {
	return agentHostHardware(name, address) + provisioningNetworkData("baremetal_host.test.id")
}

// provisioningNetworkData is networkDataOn with the provisioning network:
// 192.0.2.10/24 on enp1s0, gateway 192.0.2.1, DNS server 192.0.2.53.
func provisioningNetworkData(hostID string) string {
	return networkDataOn(hostID, `
    ipv4 = [{ id = "provisioning", link = "enp1s0", address = "192.0.2.10", prefix = 24, gateway = "192.0.2.1" }]
`, `  services = { dns = ["192.0.2.53"] }
`)
}

// agentNetworkData is the network data of agentHost's host: link enp1s0
// on its NIC eno1, the networks given (HCL inside networks = { }) and
// extra attributes.
func agentNetworkData(networks, extra string) string {
	return networkDataOn("baremetal_host.test.id", networks, extra)
}

// networkDataOn is data.baremetal_network_data.test of the host hostID
// (an HCL expression) with link enp1s0 on the NIC eno1 that
// data.baremetal_hardware.test found, the networks given and extra
// attributes.
func networkDataOn(hostID, networks, extra string) string {
	return `
data "baremetal_network_data" "test" {
  host_id = ` + hostID + `
  nics    = { for nic in data.baremetal_hardware.test.nics : nic.name => nic.mac if nic.name != "" }
  links = {
    ethernets = [{ id = "enp1s0", from_host_interface = "eno1" }]
  }
  networks = {` + networks + `  }
` + extra + `}
`
}

// agentHostHardware is agentHost without its network data: the host and
// the data source of its hardware, read from the BMC.
func agentHostHardware(name, address string) string {
	host := bootSimHost(name, address, "")
	return host.HCL() + `
data "baremetal_hardware" "test" {
  host_id = baremetal_host.test.id
` + host.BMC() + `}
`
}

// agentDeployment is the deployment of an agent test: the image with its
// checksum, user data naming the host, meta data, the network data of
// agentHost and extra arguments.
func agentDeployment(url, checksum, checksumType, extra string) string {
	return deployment(url, checksum, checksumType, `  user_data            = "#cloud-config\nhostname: ${baremetal_host.test.name}\n"
  meta_data            = { role = "worker" }
  network_data         = data.baremetal_network_data.test.json
  provisioning_retries = 0
`+extra)
}

// A host whose agent does the work: automated cleaning passes through
// clean wait, the deploy through wait call-back; the agent downloads the
// image and verifies its sha256, and its config drive holds the
// network_data baremetal_network_data rendered and the user_data. Removing
// the deployment cleans the host through the agent again.
func TestAccAgent_deploy(t *testing.T) {
	r := startAgentRig(t, "acc-agent-dep")
	name, srv, states, host := r.name, r.srv, r.states, r.host
	img := acctest.ImageServer(t)
	rec := func() agent.Record { r, _ := srv.AgentRecord("sys-0"); return r }
	recordedTest(t, name, states, []resource.TestStep{
		{
			Config: host + agentDeployment(img.URL, img.SHA256, "sha256", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckResourceAttr("data.baremetal_network_data.test", "host_nics.eno1", r.profile.NICs[0].MAC),
				states.passedThrough("cleaning", "clean wait", "available", "deploying", "wait call-back", "active"),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					if r.Image == nil || r.Image.Verdict != "match" || r.Image.Algorithm != "sha256" || r.Image.Actual != img.SHA256 || r.Image.URL != img.URL || r.Image.Bytes != img.Size {
						return fmt.Errorf("image record %+v, want %s with sha256 %s (%d bytes)", r.Image, img.URL, img.SHA256, img.Size)
					}
					if r.ConfigDrive == nil || r.ConfigDrive.Error != "" || r.ConfigDrive.Label != "config-2" {
						return fmt.Errorf("config drive %+v", r.ConfigDrive)
					}
					if want := "#cloud-config\nhostname: " + name + "\n"; r.ConfigDrive.UserData != want {
						return fmt.Errorf("config drive user_data %q, want %q", r.ConfigDrive.UserData, want)
					}
					if !strings.Contains(string(r.ConfigDrive.MetaData), `"role":"worker"`) {
						return fmt.Errorf("config drive meta_data %s", r.ConfigDrive.MetaData)
					}
					if !slices.Contains(r.CleanSteps, "deploy.erase_devices_metadata") || !slices.Contains(r.DeploySteps, "deploy.write_image") {
						return fmt.Errorf("steps: clean %v, deploy %v", r.CleanSteps, r.DeploySteps)
					}
					if r.Bootloader == nil || r.InstanceBoots == 0 {
						return fmt.Errorf("no bootloader installed (%v) or instance never booted (%d)", r.Bootloader, r.InstanceBoots)
					}
					return nil
				}),
				sameJSON("data.baremetal_network_data.test", "json", func() json.RawMessage { return rec().ConfigDrive.NetworkData }),
				func(*terraform.State) error {
					r := rec()
					t.Logf("agent of %s received image %s (%s %s: %s) and config drive network_data %s, user_data %q",
						name, r.Image.URL, r.Image.Algorithm, r.Image.Actual, r.Image.Verdict, r.ConfigDrive.NetworkData, r.ConfigDrive.UserData)
					return nil
				},
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.DeployInterface != "direct" || n.ProvisionState != "active" {
						return fmt.Errorf("node deploy_interface %s, state %s", n.DeployInterface, n.ProvisionState)
					}
					return nil
				}),
			),
		},
		{
			// (baremetal_host was read before the deployment's destroy:
			// Ironic is the witness.)
			Config: host,
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, depProvisionState("available")),
				// ("deleting" can be shorter than the recorder's poll.)
				states.passedThrough("wait call-back", "active", "cleaning", "clean wait", "available"),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					if r.ErasedMetadata < 2 {
						return fmt.Errorf("erase_devices_metadata ran %d times, want cleaning before and after the deploy", r.ErasedMetadata)
					}
					return nil
				}),
			),
		},
	})
}

// A wrong checksum: the agent downloads the image, its sha256 differs, and
// the deploy fails with Ironic's last_error naming both sums.
func TestAccAgent_checksumMismatch(t *testing.T) {
	name := acctest.Name("acc-agent-sum")
	acctest.PreCheck(t)
	srv, _ := acctest.StartAgentSim(t, 1, "admin", "password")
	img := acctest.ImageServer(t)
	wrong := strings.Repeat("0", 64)
	host := agentHost(name, acctest.SimAddress(srv, "sys-0"))
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config:      host + agentDeployment(img.URL, wrong, "sha256", ""),
			ExpectError: words(name, `deploy failed`, `Image failed to verify against checksum`, `image checksum: `+wrong, `verification checksum: `+img.SHA256),
		},
		{
			Config: host,
			Check: resource.ComposeAggregateTestCheckFunc(
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					if r.Image == nil || r.Image.Verdict != "mismatch" || r.Image.Actual != img.SHA256 || r.Image.Expected != wrong {
						return fmt.Errorf("image record %+v", r.Image)
					}
					if r.LogsCollected == 0 {
						return fmt.Errorf("Ironic collected no logs from the failed deploy")
					}
					return nil
				}),
			),
		},
	})
}

// A custom deploy (deploy interface custom-agent) runs its step on the
// agent, which offers it in its deploy steps.
func TestAccAgent_customDeploy(t *testing.T) {
	r := startAgentRig(t, "acc-agent-cust")
	name, srv, states, host := r.name, r.srv, r.states, r.host
	recordedTest(t, name, states, []resource.TestStep{{
		Config: host + `
resource "baremetal_deployment" "test" {
  host_id       = baremetal_host.test.id
  custom_deploy = { method = "custom_deploy" }
  user_data     = "#cloud-config\n"
}
`,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
			states.passedThrough("deploying", "wait call-back", "active"),
			acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if n.DeployInterface != "custom-agent" {
					return fmt.Errorf("deploy_interface %s", n.DeployInterface)
				}
				return nil
			}),
			agentRecord(srv, "sys-0", func(r agent.Record) error {
				if !slices.Contains(r.DeploySteps, "deploy.custom_deploy") || slices.Contains(r.DeploySteps, "deploy.write_image") {
					return fmt.Errorf("deploy steps on the agent: %v, want deploy.custom_deploy only", r.DeploySteps)
				}
				return nil
			}),
		),
	}})
}

// Agent faults during a deploy: a failing image download fails it with the
// agent's error; an agent that stops heartbeating makes Ironic's callback
// timeout fail it.
func TestAccAgent_faults(t *testing.T) {
	sc := acctest.Ironic(t)
	for _, tc := range []struct {
		name   string
		faults agent.Faults
		want   []string
	}{
		{"download", agent.Faults{DownloadFail: true}, []string{`Deploy step deploy.write_image failed`, `Download of image disk.qcow2 failed`}},
		{"heartbeat", agent.Faults{HeartbeatStopped: true}, []string{`Timeout reached while waiting for callback`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := acctest.Name("acc-agent-" + tc.name)
			srv, _ := acctest.StartAgentSim(t, 1, "admin", "password")
			img := acctest.ImageServer(t)
			host := agentHost(name, acctest.SimAddress(srv, "sys-0"))
			acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
				{Config: host},
				{
					// The agent is healthy again once the deploy failed,
					// so that the deprovisioning that follows (in this
					// step: a failed deploy is undeployed at once) can
					// clean. The provider may leave "deploy failed"
					// within one poll, so any state of that
					// deprovisioning heals too: a missed heal let the
					// cleaning time out (CI, "clean failed").
					PreConfig: func() {
						srv.Agent("sys-0").SetFaults(tc.faults)
						healOnState(t, sc, name, srv.Agent("sys-0"), "deploy failed", "deleting", "cleaning", "clean wait")
					},
					Config:      host + agentDeployment(img.URL, img.SHA256, "sha256", ""),
					ExpectError: words(append([]string{name, `deploy failed`}, tc.want...)...),
				},
				{
					PreConfig: func() { srv.Agent("sys-0").SetFaults(agent.Faults{}) },
					Config:    host,
					Check:     acctest.NodeCheck(t, name, depProvisionState("available")),
				},
			})
		})
	}
}

// words matches the phrases in order, whatever line wrapping Terraform
// put between their words.
func words(phrases ...string) *regexp.Regexp {
	var parts []string
	for _, p := range phrases {
		var ws []string
		for _, w := range strings.Fields(p) {
			ws = append(ws, regexp.QuoteMeta(w))
		}
		parts = append(parts, strings.Join(ws, `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}

// healOnState clears the agent's faults once the node named name is in
// one of states (polling Ironic), as a host whose agent recovers.
func healOnState(t *testing.T, sc *gophercloud.ServiceClient, name string, a *agent.Agent, states ...string) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := nodes.Get(ctx, sc, name).Extract(); err == nil && slices.Contains(states, n.ProvisionState) {
				a.SetFaults(agent.Faults{})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// Agent inspection: with Ironic's built-in inspection (inspect interface
// agent, 2024.1+) or, on 2023.1, ironic-inspector and the inspector inspect
// interface, the host's agent posts its inventory in IPA's format at boot;
// Ironic keeps it as the node's inventory, so
// baremetal_hardware reads it (no BMC needed) and baremetal_network_data
// matches NIC names as users write them (eno1).
func TestAccAgent_inspection(t *testing.T) {
	acctest.PreCheckInspector(t)
	r := startAgentRig(t, "acc-agent-insp")
	name, srv, p, states := r.name, r.srv, r.profile, r.states
	config := strings.Replace(r.host, `inspect    = "redfish"`, `inspect    = "`+acctest.AgentInspectInterface()+`"`, 1)
	// Hardware from Ironic's inventory only: drop the data source's bmc block.
	config = regexp.MustCompile(`(?s)(data "baremetal_hardware" "test" \{\n  host_id = baremetal_host.test.id\n)  bmc = \{.*?\n  \}\n`).ReplaceAllString(config, "$1")
	cpus := p.CPU.Count * p.CPU.CoresPerSocket * p.CPU.ThreadsPerCore
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheckInspector(t); states.start() },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				// "inspecting" lasts only while the conductor powers the
				// host on, often less than the recorder's poll: the agent's
				// part is "inspect wait", which only in-band inspection has.
				states.passedThrough("inspect wait", "manageable"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "source", "inventory"),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "nics.#", fmt.Sprint(len(p.NICs))),
				resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_hardware.test", "nics.*", map[string]string{"name": "eno1", "mac": p.NICs[0].MAC}),
				resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_hardware.test", "nics.*", map[string]string{"name": "eno2", "mac": p.NICs[1].MAC}),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "cpu.count", fmt.Sprint(cpus)),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "cpu.model", p.CPU.Model),
				// Every NIC the agent reported is an Ironic port (BMO
				// registers inspected NICs as ports).
				func(*terraform.State) error {
					macs, err := nodePortMACs(t, name)
					if err != nil {
						return err
					}
					for _, nic := range p.NICs {
						if !slices.Contains(macs, strings.ToLower(nic.MAC)) {
							return fmt.Errorf("inspected NIC %s %s is not a port of the node (ports %v)", nic.Name, nic.MAC, macs)
						}
					}
					return nil
				},
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "storage.#", fmt.Sprint(len(p.Disks))),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "system_vendor.manufacturer", p.Manufacturer),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "system_vendor.serial_number", p.SerialNumber),
				resource.TestCheckResourceAttr("data.baremetal_network_data.test", "host_nics.eno1", p.NICs[0].MAC),
				resource.TestMatchResourceAttr("data.baremetal_network_data.test", "json",
					regexp.MustCompile(`"ethernet_mac_address":"`+regexp.QuoteMeta(p.NICs[0].MAC)+`"`)),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					// (inspector answers 200, Ironic's built-in inspection 202)
					if r.Inspection == nil || r.Inspection.Status != 200 && r.Inspection.Status != 202 {
						return fmt.Errorf("the inspection endpoint's answer to the inventory: %+v", r.Inspection)
					}
					return nil
				}),
				func(s *terraform.State) error {
					a := s.RootModule().Resources["data.baremetal_hardware.test"].Primary.Attributes
					var lines []string
					for _, k := range []string{"source", "cpu.count", "cpu.model", "cpu.arch", "ram_mebibytes", "system_vendor.manufacturer", "system_vendor.product_name", "system_vendor.serial_number"} {
						lines = append(lines, k+" = "+a[k])
					}
					for i := 0; a[fmt.Sprintf("nics.%d.name", i)] != ""; i++ {
						lines = append(lines, fmt.Sprintf("nics.%d = %s %s ip=%s", i, a[fmt.Sprintf("nics.%d.name", i)], a[fmt.Sprintf("nics.%d.mac", i)], a[fmt.Sprintf("nics.%d.ip", i)]))
					}
					for i := 0; a[fmt.Sprintf("storage.%d.name", i)] != ""; i++ {
						lines = append(lines, fmt.Sprintf("storage.%d = %s %s bytes", i, a[fmt.Sprintf("storage.%d.name", i)], a[fmt.Sprintf("storage.%d.size_bytes", i)]))
					}
					t.Logf("baremetal_hardware of the agent-inspected host %s:\n  %s", name, strings.Join(lines, "\n  "))
					return nil
				},
			),
		}},
	})
}

// baremetal_firmware_settings on a host with the Redfish BIOS interface,
// end to end: Ironic's apply_configuration PATCHes the simulated BMC's BIOS
// settings, reboots into the agent and waits in clean wait; at that boot the
// BMC applies them, and Ironic checks and caches them.
func TestAccAgent_firmwareSettingsRedfish(t *testing.T) {
	r := startAgentRig(t, "acc-agent-bios")
	name, sc, srv, states := r.name, r.sc, r.srv, r.states
	config := r.host + `
resource "baremetal_firmware_settings" "test" {
  host_id  = baremetal_host.test.id
  settings = {
    NumLock            = "Off"
    ProcVirtualization = "Disabled"
  }
}
`
	recordedTest(t, name, states, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			// A manual clean took the available host through manageable
			// and back. Its clean wait can be shorter than the recorder's
			// 250 ms poll (CI once saw cleaning -> manageable with no
			// clean wait in between), so only the stable states are
			// asserted; the BMC's and Ironic's BIOS below show the
			// settings were applied.
			states.passedThrough("available", "manageable", "available"),
			func(*terraform.State) error {
				st, err := srv.State("sys-0")
				if err != nil {
					return err
				}
				if st.BiosCurrent["NumLock"] != "Off" || st.BiosCurrent["ProcVirtualization"] != "Disabled" {
					return fmt.Errorf("the simulated BMC's BIOS: %v (pending %v)", st.BiosCurrent, st.BiosPending)
				}
				return nil
			},
			func(*terraform.State) error {
				// Ironic caches every attribute the redfish interface reads.
				got := biosOf(t, sc, name)
				if got["NumLock"] != "Off" || got["ProcVirtualization"] != "Disabled" {
					return fmt.Errorf("Ironic's BIOS settings: %v", got)
				}
				return nil
			},
		),
	}})
}

// baremetal_firmware_settings on a provisioned host, on the real conductor:
// from API 1.87 (Ironic 2025.1) the Redfish BIOS interface's
// apply_configuration runs as a service step, the node goes through
// servicing and back to active, and the deployment stays. Below 1.87 the
// plan refuses and names the version (TestAccFirmwareSettings_provisionedBelow187
// covers the fake BIOS there).
func TestAccAgent_firmwareSettingsServicing(t *testing.T) {
	r := startAgentRig(t, "acc-agent-svc")
	name, sc, srv, states := r.name, r.sc, r.srv, r.states
	img := acctest.ImageServer(t)
	deployed := r.host + agentDeployment(img.URL, img.SHA256, "sha256", "")
	withSettings := deployed + `
resource "baremetal_firmware_settings" "test" {
  host_id  = baremetal_deployment.test.host_id
  settings = { ProcVirtualization = "Disabled" }
}
`
	settings := resource.TestStep{
		Config:      withSettings,
		ExpectError: regexp.MustCompile(`(?s)Firmware settings cannot change on a provisioned host.*1\.87`),
	}
	if acctest.IronicAtLeast(t, "1.87") {
		settings = resource.TestStep{
			Config: withSettings,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				states.passedThrough("active", "servicing", "active"),
				func(*terraform.State) error {
					st, err := srv.State("sys-0")
					if err != nil {
						return err
					}
					if st.BiosCurrent["ProcVirtualization"] != "Disabled" {
						return fmt.Errorf("the simulated BMC's BIOS: %v (pending %v)", st.BiosCurrent, st.BiosPending)
					}
					if got := biosOf(t, sc, name); got["ProcVirtualization"] != "Disabled" {
						return fmt.Errorf("Ironic's BIOS settings: %v", got)
					}
					t.Logf("%s: Ironic states %v; BMC BIOS ProcVirtualization=%s", name, states.seen(), st.BiosCurrent["ProcVirtualization"])
					return nil
				},
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.ProvisionState != "active" || n.BIOSInterface != "redfish" {
						return fmt.Errorf("node state %s, bios_interface %s", n.ProvisionState, n.BIOSInterface)
					}
					return nil
				}),
			),
		}
	}
	recordedTest(t, name, states, []resource.TestStep{
		{
			Config: deployed,
			Check:  resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		},
		settings,
	})
}

// TestLoggedStates reads a node's transitions from Ironic's log lines, in
// time order across files, ignoring other nodes.
func TestLoggedStates(t *testing.T) {
	dir := t.TempDir()
	const id, other = "dfd47234-b379-4c51-b596-c508a8b6761d", "aaaaaaaa-b379-4c51-b596-c508a8b6761d"
	line := func(ts, node, to, from string) string {
		return ts + ` 20318 INFO ironic.conductor.task_manager [None req-1 - - - - - -] Node ` + node +
			` moved to provision state "` + to + `" from state "` + from + `"; target provision state is "None"` + "\n"
	}
	a := line("2026-11-30 12:14:52.999", id, "verifying", "enroll") +
		line("2026-11-30 12:14:53.000", other, "manageable", "verifying") +
		line("2026-11-30 12:14:54.100", id, "cleaning", "manageable")
	b := line("2026-11-30 12:14:53.180", id, "manageable", "verifying") + "unrelated line\n"
	if err := os.WriteFile(filepath.Join(dir, "conductor.log"), []byte(a), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api.log"), []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
	got := loggedStates(dir, id)
	if want := []string{"enroll", "verifying", "manageable", "cleaning"}; !slices.Equal(got, want) {
		t.Fatalf("loggedStates = %v, want %v", got, want)
	}
}

// TestAccAgent_firmwareUpdate: baremetal_firmware_update of an available
// host whose agent boots, the way each Ironic offers it.
//   - Ironic 2025.1 (firmware API, 1.86+): the updates run as Ironic's
//     firmware.update clean step, which needs the ramdisk: a manual clean
//     (manageable, cleaning, clean wait while the agent boots and the BMC's
//     task runs, back to available); Ironic's firmware API and the BMC
//     then list the new versions. A BMC task that fails fails the apply
//     with the host, its state and Ironic's last_error, which carries the
//     BMC's message.
//   - Ironic 2023.1 (no firmware API): the same configuration goes through
//     the BMC (method redfish, the node in maintenance meanwhile), the BMC's
//     failure is reported the same way, and method = "ironic" is refused
//     at plan.
func TestAccAgent_firmwareUpdate(t *testing.T) {
	r := startAgentRig(t, "acc-agent-fwu")
	name, srv, states := r.name, r.srv, r.states
	image := []byte("simulated BIOS image 3.1.4")
	sum := sha256.Sum256(image)
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(image) }))
	t.Cleanup(images.Close)
	update := func(method, bios string) string {
		m := ""
		if method != "" {
			m = fmt.Sprintf("  method  = %q\n", method)
		}
		return r.host + `
resource "baremetal_firmware_update" "u" {
  host_id = baremetal_host.test.id
  bmc     = baremetal_host.test.bmc
` + m + `  updates = [
    { component = "bios", url = "` + images.URL + `/bios-` + bios + `.bin", checksum = "sha256:` + hex.EncodeToString(sum[:]) + `" },
    { component = "bmc", url = "http://images.invalid/bmc-9.8.7.bin" },
  ]
}

data "baremetal_firmware" "after" {
  host_id = baremetal_firmware_update.u.id
  bmc     = baremetal_firmware_update.u.bmc
}

data "baremetal_firmware" "ironic" {
  host_id = baremetal_firmware_update.u.id
}
`
	}
	const failure = "Image signature verification failed (simulated BMC)"
	ironic := acctest.IronicAtLeast(t, "1.86")
	// Without bmc the data source reads Ironic's firmware API, which
	// 2023.1 does not have.
	method, source, ironicBIOS := "redfish", "none", ""
	if ironic {
		method, source, ironicBIOS = "ironic", "ironic", "3.1.4"
	}
	first := []resource.TestCheckFunc{
		resource.TestCheckResourceAttr("baremetal_firmware_update.u", "method", method),
		resource.TestCheckResourceAttr("baremetal_firmware_update.u", "results.0.version", "3.1.4"),
		resource.TestCheckResourceAttr("baremetal_firmware_update.u", "versions.bios", "3.1.4"),
		resource.TestCheckResourceAttr("baremetal_firmware_update.u", "versions.bmc", "9.8.7"),
		resource.TestCheckResourceAttr("data.baremetal_firmware.after", "source", "redfish"),
		resource.TestCheckResourceAttr("data.baremetal_firmware.after", "bios_version", "3.1.4"),
		resource.TestCheckResourceAttr("data.baremetal_firmware.ironic", "source", source),
		resource.TestCheckResourceAttr("data.baremetal_firmware.ironic", "bios_version", ironicBIOS),
		acctest.NodeCheck(t, name, func(n *nodes.Node) error {
			if n.ProvisionState != "available" || n.Maintenance {
				return fmt.Errorf("node %s, maintenance %v (%s)", n.ProvisionState, n.Maintenance, n.MaintenanceReason)
			}
			return nil
		}),
		func(*terraform.State) error {
			t.Logf("%s: method %s, Ironic states %v", name, method, states.seen())
			return nil
		},
	}
	var steps []resource.TestStep
	if ironic {
		first = append(first, states.passedThrough("available", "manageable", "cleaning", "clean wait", "cleaning", "available"))
	} else {
		steps = append(steps, resource.TestStep{
			Config:      update("ironic", "3.1.4"),
			ExpectError: regexp.MustCompile(`(?s)Ironic has no firmware API.*method\s+=\s+"ironic".*1\.86`),
		})
	}
	steps = append(steps,
		resource.TestStep{Config: update("", "3.1.4"), Check: resource.ComposeAggregateTestCheckFunc(first...)},
		resource.TestStep{
			PreConfig: func() {
				if err := srv.SetFaults("sys-0", sim.Faults{UpdateFailure: failure}); err != nil {
					t.Fatal(err)
				}
			},
			Config: update("", "3.1.5"),
			ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(name) + `.*` +
				strings.Join(strings.Fields(regexp.QuoteMeta(failure)), `\s+`)),
		},
	)
	recordedTest(t, name, states, steps)
}
