package agent

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kdomanski/iso9660"
)

// fakeIronic answers the ramdisk API like Ironic 21.4: lookup finds the
// node only while waiting is set and hands out a token once per boot;
// heartbeats must carry it.
type fakeIronic struct {
	t  *testing.T
	mu sync.Mutex
	// waiting: the node is in a state where lookup answers.
	waiting    bool
	token      string
	tokens     int
	lookups    chan string
	heartbeats chan map[string]string
}

const nodeUUID = "11111111-2222-4333-8444-555555555555"

func newFakeIronic(t *testing.T) (*fakeIronic, *httptest.Server) {
	f := &fakeIronic{t: t, waiting: true, lookups: make(chan string, 100), heartbeats: make(chan map[string]string, 100)}
	m := http.NewServeMux()
	m.HandleFunc("GET /v1/lookup", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-OpenStack-Ironic-API-Version") == "" {
			t.Errorf("lookup without an API version header")
		}
		f.lookups <- r.URL.Query().Get("addresses")
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.waiting || !strings.Contains(r.URL.Query().Get("addresses"), "52:54:00:00:00:01") {
			http.Error(w, `{"error_message": "not found"}`, http.StatusNotFound)
			return
		}
		tok := "******"
		if f.token == "" {
			f.tokens++
			f.token = fmt.Sprintf("token-%d", f.tokens)
			tok = f.token
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"node":   map[string]any{"uuid": nodeUUID},
			"config": map[string]any{"heartbeat_timeout": 300, "agent_token": tok, "agent_token_required": true},
		})
	})
	m.HandleFunc("POST /v1/heartbeat/{node}", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		ok := r.PathValue("node") == nodeUUID && body["agent_token"] == f.token && f.token != ""
		f.mu.Unlock()
		if !ok {
			http.Error(w, `{"error_message": "Invalid or missing agent token received."}`, http.StatusUnauthorized)
			return
		}
		f.heartbeats <- body
		w.WriteHeader(http.StatusAccepted)
	})
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return f, srv
}

// reboot forgets the token, as Ironic does when it powers a node off.
func (f *fakeIronic) reboot() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token = ""
}

type fakeMachine struct {
	mu       sync.Mutex
	powerOff chan struct{}
	bios     map[string]any
}

func (m *fakeMachine) MACs() []string { return []string{"52:54:00:00:00:01", "52:54:00:00:00:02"} }
func (m *fakeMachine) PowerOff()      { m.powerOff <- struct{}{} }
func (m *fakeMachine) Reboot()        {}
func (m *fakeMachine) SetPendingBIOS(s map[string]any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bios = s
	return nil
}
func (m *fakeMachine) Inventory() Inventory {
	return Inventory{Interfaces: []Interface{{Name: "eno1", MACAddress: "52:54:00:00:00:01"}}, Boot: Boot{PXEInterface: "52:54:00:00:00:01"},
		Disks: []Disk{{Name: "/dev/sda", Size: 500 << 30}}, CPU: CPU{Count: 8, Architecture: "x86_64"}, Memory: Memory{PhysicalMB: 16384}}
}

func startAgent(t *testing.T, ironicURL string, mod func(*Config)) (*Agent, *fakeMachine) {
	t.Helper()
	cfg := Config{IronicURL: ironicURL, LookupInterval: 20 * time.Millisecond, LookupTimeout: 10 * time.Second, MaxHeartbeatInterval: 100 * time.Millisecond, Logf: t.Logf}
	if mod != nil {
		mod(&cfg)
	}
	m := &fakeMachine{powerOff: make(chan struct{}, 10)}
	a, err := New(cfg, "sys-0", m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a, m
}

// bootedAgent powers on an agent that looks itself up in a new fake
// Ironic, and returns it, its machine, the fake, and a conductor that
// talks to it from its first heartbeat on.
func bootedAgent(t *testing.T) (*Agent, *fakeMachine, *fakeIronic, *conductor) {
	t.Helper()
	ironic, isrv := newFakeIronic(t)
	a, m := startAgent(t, isrv.URL, nil)
	a.PowerOn()
	hb := recv(t, ironic.heartbeats, "heartbeat")
	return a, m, ironic, &conductor{t: t, url: hb["callback_url"], token: hb["agent_token"]}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// conductor plays Ironic's side of the command API.
type conductor struct {
	t     *testing.T
	url   string
	token string
}

func (c *conductor) command(name string, params map[string]any, wait bool) (int, Command) {
	c.t.Helper()
	raw, _ := json.Marshal(map[string]any{"name": name, "params": params})
	resp, err := http.Post(fmt.Sprintf("%s/v1/commands/?wait=%t&agent_token=%s", c.url, wait, c.token), "application/json", bytes.NewReader(raw))
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	var out Command
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// run executes an async command and polls the command list until it
// finishes, as Ironic's heartbeat processing does.
func (c *conductor) run(name string, params map[string]any) Command {
	c.t.Helper()
	code, cmd := c.command(name, params, false)
	if code != http.StatusOK {
		c.t.Fatalf("%s: HTTP %d", name, code)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for _, got := range c.commands() {
			if got.ID == cmd.ID && got.Status != "RUNNING" {
				return got
			}
		}
		time.Sleep(10 * time.Millisecond) // polling the agent, as Ironic does
	}
	c.t.Fatalf("%s did not finish", name)
	return Command{}
}

func (c *conductor) commands() []Command {
	c.t.Helper()
	resp, err := http.Get(c.url + "/v1/commands/")
	if err != nil {
		c.t.Fatalf("list commands: %v", err)
	}
	defer resp.Body.Close()
	var out struct{ Commands []Command }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return out.Commands
}

// configDrive builds what Ironic sends: base64 of a gzipped ISO 9660 image
// labelled config-2.
func configDrive(t *testing.T, files map[string]string) string {
	t.Helper()
	w, err := iso9660.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Cleanup()
	for name, content := range files {
		if err := w.AddFile(strings.NewReader(content), name); err != nil {
			t.Fatal(err)
		}
	}
	var iso bytes.Buffer
	if err := w.WriteTo(&iso, "config-2"); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(iso.Bytes())
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(gz.Bytes())
}

func imageServer(t *testing.T, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/img.qcow2" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/img.qcow2"
}

const networkData = `{"links":[{"id":"enp1s0","type":"phy","ethernet_mac_address":"52:54:00:00:00:01"}],"networks":[{"id":"prov","link":"enp1s0","type":"ipv4","ip_address":"192.0.2.10","netmask":"255.255.255.0"}],"services":[]}`

func writeImageParams(t *testing.T, url, sum string) map[string]any {
	cd := configDrive(t, map[string]string{
		"openstack/latest/meta_data.json":    `{"uuid": "` + nodeUUID + `", "name": "host-0"}`,
		"openstack/latest/user_data":         "#cloud-config\nhostname: host-0\n",
		"openstack/latest/network_data.json": networkData,
	})
	info := map[string]any{"id": "img.qcow2", "urls": []any{url}, "disk_format": "qcow2", "os_hash_algo": "sha256", "os_hash_value": sum, "node_uuid": nodeUUID}
	return map[string]any{"step": map[string]any{"interface": "deploy", "step": "write_image", "args": map[string]any{"image_info": info, "configdrive": cd}}}
}

// A deploy as Ironic drives it: lookup with the MACs, heartbeat with the
// token, deploy steps, write_image (real download, sha256 checked, config
// drive decoded), partition UUIDs, bootloader, power off; the next
// power-on boots the instance, with no agent.
func TestDeploy(t *testing.T) {
	ironic, isrv := newFakeIronic(t)
	a, m := startAgent(t, isrv.URL, nil)
	img := []byte("QFI\xfb simulated qcow2 image")
	sum := sha256.Sum256(img)
	url := imageServer(t, img)

	a.PowerOn()
	if got := recv(t, ironic.lookups, "lookup"); got != "52:54:00:00:00:01,52:54:00:00:00:02" {
		t.Errorf("lookup addresses %q", got)
	}
	hb := recv(t, ironic.heartbeats, "heartbeat")
	if hb["callback_url"] != a.URL() || hb["agent_version"] != Version || hb["agent_token"] != "token-1" {
		t.Fatalf("heartbeat %v", hb)
	}
	c := &conductor{t: t, url: hb["callback_url"], token: hb["agent_token"]}

	_, steps := c.command("deploy.get_deploy_steps", map[string]any{}, true)
	if steps.Status != "SUCCEEDED" || !strings.Contains(fmt.Sprint(steps.Result), "write_image") || !strings.Contains(fmt.Sprint(steps.Result), "custom_deploy") {
		t.Fatalf("get_deploy_steps: %+v", steps)
	}
	done := c.run("deploy.execute_deploy_step", writeImageParams(t, url, hex.EncodeToString(sum[:])))
	if done.Status != "SUCCEEDED" || done.Name != "execute_deploy_step" {
		t.Fatalf("write_image: %+v (%+v)", done, done.Error)
	}
	res, _ := done.Result.(map[string]any)
	if st, _ := res["deploy_step"].(map[string]any); st["step"] != "write_image" {
		t.Errorf("deploy_result step %v", res)
	}
	_, parts := c.command("standby.get_partition_uuids", map[string]any{}, true)
	if r, _ := parts.Result.(map[string]any); r["root uuid"] == "" || r["root uuid"] == nil {
		t.Errorf("partition uuids %+v", parts)
	}
	if bl := c.run("image.install_bootloader", map[string]any{"root_uuid": "0x5e1f0001", "target_boot_mode": "uefi"}); bl.Status != "SUCCEEDED" {
		t.Errorf("install_bootloader %+v", bl)
	}
	if off := c.run("standby.power_off", map[string]any{}); off.Status != "SUCCEEDED" {
		t.Errorf("power_off %+v", off)
	}
	recv(t, m.powerOff, "the agent powering the system off")
	a.PowerOff()

	rec := a.Record()
	if rec.Image == nil || rec.Image.Verdict != "match" || rec.Image.Algorithm != "sha256" || rec.Image.Bytes != int64(len(img)) || rec.Image.URL != url {
		t.Errorf("image record %+v", rec.Image)
	}
	cd := rec.ConfigDrive
	if cd == nil || cd.Error != "" || string(cd.NetworkData) != networkData || cd.UserData != "#cloud-config\nhostname: host-0\n" ||
		!strings.Contains(string(cd.MetaData), `"name":"host-0"`) || cd.Label != "config-2" {
		t.Errorf("config drive record %+v", cd)
	}
	if rec.Bootloader["target_boot_mode"] != "uefi" || rec.NodeUUID != nodeUUID {
		t.Errorf("record %+v", rec)
	}

	// The instance boots from disk: no lookup, nothing listens.
	ironic.reboot()
	a.PowerOn()
	if r := a.Record(); r.InstanceBoots != 1 || r.Running {
		t.Errorf("after deploy the next boot should be the instance: %+v", r)
	}
	if resp, err := http.Get(a.URL() + "/v1/commands/"); err == nil {
		resp.Body.Close()
		t.Errorf("the agent API answers while the instance runs")
	}
}

// A wrong checksum fails write_image as IPA does, naming both sums.
func TestChecksumMismatch(t *testing.T) {
	url := imageServer(t, []byte("image"))
	a, _, _, c := bootedAgent(t)
	wrong := strings.Repeat("0", 64)
	done := c.run("deploy.execute_deploy_step", writeImageParams(t, url, wrong))
	if done.Status != "FAILED" || done.Error == nil || done.Error.Type != "ImageChecksumError" ||
		!strings.Contains(done.Error.Details, "Image failed to verify against checksum") || !strings.Contains(done.Error.Details, wrong) {
		t.Fatalf("want ImageChecksumError, got %+v %+v", done, done.Error)
	}
	if rec := a.Record(); rec.Image.Verdict != "mismatch" || rec.ConfigDrive != nil {
		t.Errorf("record %+v", rec)
	}
	if _, logs := c.command("log.collect_system_logs", nil, true); !strings.Contains(fmt.Sprint(logs.Result), "system_logs") {
		t.Errorf("collect_system_logs %+v", logs)
	}
}

// Servicing that boots the agent asks for its service steps (Ironic fails
// the servicing when the answer lacks service_steps or
// hardware_manager_version) and may run one.
func TestServiceSteps(t *testing.T) {
	a, _, _, c := bootedAgent(t)
	_, steps := c.command("service.get_service_steps", map[string]any{}, true)
	res, _ := steps.Result.(map[string]any)
	if _, ok := res["service_steps"].(map[string]any)[hardwareManager]; !ok || res["hardware_manager_version"] == nil {
		t.Fatalf("service steps %+v", steps)
	}
	done := c.run("service.execute_service_step", map[string]any{"step": map[string]any{"interface": "deploy", "step": "erase_devices_metadata"}})
	if done.Status != "SUCCEEDED" || !slices.Equal(a.Record().ServiceSteps, []string{"deploy.erase_devices_metadata"}) {
		t.Fatalf("execute_service_step %+v, record %v", done, a.Record().ServiceSteps)
	}
	if bad := c.run("service.execute_service_step", map[string]any{"step": map[string]any{"interface": "deploy", "step": "write_image"}}); bad.Status != "FAILED" {
		t.Errorf("an unknown service step: %+v", bad)
	}
}

// Every power-on is a fresh agent: a new lookup and token, an empty
// command list; the old token is refused. Cleaning steps run.
func TestFreshAgentPerBoot(t *testing.T) {
	a, m, ironic, c := bootedAgent(t)
	_, steps := c.command("clean.get_clean_steps", map[string]any{}, true)
	if !strings.Contains(fmt.Sprint(steps.Result), "erase_devices_metadata") {
		t.Fatalf("clean steps %+v", steps)
	}
	done := c.run("clean.execute_clean_step", map[string]any{"step": map[string]any{"interface": "deploy", "step": "erase_devices_metadata"}})
	if done.Status != "SUCCEEDED" {
		t.Fatalf("erase_devices_metadata %+v", done)
	}
	bios := c.run("clean.execute_clean_step", map[string]any{"step": map[string]any{"interface": "bios", "step": "apply_configuration",
		"args": map[string]any{"settings": []any{map[string]any{"name": "NumLock", "value": "Off"}}}}})
	if bios.Status != "SUCCEEDED" || m.bios["NumLock"] != "Off" {
		t.Fatalf("bios apply %+v, machine got %v", bios, m.bios)
	}

	a.PowerOff()
	ironic.reboot()
	for len(ironic.heartbeats) > 0 {
		<-ironic.heartbeats
	}
	a.PowerOn()
	hb2 := recv(t, ironic.heartbeats, "heartbeat after reboot")
	if hb2["agent_token"] != "token-2" {
		t.Errorf("second boot token %q, want a new one", hb2["agent_token"])
	}
	if got := c.commands(); len(got) != 0 {
		t.Errorf("a fresh agent has no commands, got %d", len(got))
	}
	if code, _ := c.command("clean.get_clean_steps", map[string]any{}, true); code != http.StatusUnauthorized {
		t.Errorf("old token: HTTP %d, want 401", code)
	}
	if rec := a.Record(); rec.Boots != 2 || rec.ErasedMetadata != 1 || len(rec.CleanSteps) != 2 {
		t.Errorf("record %+v", rec)
	}
}

// Faults: a failing command, a failing download, stopped heartbeats.
func TestFaults(t *testing.T) {
	url := imageServer(t, []byte("image"))
	a, _, ironic, c := bootedAgent(t)

	a.SetFaults(Faults{FailCommand: "erase_devices_metadata", FailMessage: "disk on fire"})
	done := c.run("clean.execute_clean_step", map[string]any{"step": map[string]any{"interface": "deploy", "step": "erase_devices_metadata"}})
	if done.Status != "FAILED" || done.Error.Details != "disk on fire" {
		t.Errorf("injected failure %+v %+v", done, done.Error)
	}
	a.SetFaults(Faults{DownloadFail: true})
	done = c.run("deploy.execute_deploy_step", writeImageParams(t, url, strings.Repeat("0", 64)))
	if done.Status != "FAILED" || done.Error.Type != "ImageDownloadError" || !strings.Contains(done.Error.Details, "Download of image img.qcow2 failed") {
		t.Errorf("download fault %+v %+v", done, done.Error)
	}

	a.SetFaults(Faults{HeartbeatStopped: true})
	for len(ironic.heartbeats) > 0 {
		<-ironic.heartbeats
	}
	select {
	case <-ironic.heartbeats:
		// One heartbeat may have been on its way when the fault was set.
		select {
		case h := <-ironic.heartbeats:
			t.Fatalf("heartbeats go on with heartbeat_stopped: %v", h)
		case <-time.After(500 * time.Millisecond): // 5 heartbeat intervals of silence
		}
	case <-time.After(500 * time.Millisecond):
	}
	a.SetFaults(Faults{})
	recv(t, ironic.heartbeats, "heartbeat after the fault is cleared")
}

// A host Ironic does not wait for finds nothing and stays quiet.
func TestLookupFindsNothing(t *testing.T) {
	ironic, isrv := newFakeIronic(t)
	ironic.waiting = false
	a, _ := startAgent(t, isrv.URL, func(c *Config) { c.LookupTimeout = 100 * time.Millisecond })
	a.PowerOn()
	recv(t, ironic.lookups, "lookup")
	for deadline := time.Now().Add(5 * time.Second); ; {
		rec := a.Record()
		if n := len(rec.Events); n > 0 && strings.Contains(rec.Events[n-1], "booting from disk") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never gave up: %v", rec.Events)
		}
		time.Sleep(20 * time.Millisecond) // polling the record
	}
	if len(ironic.heartbeats) != 0 {
		t.Errorf("heartbeats without a node")
	}
}

// RAID clean steps keep the node's target configuration; a slow download
// keeps write_image RUNNING until it finishes.
func TestRAIDAndSlowDownload(t *testing.T) {
	img := []byte("image")
	sum := sha256.Sum256(img)
	url := imageServer(t, img)
	a, _, _, c := bootedAgent(t)

	raid := map[string]any{"logical_disks": []any{map[string]any{"size_gb": "MAX", "raid_level": "1", "is_root_volume": true}}}
	done := c.run("clean.execute_clean_step", map[string]any{"step": map[string]any{"interface": "raid", "step": "create_configuration"},
		"node": map[string]any{"target_raid_config": raid}})
	if res, _ := done.Result.(map[string]any); done.Status != "SUCCEEDED" || fmt.Sprint(res["clean_result"]) != fmt.Sprint(raid) {
		t.Fatalf("create_configuration %+v", done)
	}
	if r := a.Record(); fmt.Sprint(r.RAID) != fmt.Sprint(raid) {
		t.Errorf("raid record %v", r.RAID)
	}
	if done = c.run("clean.execute_clean_step", map[string]any{"step": map[string]any{"interface": "raid", "step": "delete_configuration"}}); done.Status != "SUCCEEDED" || a.Record().RAID != nil {
		t.Errorf("delete_configuration %+v, record %v", done, a.Record().RAID)
	}

	a.SetFaults(Faults{DownloadDelay: 500 * time.Millisecond})
	code, started := c.command("deploy.execute_deploy_step", writeImageParams(t, url, hex.EncodeToString(sum[:])), false)
	if code != http.StatusOK || started.Status != "RUNNING" {
		t.Fatalf("a slow write_image answers RUNNING at first: HTTP %d %+v", code, started)
	}
	if busy, _ := c.command("standby.sync", nil, false); busy != http.StatusConflict {
		t.Errorf("a command while write_image runs: HTTP %d, want 409 (agent is busy)", busy)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		cmds := c.commands()
		if last := cmds[len(cmds)-1]; last.Status == "SUCCEEDED" {
			break
		} else if last.Status == "FAILED" || time.Now().After(deadline) {
			t.Fatalf("slow write_image: %+v", last)
		}
		time.Sleep(20 * time.Millisecond) // polling, as Ironic does
	}
}
