package agent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// bootServer plays the rig's boot HTTP server: a boot script that chains
// pxelinux.cfg/${mac:hexhyp} and, per MAC, the configs in configs (the
// string "{boot}" is replaced by the server's URL), a kernel of kernelArch
// and a ramdisk; it records the paths asked for.
type bootServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newBootServer(t *testing.T, configs map[string]string, kernelArch string) *bootServer {
	b := &bootServer{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.paths = append(b.paths, r.URL.Path)
		b.mu.Unlock()
		switch p := r.URL.Path; {
		case p == "/boot.ipxe":
			_, _ = w.Write([]byte("#!ipxe\n:loop\ninc netid || chain pxelinux.cfg/${mac:hexhyp} || goto old_rom\n" +
				"chain pxelinux.cfg/${net${netid}/mac:hexhyp} || goto loop\n"))
		case strings.HasPrefix(p, "/pxelinux.cfg/"):
			c, ok := configs[strings.TrimPrefix(p, "/pxelinux.cfg/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(strings.ReplaceAll(c, "{boot}", b.URL)))
		case p == "/node/deploy_kernel":
			_, _ = w.Write(KernelFor(kernelArch))
		case p == "/node/deploy_ramdisk":
			_, _ = w.Write([]byte("initramfs"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(b.Close)
	return b
}

// ipxeConfig is a per-MAC config in the shape of Ironic's: a first goto to
// the deploy section, whose kernel line carries the agent's parameters.
func ipxeConfig(params string) string {
	return "#!ipxe\nset attempts:int32 10\ngoto deploy\n\n:deploy\nimgfree\n" +
		"kernel --timeout 60000 {boot}/node/deploy_kernel selinux=0 " + params + " BOOTIF=${mac} initrd=deploy_ramdisk || goto retry\n" +
		"initrd --timeout 60000 {boot}/node/deploy_ramdisk || goto retry\nboot\n\n:retry\ngoto deploy\n\n" +
		":boot_whole_disk\nsanboot --no-describe || exit 0\n"
}

// waitNetworkBoots polls the record until it holds n network boots.
func waitNetworkBoots(t *testing.T, a *Agent, n int) Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := a.Record()
		if len(r.NetworkBoots) >= n {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d network boots: %+v", n, r)
		}
		time.Sleep(10 * time.Millisecond) // polling the record
	}
}

// A network boot chains the config of the second NIC (the first has
// none), downloads its kernel and ramdisk, and the agent talks to the
// Ironic of ipa-api-url, not Config.IronicURL.
func TestNetworkBootChainsThePerMACConfig(t *testing.T) {
	f, ironic := newFakeIronic(t)
	f.mu.Lock()
	f.waiting = true
	f.mu.Unlock()
	boot := newBootServer(t, map[string]string{"52-54-00-00-00-02": ipxeConfig("ipa-api-url=" + ironic.URL + " ipa-inspection-callback-url=mdns")}, "x86_64")
	a, _ := startAgent(t, "http://127.0.0.1:1", func(c *Config) { c.BootURL = boot.URL })
	a.PowerOnNetwork()
	_ = recv(t, f.lookups, "lookup")
	r := waitNetworkBoots(t, a, 1)
	nb := r.NetworkBoots[0]
	if nb.Error != "" || nb.ConfigURL != boot.URL+"/pxelinux.cfg/52-54-00-00-00-02" || nb.MAC != "52:54:00:00:00:02" ||
		len(nb.Tried) != 2 || nb.Tried[0] != boot.URL+"/pxelinux.cfg/52-54-00-00-00-01" {
		t.Fatalf("network boot %+v", nb)
	}
	if nb.Kernel != boot.URL+"/node/deploy_kernel" || nb.Ramdisk != boot.URL+"/node/deploy_ramdisk" || nb.KernelArch != "x86_64" {
		t.Errorf("kernel %s (%s), ramdisk %s", nb.Kernel, nb.KernelArch, nb.Ramdisk)
	}
	if nb.APIURL != ironic.URL || nb.InspectionCallbackURL != "mdns" || nb.Param("BOOTIF") != "52:54:00:00:00:02" || nb.Param("selinux") != "0" {
		t.Errorf("kernel parameters %q: api %q, callback %q", nb.KernelParams, nb.APIURL, nb.InspectionCallbackURL)
	}
	if r.BootRefused != "" || r.DeployKernel != nb.Kernel {
		t.Errorf("boot refused %q, deploy kernel %q", r.BootRefused, r.DeployKernel)
	}
}

// Without a config for any NIC, with a kernel of another architecture, or
// without ipa-api-url, the ramdisk never starts: no lookup reaches Ironic.
func TestNetworkBootStalls(t *testing.T) {
	for name, c := range map[string]struct {
		configs map[string]string
		arch    string
		want    string
	}{
		"no config":    {nil, "x86_64", "no configuration found for any of the NICs"},
		"aarch64":      {map[string]string{"52-54-00-00-00-01": ipxeConfig("ipa-api-url={ironic}")}, "aarch64", "is aarch64, the system is x86_64"},
		"no api url":   {map[string]string{"52-54-00-00-00-01": ipxeConfig("nofb")}, "x86_64", "neither ipa-api-url nor ipa-inspection-callback-url"},
		"disk section": {map[string]string{"52-54-00-00-00-01": "#!ipxe\ngoto boot_whole_disk\n:boot_whole_disk\nsanboot --no-describe\n"}, "x86_64", "boots no kernel and initrd"},
	} {
		t.Run(name, func(t *testing.T) {
			f, ironic := newFakeIronic(t)
			for k, v := range c.configs {
				c.configs[k] = strings.ReplaceAll(v, "{ironic}", ironic.URL)
			}
			boot := newBootServer(t, c.configs, c.arch)
			a, _ := startAgent(t, ironic.URL, func(cfg *Config) { cfg.BootURL = boot.URL })
			a.PowerOnNetwork()
			r := waitNetworkBoots(t, a, 1)
			if !strings.Contains(r.NetworkBoots[0].Error, c.want) || !strings.Contains(r.BootRefused, c.want) {
				t.Errorf("network boot error %q, boot refused %q; want %q", r.NetworkBoots[0].Error, r.BootRefused, c.want)
			}
			if r.Lookups != 0 || len(f.lookups) != 0 {
				t.Errorf("%d lookups after a failed network boot", r.Lookups)
			}
		})
	}
}

// Without Config.BootURL a network boot starts the agent as any power-on.
func TestNetworkBootWithoutBootURL(t *testing.T) {
	f, ironic := newFakeIronic(t)
	a, _ := startAgent(t, ironic.URL, nil)
	a.PowerOnNetwork()
	_ = recv(t, f.lookups, "lookup")
	if r := a.Record(); len(r.NetworkBoots) != 0 {
		t.Errorf("network boots %+v without a boot URL", r.NetworkBoots)
	}
}

// Ironic's inspection boot gives ipa-inspection-callback-url (here mdns:
// the network's inspector) and no ipa-api-url: the ramdisk posts its
// inventory to the inspector and never looks its node up.
func TestNetworkBootInspectionOnly(t *testing.T) {
	posts := make(chan string, 10)
	insp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts <- r.Method + " " + r.URL.Path
		_, _ = w.Write([]byte(`{"uuid": "` + nodeUUID + `"}`))
	}))
	t.Cleanup(insp.Close)
	f, ironic := newFakeIronic(t)
	boot := newBootServer(t, map[string]string{"52-54-00-00-00-01": ipxeConfig("ipa-inspection-callback-url=mdns")}, "x86_64")
	a, _ := startAgent(t, ironic.URL, func(c *Config) { c.BootURL, c.InspectorURL = boot.URL, insp.URL })
	a.PowerOnNetwork()
	if got := recv(t, posts, "inventory post"); got != "POST /v1/continue" {
		t.Fatalf("inspector got %s", got)
	}
	for deadline := time.Now().Add(10 * time.Second); a.Record().Inspection == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("no inspection recorded: %+v", a.Record())
		}
		time.Sleep(10 * time.Millisecond) // polling the record
	}
	if r := a.Record(); r.Lookups != 0 || len(f.lookups) != 0 || r.NetworkBoots[0].APIURL != "" {
		t.Errorf("%d lookups from an inspection-only ramdisk (api url %q)", r.Lookups, r.NetworkBoots[0].APIURL)
	}
}
