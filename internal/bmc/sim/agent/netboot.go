package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The network boot path: what a host's firmware and iPXE do when its BMC
// was asked to boot from the network (BootSourceOverrideTarget Pxe), up to
// the ramdisk's start.
//
// The simulated network's DHCP points iPXE at {Config.BootURL}/boot.ipxe,
// the script Ironic's ipxe and pxe boot interfaces write into http_root
// at start. The script chains pxelinux.cfg/{MAC} (iPXE's ${mac:hexhyp}:
// lower-case hex, hyphens) for each NIC in turn; Ironic writes that file
// for the node's ports while it wants the node in its ramdisk (inspection,
// cleaning, deploy), and removes it afterwards. The config's deploy section
// names the deploy kernel and ramdisk (Ironic's copies under http_url) and
// the kernel command line, whose ipa-api-url tells the agent where Ironic
// is and ipa-inspection-callback-url where to post its inventory.
//
// A host without a config for any of its NICs has nothing to boot: it
// stays silent, as a real one sits at iPXE's "No configuration found"
// prompt. So does one whose kernel or ramdisk cannot be downloaded, whose
// kernel is of another architecture, or whose network has no DHCP.

// NetworkBoot is what one network boot fetched and decided.
type NetworkBoot struct {
	// Script is the URL of iPXE's boot script.
	Script string `json:"script"`
	// Tried are the per-MAC config URLs chained, in order; ConfigURL is
	// the one found and Config its content.
	Tried     []string `json:"tried"`
	ConfigURL string   `json:"config_url,omitempty"`
	Config    string   `json:"config,omitempty"`
	// MAC is the NIC the config was found for.
	MAC string `json:"mac,omitempty"`
	// Kernel and Ramdisk are the URLs the config boots, KernelArch the
	// architecture read from the kernel, KernelParams its command line
	// (iPXE's ${mac} expanded).
	Kernel       string `json:"kernel,omitempty"`
	KernelArch   string `json:"kernel_arch,omitempty"`
	Ramdisk      string `json:"ramdisk,omitempty"`
	KernelParams string `json:"kernel_params,omitempty"`
	// APIURL is ipa-api-url, InspectionCallbackURL
	// ipa-inspection-callback-url (empty when the command line has none).
	APIURL                string `json:"api_url,omitempty"`
	InspectionCallbackURL string `json:"inspection_callback_url,omitempty"`
	// Error says why the boot stopped before the agent ran.
	Error string `json:"error,omitempty"`
}

// Param returns kernel command line parameter key ("" when absent).
func (n NetworkBoot) Param(key string) string {
	for _, f := range strings.Fields(n.KernelParams) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// PowerOnNetwork is PowerOn for a boot from the network: with
// Config.BootURL the ramdisk starts only if iPXE finds a config for one of
// the system's NICs (see netbootPath); without it, as PowerOn. A network
// boot never boots the deployed instance from disk.
func (a *Agent) PowerOnNetwork() { a.powerOn(true) }

// netbootPath runs iPXE for boot b, recording what it fetched; it reports
// whether the ramdisk started, and then points b at the Ironic (and
// inspector) its kernel command line names.
func (a *Agent) netbootPath(b *boot) bool {
	nb := NetworkBoot{Script: strings.TrimRight(a.cfg.BootURL, "/") + "/boot.ipxe"}
	if err := a.chain(b.ctx, &nb); err != nil {
		nb.Error = err.Error()
	} else if nb.InspectionCallbackURL != "" {
		a.bootTime(b.ctx)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.current(b) {
		return false
	}
	a.rec.NetworkBoots = append(a.rec.NetworkBoots, nb)
	a.rec.DeployKernel, a.rec.DeployKernelArch = nb.Kernel, nb.KernelArch
	if nb.Error != "" {
		a.rec.BootRefused = "network boot: " + nb.Error
		a.rec.event("%s", a.rec.BootRefused)
		return false
	}
	// "mdns": IPA looks the service up by multicast DNS; the simulated
	// network announces the Ironic and inspector of Config. No
	// ipa-api-url (Ironic's inspection boot gives none): IPA's implicit
	// mDNS lookup finds nothing, and it only posts the inventory.
	b.api = nb.APIURL
	if b.api == "mdns" {
		b.api = a.cfg.IronicURL
	}
	// IPA posts its inventory only when asked to; the simulated network
	// has one inspector.
	b.inspect = false
	if cb := nb.InspectionCallbackURL; cb != "" {
		if want := a.cfg.InspectionURL(); want != "" && (cb == want || cb == "mdns") {
			b.inspect = true
		} else {
			a.rec.event("ipa-inspection-callback-url %s is not this network's inspection endpoint (%q): no inventory posted", cb, want)
		}
	}
	a.rec.BootRefused = ""
	a.rec.event("network boot: %s booted %s and %s (ipa-api-url %s)", nb.ConfigURL, nb.Kernel, nb.Ramdisk, nb.APIURL)
	return true
}

// bootTime stands for the tens of seconds a real ramdisk takes to boot:
// by the time it posts its inventory, the conductor has long finished the
// power-on it did while "inspecting" and moved the node to "inspect wait"
// (inspector's processing fails the inspection if the node is still
// "inspecting"). The simulated ramdisk boots at once, so it waits for that,
// asking Ironic at LookupInterval as its lookups do, for at most
// LookupTimeout.
func (a *Agent) bootTime(ctx context.Context) {
	m, err := a.media(ctx)
	if err != nil || m.node == "" {
		return
	}
	for deadline := time.Now().Add(a.cfg.LookupTimeout); time.Now().Before(deadline); {
		var n struct {
			ProvisionState string `json:"provision_state"`
		}
		if err := a.getIronic(ctx, "/v1/nodes/"+url.PathEscape(m.node)+"?fields=provision_state", &n); err != nil || n.ProvisionState != "inspecting" {
			return
		}
		if !sleep(ctx, a.cfg.LookupInterval) {
			return
		}
	}
}

// chainRe finds the per-MAC chain of Ironic's boot.ipxe: "chain
// PREFIX${mac:hexhyp}" (or ${net${netid}/mac:hexhyp}).
var chainRe = regexp.MustCompile(`chain\s+(\S*?)\$\{(?:mac|net\$\{netid\}/mac):hexhyp\}`)

// chain does iPXE's part of the boot: script, per-MAC config, kernel and
// ramdisk downloads.
func (a *Agent) chain(ctx context.Context, nb *NetworkBoot) error {
	if a.cfg.DHCPLess {
		return fmt.Errorf("no DHCP on this network: PXE gets no address")
	}
	script, err := a.fetch(ctx, nb.Script, 64<<10)
	if err != nil {
		return fmt.Errorf("boot script: %w", err)
	}
	m := chainRe.FindStringSubmatch(string(script))
	if m == nil {
		return fmt.Errorf("boot script %s chains no per-MAC config", nb.Script)
	}
	prefix, err := resolve(nb.Script, m[1])
	if err != nil {
		return err
	}
	var config []byte
	for _, mac := range a.m.MACs() {
		u := prefix + strings.ReplaceAll(strings.ToLower(mac), ":", "-")
		nb.Tried = append(nb.Tried, u)
		c, err := a.fetch(ctx, u, 64<<10)
		if err == nil {
			nb.ConfigURL, nb.Config, nb.MAC, config = u, string(c), strings.ToLower(mac), c
			break
		}
		if ctx.Err() != nil {
			return err
		}
	}
	if config == nil {
		return fmt.Errorf("no configuration found for any of the NICs (%s): iPXE waits at its prompt", strings.Join(nb.Tried, ", "))
	}
	kernel, params, initrd, err := deploySection(string(config))
	if err != nil {
		return fmt.Errorf("%s: %w", nb.ConfigURL, err)
	}
	nb.KernelParams = strings.ReplaceAll(params, "${mac}", nb.MAC)
	if nb.Kernel, err = resolve(nb.ConfigURL, kernel); err != nil {
		return err
	}
	if nb.Ramdisk, err = resolve(nb.ConfigURL, initrd); err != nil {
		return err
	}
	head, err := a.fetch(ctx, nb.Kernel, 1024)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	nb.KernelArch = KernelArch(head)
	if arch := a.m.Inventory().CPU.Architecture; nb.KernelArch != "" && arch != "" && nb.KernelArch != arch {
		return fmt.Errorf("deploy kernel %s is %s, the system is %s: the ramdisk does not boot", nb.Kernel, nb.KernelArch, arch)
	}
	if _, err := a.fetch(ctx, nb.Ramdisk, 1024); err != nil {
		return fmt.Errorf("ramdisk: %w", err)
	}
	nb.APIURL = nb.Param("ipa-api-url")
	nb.InspectionCallbackURL = nb.Param("ipa-inspection-callback-url")
	if nb.APIURL == "" && nb.InspectionCallbackURL == "" {
		return fmt.Errorf("the kernel command line has neither ipa-api-url nor ipa-inspection-callback-url: the agent has nothing to talk to")
	}
	return nil
}

// deploySection reads the section an Ironic iPXE config jumps to first
// ("goto deploy"): its kernel URL and parameters and its initrd URL.
func deploySection(config string) (kernel, params, initrd string, err error) {
	lines := strings.Split(config, "\n")
	label := ""
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "goto" {
			label = f[1]
			break
		}
	}
	if label == "" {
		return "", "", "", fmt.Errorf("no goto in the config")
	}
	in := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, ":") {
			if in {
				break
			}
			in = l == ":"+label
			continue
		}
		if !in {
			continue
		}
		l, _, _ = strings.Cut(l, "||")
		f := strings.Fields(l)
		if len(f) > 2 && f[1] == "--timeout" {
			f = append(f[:1], f[3:]...)
		}
		switch {
		case len(f) >= 2 && f[0] == "kernel":
			kernel, params = f[1], strings.Join(f[2:], " ")
		case len(f) >= 2 && f[0] == "initrd":
			initrd = f[1]
		}
	}
	if kernel == "" || initrd == "" {
		return "", "", "", fmt.Errorf("section :%s boots no kernel and initrd (kernel %q, initrd %q)", label, kernel, initrd)
	}
	return kernel, params, initrd, nil
}

// resolve resolves ref against base, as iPXE resolves a relative URI
// against the script's.
func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("URI %q: %w", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}

// fetch GETs u and reads up to n bytes; anything but 200 is an error.
func (a *Agent) fetch(ctx context.Context, u string, n int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, n))
}
