package ironic

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var (
	_ lifecycle.FirmwareCatalog = (*Catalog)(nil)
	_ lifecycle.Servicer        = (*Provisioner)(nil)
)

// Features says which firmware APIs the negotiated microversion offers.
func (c *Catalog) Features() lifecycle.FirmwareFeatures {
	return firmwareFeatures(c.sc.Microversion)
}

func firmwareFeatures(mv string) lifecycle.FirmwareFeatures {
	return lifecycle.FirmwareFeatures{
		Microversion: mv,
		BIOSRegistry: lifecycle.FeatureBIOSRegistry.In(mv),
		Components:   lifecycle.FeatureFirmware.In(mv),
		Servicing:    lifecycle.FeatureServicing.In(mv),
	}
}

// BIOS reads a node's BIOS settings. The schema comes from Ironic's
// registry fields when its BIOS interface fills them (redfish does; fake
// does not), else from the BMC's Redfish AttributeRegistry when redfish is
// given (Ironic masks the BMC password, so the caller supplies it), else
// there is none. Names containing "Password" are dropped, as BMO does.
func (c *Catalog) BIOS(ctx context.Context, idOrName string, redfish *lifecycle.BMCAccess) (*lifecycle.BIOS, error) {
	n, err := c.node(ctx, idOrName)
	if err != nil {
		return nil, err
	}
	out := &lifecycle.BIOS{Settings: map[string]lifecycle.BIOSSetting{}, SchemaSource: lifecycle.SchemaSourceNone, Driver: n.Driver}
	settings, err := listBIOS(ctx, c, n.UUID)
	if err != nil {
		return nil, err
	}
	for _, s := range settings {
		if strings.Contains(s.Name, "Password") {
			continue
		}
		bs := biosSetting(s)
		if bs.Type != "" {
			out.SchemaSource = lifecycle.SchemaSourceIronic
		}
		out.Settings[s.Name] = bs
	}
	if out.SchemaSource == lifecycle.SchemaSourceIronic || redfish == nil {
		return out, nil
	}
	rc, systemID, err := nodeRedfish(ctx, redfish, n, "reading the BIOS attribute registry from the BMC")
	if err != nil {
		return nil, err
	}
	if rc == nil {
		return out, nil
	}
	defer rc.Close()
	info, err := rc.BIOS(systemID)
	if err != nil {
		return nil, fmt.Errorf("node %s: reading the BIOS attribute registry from the BMC: %w", n.UUID, err)
	}
	if info.Registry == "" {
		return out, nil
	}
	out.SchemaSource = lifecycle.SchemaSourceRedfish
	for _, a := range info.Attributes {
		if strings.Contains(a.Name, "Password") {
			continue
		}
		s := lifecycle.BIOSSetting{
			Name: a.Name, Type: a.Type, AllowableValues: a.AllowedValues,
			LowerBound: a.LowerBound, UpperBound: a.UpperBound,
			MinLength: int64p(a.MinLength), MaxLength: int64p(a.MaxLength),
			ReadOnly: a.ReadOnly, ResetRequired: a.ResetRequired,
			Value: bmc.BIOSValue(a.CurrentValue), Locks: a.Locks,
		}
		// Ironic's cached value, when it has one, is what the diff and
		// the drift compare against.
		if cur, ok := out.Settings[a.Name]; ok {
			s.Value = cur.Value
		}
		out.Settings[a.Name] = s
	}
	return out, nil
}

// listBIOS reads GET /v1/nodes/{id}/bios, with detail where the API has it.
func listBIOS(ctx context.Context, c *Catalog, id string) ([]nodes.BIOSSetting, error) {
	var opts nodes.ListBIOSSettingsOptsBuilder
	if c.Features().BIOSRegistry {
		opts = nodes.ListBIOSSettingsOpts{Detail: true}
	}
	settings, err := nodes.ListBIOSSettings(ctx, c.sc, id, opts).Extract()
	if err != nil {
		return nil, apiError("list BIOS settings of node "+id, err)
	}
	return settings, nil
}

func biosSetting(s nodes.BIOSSetting) lifecycle.BIOSSetting {
	out := lifecycle.BIOSSetting{
		Name: s.Name, Value: s.Value, Type: s.AttributeType, AllowableValues: s.AllowableValues,
		LowerBound: int64p(s.LowerBound), UpperBound: int64p(s.UpperBound),
		MinLength: int64p(s.MinLength), MaxLength: int64p(s.MaxLength),
	}
	if s.ReadOnly != nil {
		out.ReadOnly = *s.ReadOnly
	}
	if s.ResetRequired != nil {
		out.ResetRequired = *s.ResetRequired
	}
	return out
}

func int64p(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

// firmwareSteps are the BIOS steps the spec needs, as clean or service
// steps: bios.factory_reset when a reset is pending, then
// bios.apply_configuration with the settings whose value differs from
// Ironic's (all of them after a reset). Nil when there is nothing to do.
func (p *Provisioner) firmwareSteps(ctx context.Context, h *lifecycle.Host, node *nodes.Node) ([]nodes.CleanStep, error) {
	reset := h.Spec.FirmwareReset && !h.Status.FirmwareResetDone
	update := append(firmwareUpdateStep(h), manualSteps(h)...)
	if len(h.Spec.FirmwareSettings) == 0 && !reset {
		return update, nil
	}
	var steps []nodes.CleanStep
	var current *lifecycle.BIOS
	if reset {
		steps = append(steps, nodes.CleanStep{Interface: nodes.InterfaceBIOS, Step: "factory_reset", Args: map[string]any{}})
	} else if len(h.Spec.FirmwareSettings) > 0 {
		var opts nodes.ListBIOSSettingsOptsBuilder
		if firmwareFeatures(p.sc.Microversion).BIOSRegistry {
			opts = nodes.ListBIOSSettingsOpts{Detail: true}
		}
		settings, err := nodes.ListBIOSSettings(ctx, p.sc, node.UUID, opts).Extract()
		if err != nil {
			return nil, fmt.Errorf("list BIOS settings of node %s: %s", node.UUID, ironicError(err))
		}
		current = &lifecycle.BIOS{Settings: map[string]lifecycle.BIOSSetting{}}
		for _, s := range settings {
			current.Settings[s.Name] = biosSetting(s)
		}
	}
	diff := lifecycle.FirmwareDiff(h.Spec.FirmwareSettings, current)
	if len(diff) > 0 && current != nil && node.BIOSInterface == "fake" {
		// Ironic's fake BIOS interface replaces its stored list with what
		// one step sends (sync_node_setting deletes the rest), where real
		// BIOS interfaces change only the named settings. Send it the
		// current list with the changes, so that it ends as a real BIOS
		// would.
		for n, s := range current.Settings {
			if _, ok := diff[n]; !ok {
				diff[n] = s.Value
			}
		}
	}
	if len(diff) > 0 {
		names := make([]string, 0, len(diff))
		for n := range diff {
			names = append(names, n)
		}
		sort.Strings(names)
		list := make([]map[string]any, 0, len(names))
		for _, n := range names {
			list = append(list, map[string]any{"name": n, "value": diff[n]})
		}
		steps = append(steps, nodes.CleanStep{
			Interface: nodes.InterfaceBIOS, Step: "apply_configuration",
			Args: map[string]any{"settings": list},
		})
	}
	return append(steps, update...), nil
}

// ---------------------------------------------------------------------------
// Service (BMO SVC ironicProvisioner.Service)

// Service changes an active node's firmware through Ironic's servicing
// (API 1.87+): active with steps to run -> "service" with service_steps;
// servicing or service wait -> wait; service failed -> the failure, or
// "service" again when retrying; active with nothing (left) to do -> done.
func (p *Provisioner) Service(ctx context.Context, h *lifecycle.Host, restartOnFailure bool) (lifecycle.Result, bool, error) {
	const verb = "service"
	node, err := p.changing(ctx, h, "service")
	if err != nil {
		return lifecycle.Result{Verb: verb}, false, err
	}
	ps := node.ProvisionState
	switch ps {
	case psActive:
		steps, err := p.firmwareSteps(ctx, h, node)
		if err != nil {
			return lifecycle.Result{Verb: verb, ProvisionState: ps}, false, err
		}
		rb := pendingRunbook(h)
		if (len(steps) == 0 && rb == "") || (!restartOnFailure && h.Status.ErrorType == lifecycle.NoError && settingsRecorded(h)) {
			return done(verb, ps), false, nil
		}
		if !firmwareFeatures(p.sc.Microversion).Servicing {
			return lifecycle.Result{Verb: verb, ProvisionState: ps}, false,
				fmt.Errorf("node %s (Ironic API %s): %w", node.UUID, p.sc.Microversion, lifecycle.ErrServicingUnsupported)
		}
		return p.serviceWith(ctx, h, node, steps, rb)
	case psServicing, psServiceWait:
		logDebug(ctx, "waiting for servicing", h, node, verb)
		return p.continuing(verb, ps, p.slowPoll), false, nil
	case psServiceFail:
		if !restartOnFailure {
			logInfo(ctx, "servicing failed", h, node, verb)
			return failed(verb, ps, node.LastError), false, nil
		}
		steps, err := p.firmwareSteps(ctx, h, node)
		if err != nil {
			return lifecycle.Result{Verb: verb, ProvisionState: ps}, false, err
		}
		rb := pendingRunbook(h)
		if len(steps) == 0 && rb == "" {
			// Nothing left to change: BMO aborts a failed servicing whose
			// spec no longer asks for anything, which returns it to active.
			res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAbort})
			return res, false, err
		}
		return p.serviceWith(ctx, h, node, steps, rb)
	}
	return lifecycle.Result{Verb: verb, ProvisionState: ps}, false,
		fmt.Errorf("cannot service node %s in provision state %q: only active (provisioned) nodes are serviced", node.UUID, ps)
}

// serviceWith starts servicing with steps, or with runbook rb when it is
// not "".
func (p *Provisioner) serviceWith(ctx context.Context, h *lifecycle.Host, node *nodes.Node, steps []nodes.CleanStep, rb string) (lifecycle.Result, bool, error) {
	opts := nodes.ProvisionStateOpts{Target: nodes.TargetService, ServiceSteps: steps}
	if rb != "" {
		var err error
		if opts, err = p.runbookState(nodes.TargetService, rb, steps, node); err != nil {
			return lifecycle.Result{Verb: "service", ProvisionState: node.ProvisionState}, false, err
		}
	}
	return p.changeState(ctx, h, node, opts)
}

// settingsRecorded reports that servicing was already started for the
// current spec (the state machine records it once started).
func settingsRecorded(h *lifecycle.Host) bool {
	if h.Spec.FirmwareReset && !h.Status.FirmwareResetDone {
		return false
	}
	if len(h.Spec.FirmwareUpdates) > 0 && !h.Status.FirmwareUpdatesDone {
		return false
	}
	if len(h.Spec.Steps) > 0 && !h.Status.StepsDone {
		return false
	}
	if len(h.Spec.FirmwareSettings) != len(h.Status.AppliedFirmware) || h.Status.AppliedFirmware == nil {
		return false
	}
	for k, v := range h.Spec.FirmwareSettings {
		if h.Status.AppliedFirmware[k] != v {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Firmware components (BMO hostfirmwarecomponents_controller.go)

// Firmware lists a node's firmware components: the BMC's Redfish
// FirmwareInventory when redfish is given and the BMC speaks Redfish (every
// item, where Ironic's API keeps a few), else Ironic's firmware API at 1.86+
// (BMO keeps bios, bmc and nic:*), else none. The BIOS
// version is the "bios" component's, else the system's BiosVersion.
func (c *Catalog) Firmware(ctx context.Context, idOrName string, redfish *lifecycle.BMCAccess) (*lifecycle.FirmwareInventory, error) {
	n, err := c.node(ctx, idOrName)
	if err != nil {
		return nil, err
	}
	out := &lifecycle.FirmwareInventory{Source: lifecycle.FirmwareSourceNone}
	if redfish == nil {
		return c.ironicFirmware(ctx, n, out)
	}
	rc, systemID, err := nodeRedfish(ctx, redfish, n, "reading the firmware inventory from the BMC")
	if err != nil {
		return nil, err
	}
	if rc == nil {
		return c.ironicFirmware(ctx, n, out)
	}
	defer rc.Close()
	facts, err := rc.SystemFacts(systemID)
	if err != nil {
		return nil, fmt.Errorf("node %s: reading the system from the BMC: %w", n.UUID, err)
	}
	items, err := rc.Firmware(systemID)
	if err != nil {
		return nil, fmt.Errorf("node %s: reading the firmware inventory from the BMC: %w", n.UUID, err)
	}
	out.Source, out.BIOSVersion = lifecycle.FirmwareSourceRedfish, facts.BIOSVersion
	for _, it := range items {
		out.Components = append(out.Components, lifecycle.FirmwareComponent{
			ID: it.ID, Name: it.Name, Version: it.Version, Updateable: it.Updateable, RelatedTo: it.RelatedTo,
		})
	}
	return out, nil
}

// nodeRedfish opens a Redfish session to node n's BMC as access describes
// it; a nil client and no error when the BMC does not speak Redfish. what
// says what the session is for, in the error when it cannot be opened.
func nodeRedfish(ctx context.Context, access *lifecycle.BMCAccess, n *nodes.Node, what string) (*bmc.RedfishClient, string, error) {
	cfg, systemID, ok, err := redfishConfigFor(access, n)
	if err != nil {
		return nil, "", fmt.Errorf("node %s: %w", n.UUID, err)
	}
	if !ok {
		return nil, "", nil
	}
	rc, err := bmc.ConnectRedfish(ctx, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("node %s: %s: %w", n.UUID, what, err)
	}
	return rc, systemID, nil
}

// ironicFirmware is the node's components from Ironic's firmware API
// (1.86+), filtered to bios, bmc and nic:* as BMO does; out as given when
// the API is older or lists none.
func (c *Catalog) ironicFirmware(ctx context.Context, n *nodes.Node, out *lifecycle.FirmwareInventory) (*lifecycle.FirmwareInventory, error) {
	if !c.Features().Components {
		return out, nil
	}
	comps, err := nodes.ListFirmware(ctx, c.sc, n.UUID).Extract()
	if err != nil {
		return nil, apiError("list firmware components of node "+n.UUID, err)
	}
	for _, fc := range comps {
		if fc.Component != "bios" && fc.Component != "bmc" && !strings.HasPrefix(fc.Component, "nic:") {
			continue
		}
		out.Components = append(out.Components, lifecycle.FirmwareComponent{
			ID: fc.Component, Name: fc.Component, Version: fc.CurrentVersion, Updateable: true,
		})
		if fc.Component == "bios" {
			out.BIOSVersion = fc.CurrentVersion
		}
	}
	if len(out.Components) > 0 {
		out.Source = lifecycle.FirmwareSourceIronic
	}
	return out, nil
}
