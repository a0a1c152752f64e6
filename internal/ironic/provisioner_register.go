package ironic

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// nodeBody is a node create request built as a map, so that any interface
// named in BMCAccess.Interfaces can be set.
type nodeBody map[string]any

func (b nodeBody) ToNodeCreateMap() (map[string]any, error) { return b, nil }

// Register finds or creates the node, brings it in line with the spec and
// moves it from enroll to manageable (BMO REG ironicProvisioner.Register, inspectInterfaceForMode, enrollNode, createPortsForNode, IR ironicProvisioner.findExistingHost, createNodePort, configureNode).
func (p *Provisioner) Register(ctx context.Context, h *lifecycle.Host, credentialsChanged, restartOnFailure bool) (lifecycle.Result, string, error) {
	// Pre-checks (registration errors).
	if err := p.api().Require(lifecycle.FeatureDisablePowerOff, "disable_power_off"); h.Spec.DisablePowerOff && err != nil {
		return failed("", "", err.Error()), h.Status.ID, nil
	}
	if err := p.api().Require(lifecycle.FeatureShard, "shard"); h.Spec.Shard != "" && err != nil {
		return failed("", "", err.Error()), h.Status.ID, nil
	}
	if h.Spec.BMC.NeedsMAC && h.Spec.BootMACAddress == "" {
		return failed("", "", fmt.Sprintf("BMC driver %q requires a boot MAC address", h.Spec.BMC.Driver)), h.Status.ID, nil
	}

	h, msg, err := p.withInspectInterface(ctx, h)
	if err != nil || msg != "" {
		return failed("", "", msg), h.Status.ID, err
	}

	node, res, err := p.findForRegister(ctx, h)
	if err != nil || res.ErrorMessage != "" {
		return res, h.Status.ID, err
	}
	if node != nil {
		if err := p.checkStall(ctx, h, node); err != nil {
			return lifecycle.Result{Verb: "manage", ProvisionState: node.ProvisionState}, node.UUID, err
		}
	}

	if node == nil {
		if !h.Spec.BMC.HasCredentials() {
			return failed("", "", "no BMC driver and credentials to register the host with"), "", nil
		}
		node, err = p.createNode(ctx, p.withSupportedInterfaces(h))
		if err != nil {
			return lifecycle.Result{Verb: "create"}, "", err
		}
		p.credsWritten.Store(node.UUID, h.Spec.BMC.CredentialsVersion)
		// The node exists from here on: always return its id.
		if res, err := p.setTraits(ctx, h, node); err != nil || res.Dirty {
			return res, node.UUID, err
		}
	} else {
		found := node
		var ok bool
		// Credentials this process already wrote to the node (it created
		// the node with them a pass ago) are not written again.
		version := h.Spec.BMC.CredentialsVersion
		rewrite := credentialsChanged && (version == "" || p.credsWrittenWith(node.UUID) != version)
		patch := registerPatch(node, p.withSupportedInterfaces(h), rewrite)
		node, res, ok, err = p.update(ctx, h, node, "update", patch)
		if !ok {
			// update returns no node on 409 or an error: report the one
			// found (by name or MAC, the host may not know its id yet).
			return res, found.UUID, err
		}
		if rewrite {
			p.credsWritten.Store(node.UUID, version)
		}
		if res, err := p.setTraits(ctx, h, node); err != nil || res.Dirty {
			return res, node.UUID, err
		}
	}
	synced, res, ok, err := p.syncBoot(ctx, h, node)
	if !ok {
		return res, node.UUID, err
	}
	node = synced
	id := node.UUID

	if res, err := p.ensureBootPort(ctx, h, node); err != nil || res.Dirty || res.ErrorMessage != "" {
		return res, id, err
	}

	switch node.ProvisionState {
	case psEnroll:
		if h.Spec.Desired == lifecycle.DesiredEnroll {
			// An adopted node kept in enroll: not verified.
			logDebug(ctx, "registered, left in enroll", h, node, "")
			return done("", node.ProvisionState), id, nil
		}
		// New credentials deserve a new attempt, but only one: the
		// credentials stay "changed" until a registration succeeds, so
		// without remembering the attempt a BMC that rejects them would
		// have manage retried until the timeout.
		version := h.Spec.BMC.CredentialsVersion
		triedThese := version != "" && p.manageTriedWith(node.UUID) == version
		if node.LastError != "" && (!credentialsChanged || triedThese) && !restartOnFailure && !interrupted(node) {
			logInfo(ctx, "registration failed", h, node, "manage")
			return failed("manage", node.ProvisionState, node.LastError), id, nil
		}
		res, started, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		if started {
			p.manageTried.Store(node.UUID, version)
		}
		return res, id, err
	case psVerifying:
		logDebug(ctx, "waiting for verification", h, node, "manage")
		return p.continuing("manage", node.ProvisionState, p.fastPoll), id, nil
	}

	// configureNode: automated_clean follows automatedCleaningMode.
	want := h.Spec.AutomatedCleaningMode != lifecycle.CleaningDisabled
	if node.AutomatedClean == nil || *node.AutomatedClean != want {
		_, res, ok, err := p.update(ctx, h, node, "update", nodes.UpdateOpts{
			nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/automated_clean", Value: want},
		})
		if !ok {
			return res, id, err
		}
	}
	logDebug(ctx, "registered", h, node, "")
	return done("", node.ProvisionState), id, nil
}

// findForRegister looks the node up by Status.ID, then Spec.Name, then a
// port with Spec.BootMACAddress. A node found by MAC that already has
// another name is a conflict (ErrorMessage).
func (p *Provisioner) findForRegister(ctx context.Context, h *lifecycle.Host) (*nodes.Node, lifecycle.Result, error) {
	node, err := p.lookup(ctx, h)
	if err != nil || node != nil {
		return node, lifecycle.Result{}, err
	}
	if h.Spec.BootMACAddress == "" {
		return nil, lifecycle.Result{}, nil
	}
	port, err := p.portByMAC(ctx, h.Spec.BootMACAddress)
	if err != nil || port == nil {
		return nil, lifecycle.Result{}, err
	}
	node, err = p.getNode(ctx, h, port.NodeUUID)
	if err != nil {
		return nil, lifecycle.Result{}, err
	}
	// A node that already carries another name belongs to another host.
	// (A host without a name adopts whatever node has its boot MAC.)
	if h.Spec.Name != "" && node.Name != "" && node.Name != h.Spec.Name {
		return nil, failed("", node.ProvisionState, fmt.Sprintf(
			"MAC address %s conflicts with existing node %s (%s)", h.Spec.BootMACAddress, node.Name, node.UUID)), nil
	}
	logInfo(ctx, "found node by boot MAC address", h, node, "")
	return node, lifecycle.Result{}, nil
}

func (p *Provisioner) portByMAC(ctx context.Context, mac string) (*ports.Port, error) {
	mac = strings.ToLower(mac)
	if p.w != nil {
		// One list of every port serves the lookups of all the hosts
		// registering at once.
		s, err := p.w.Ports(ctx, time.Now().Add(-passReadMaxAge), mac)
		if err != nil {
			return nil, fmt.Errorf("list ports (looking for address %s): %w", mac, err)
		}
		if pt, ok := s.byAddr[mac]; ok {
			return &pt, nil
		}
		return nil, nil
	}
	pages, err := ports.List(p.sc, ports.ListOpts{Address: mac, Fields: []string{"uuid", "address", "node_uuid"}}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list ports with address %s: %w", mac, err)
	}
	all, err := ports.ExtractPorts(pages)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, nil
	}
	return &all[0], nil
}

// createNode POSTs a new node (it starts in enroll).
func (p *Provisioner) createNode(ctx context.Context, h *lifecycle.Host) (*nodes.Node, error) {
	body := nodeBody{
		"driver":      h.Spec.BMC.Driver,
		"driver_info": h.Spec.BMC.DriverInfo,
		"properties":  map[string]any{"capabilities": BootModeCapabilities(h.Spec.BootMode)},
	}
	if h.Spec.Name != "" {
		body["name"] = h.Spec.Name
	}
	for k, v := range h.Spec.BMC.Interfaces {
		if v != "" {
			body[k] = v
		}
	}
	if h.Spec.ResourceClass != "" {
		body["resource_class"] = h.Spec.ResourceClass
	}
	if h.Spec.ConductorGroup != "" {
		body["conductor_group"] = h.Spec.ConductorGroup
	}
	if h.Spec.Shard != "" {
		body["shard"] = h.Spec.Shard
	}
	extra := map[string]any{}
	if len(h.Spec.Labels) > 0 {
		extra["labels"] = h.Spec.Labels
	}
	if h.Spec.OnlineSetting != "" {
		extra[lifecycle.OnlineSettingKey] = h.Spec.OnlineSetting
	}
	if eraseStepFor(h.Spec.AutomatedCleaningMode) != "" {
		extra[extraCleaningMode] = h.Spec.AutomatedCleaningMode
	}
	if len(extra) > 0 {
		body["extra"] = extra
	}
	if h.Spec.DisablePowerOff {
		body["disable_power_off"] = true
	}
	if h.Spec.AutomatedCleaningMode == lifecycle.CleaningDisabled {
		body["automated_clean"] = false
	} else {
		body["automated_clean"] = true
	}
	markManaged(body)
	tflog.Info(ctx, "creating node", map[string]any{"host": h.Spec.Name, "driver": h.Spec.BMC.Driver})
	n, err := nodes.Create(ctx, p.sc, body).Extract()
	if err == nil {
		p.wrote(ctx, h.Spec.Name, n.UUID)
	} else {
		p.wrote(ctx, h.Spec.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("create node %q: %s", h.Spec.Name, ironicError(err))
	}
	return n, nil
}

// registerPatch brings an existing node in line with the spec. driver_info
// (and the driver and interfaces that come with an address) is replaced
// only when the credentials changed: Ironic masks passwords, so there is
// nothing to compare against.
func registerPatch(node *nodes.Node, h *lifecycle.Host, credentialsChanged bool) nodes.UpdateOpts {
	var patch nodes.UpdateOpts
	add := func(path string, v any) {
		patch = append(patch, nodes.UpdateOperation{Op: nodes.AddOp, Path: path, Value: v})
	}
	if h.Spec.Name != "" && node.Name != h.Spec.Name {
		add("/name", h.Spec.Name)
	}
	caps := BootModeCapabilities(h.Spec.BootMode)
	if cur, _ := node.Properties["capabilities"].(string); cur != caps {
		add("/properties/capabilities", caps)
	}
	if node.ResourceClass != h.Spec.ResourceClass && !h.Spec.KeepResourceClass {
		if h.Spec.ResourceClass == "" {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/resource_class"})
		} else {
			add("/resource_class", h.Spec.ResourceClass)
		}
	}
	// Ironic stores conductor groups in lower case.
	if !strings.EqualFold(node.ConductorGroup, h.Spec.ConductorGroup) {
		add("/conductor_group", h.Spec.ConductorGroup)
	}
	if node.Shard != h.Spec.Shard {
		if h.Spec.Shard == "" {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/shard"})
		} else {
			add("/shard", h.Spec.Shard)
		}
	}
	if node.DisablePowerOff != h.Spec.DisablePowerOff { // Register refused true before 1.95
		add("/disable_power_off", h.Spec.DisablePowerOff)
	}
	curLabels := labelsOf(node)
	if !mapsEqual(curLabels, h.Spec.Labels) {
		if len(h.Spec.Labels) == 0 {
			if _, has := node.Extra["labels"]; has {
				patch = append(patch, nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/extra/labels"})
			}
		} else {
			add("/extra/labels", h.Spec.Labels)
		}
	}
	if h.Spec.OnlineSetting != "" && onlineSettingOf(node) != h.Spec.OnlineSetting {
		add("/extra/"+lifecycle.OnlineSettingKey, h.Spec.OnlineSetting)
	}
	patch = append(patch, cleaningModePatch(h, node)...)
	if credentialsChanged && h.Spec.BMC.HasCredentials() {
		if node.Driver != h.Spec.BMC.Driver {
			add("/driver", h.Spec.BMC.Driver)
		}
		keys := make([]string, 0, len(h.Spec.BMC.Interfaces))
		for k := range h.Spec.BMC.Interfaces {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := h.Spec.BMC.Interfaces[k]; v != "" && interfaceOf(node, k) != v {
				add("/"+k, v)
			}
		}
		add("/driver_info", h.Spec.BMC.DriverInfo)
	}
	return patch
}

// withSupportedInterfaces returns h, or a copy of it without the
// interfaces that the negotiated API does not know: the address schemes
// name a firmware interface, which Ironic has from 1.86.
func (p *Provisioner) withSupportedInterfaces(h *lifecycle.Host) *lifecycle.Host {
	if _, ok := h.Spec.BMC.Interfaces["firmware_interface"]; !ok ||
		has(p.sc, lifecycle.FeatureFirmware) {
		return h
	}
	c := *h
	c.Spec.BMC.Interfaces = make(map[string]string, len(h.Spec.BMC.Interfaces))
	for k, v := range h.Spec.BMC.Interfaces {
		if k != "firmware_interface" {
			c.Spec.BMC.Interfaces[k] = v
		}
	}
	return &c
}

func interfaceOf(n *nodes.Node, field string) string {
	switch field {
	case "bios_interface":
		return n.BIOSInterface
	case "boot_interface":
		return n.BootInterface
	case "console_interface":
		return n.ConsoleInterface
	case "deploy_interface":
		return n.DeployInterface
	case "firmware_interface":
		return n.FirmwareInterface
	case "inspect_interface":
		return n.InspectInterface
	case "management_interface":
		return n.ManagementInterface
	case "network_interface":
		return n.NetworkInterface
	case "power_interface":
		return n.PowerInterface
	case "raid_interface":
		return n.RAIDInterface
	case "rescue_interface":
		return n.RescueInterface
	case "storage_interface":
		return n.StorageInterface
	case "vendor_interface":
		return n.VendorInterface
	}
	return ""
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// setTraits replaces the node's traits when they differ from the spec
// (PUT /v1/nodes/{id}/traits; gophercloud has no call for it), unless the
// spec keeps the node's.
func (p *Provisioner) setTraits(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, error) {
	if h.Spec.KeepTraits {
		return lifecycle.Result{}, nil
	}
	want := slices.Clone(h.Spec.Traits)
	have := slices.Clone(node.Traits)
	slices.Sort(want)
	slices.Sort(have)
	want = slices.Compact(want)
	if slices.Equal(want, have) {
		return lifecycle.Result{}, nil
	}
	if want == nil {
		want = []string{}
	}
	url := p.sc.ServiceURL("nodes", node.UUID, "traits")
	resp, err := p.sc.Put(ctx, url, map[string]any{"traits": want}, nil, &gophercloud.RequestOpts{OkCodes: []int{204}})
	p.wrote(ctx, node.UUID)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	switch {
	case err == nil:
		node.Traits = want
		return lifecycle.Result{}, nil
	case isConflict(err):
		return p.continuing("set traits", node.ProvisionState, p.fastPoll), nil
	default:
		return lifecycle.Result{Verb: "set traits", ProvisionState: node.ProvisionState},
			fmt.Errorf("set traits on node %s: %s", node.UUID, ironicError(err))
	}
}

// ensureBootPort creates the boot MAC port (pxe_enabled) when it is
// missing, in the states where Ironic accepts new ports.
func (p *Provisioner) ensureBootPort(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, error) {
	mac := strings.ToLower(h.Spec.BootMACAddress)
	if mac == "" {
		return lifecycle.Result{}, nil
	}
	switch node.ProvisionState {
	case psEnroll, psManageable, psAvailable, psActive, psError,
		psInspectFail, psCleanFail, psDeployFail, psAdoptFail, psServiceFail, psRescueFail:
	default:
		return lifecycle.Result{}, nil
	}
	port, err := p.portByMAC(ctx, mac)
	if err != nil {
		return lifecycle.Result{}, err
	}
	if port != nil {
		if port.NodeUUID != node.UUID {
			return failed("create port", node.ProvisionState, fmt.Sprintf(
				"MAC address %s is already used by a port of node %s", mac, port.NodeUUID)), nil
		}
		return lifecycle.Result{}, nil
	}
	pxe := true
	_, err = ports.Create(ctx, p.sc, ports.CreateOpts{NodeUUID: node.UUID, Address: mac, PXEEnabled: &pxe}).Extract()
	p.wrote(ctx, node.UUID)
	if p.w != nil {
		p.w.WrotePorts(mac, node.UUID)
	}
	switch {
	case err == nil:
		logInfo(ctx, "created boot MAC port", h, node, "create port")
		return lifecycle.Result{}, nil
	case isConflict(err):
		// Either the node is locked or the address was just taken: look
		// again on the next pass.
		return p.continuing("create port", node.ProvisionState, p.fastPoll), nil
	case gophercloud.ResponseCodeIs(err, http.StatusBadRequest):
		return failed("create port", node.ProvisionState, fmt.Sprintf("cannot create port %s: %s", mac, ironicError(err))), nil
	default:
		return lifecycle.Result{Verb: "create port", ProvisionState: node.ProvisionState},
			fmt.Errorf("create port %s for node %s: %s", mac, node.UUID, ironicError(err))
	}
}

func (p *Provisioner) credsWrittenWith(uuid string) string {
	v, _ := p.credsWritten.Load(uuid)
	s, _ := v.(string)
	return s
}

func (p *Provisioner) manageTriedWith(uuid string) string {
	v, _ := p.manageTried.Load(uuid)
	s, _ := v.(string)
	return s
}
