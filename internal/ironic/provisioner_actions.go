package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ---------------------------------------------------------------------------
// Inspect (BMO INS ironicProvisioner.startInspection, InspectHardware)

// Inspect runs inspection. A manageable node counts as inspected when
// inspection_finished_at is set: fake and redfish inspection store no
// inventory, so GET /inventory cannot tell.
func (p *Provisioner) Inspect(ctx context.Context, h *lifecycle.Host, restartOnFailure, refresh bool) (lifecycle.Result, bool, *lifecycle.HardwareDetails, error) {
	node, err := p.changing(ctx, h, "inspect")
	if err != nil {
		return lifecycle.Result{Verb: "inspect"}, false, nil, err
	}
	ps := node.ProvisionState
	switch ps {
	case psAvailable:
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, false, nil, err
	case psManageable:
		if refresh || node.InspectionFinishedAt == nil {
			res, started, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetInspect})
			return res, started, nil, err
		}
		if msg := archMismatch(h, node); msg != "" {
			return failed("inspect", ps, msg), false, nil, nil
		}
		if p.noDetails {
			logInfo(ctx, "inspection done", h, node, "inspect")
			return done("inspect", ps), false, nil, nil
		}
		details, err := p.hardwareDetails(ctx, node)
		if err != nil {
			return lifecycle.Result{Verb: "inspect", ProvisionState: ps}, false, nil, err
		}
		logInfo(ctx, "inspection done", h, node, "inspect")
		return done("inspect", ps), false, details, nil
	case psInspecting, psInspectWait:
		logDebug(ctx, "waiting for inspection", h, node, "inspect")
		return p.continuing("inspect", ps, p.slowPoll), false, nil, nil
	case psInspectFail:
		if restartOnFailure || strings.Contains(node.LastError, "aborted") || interrupted(node) {
			res, started, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetInspect})
			return res, started, nil, err
		}
		logInfo(ctx, "inspection failed", h, node, "inspect")
		return failed("inspect", ps, node.LastError), false, nil, nil
	case psEnroll, psVerifying:
		// Registration has not finished (Register runs on every pass).
		return p.continuing("manage", ps, p.fastPoll), false, nil, nil
	}
	return lifecycle.Result{Verb: "inspect", ProvisionState: ps}, false, nil,
		fmt.Errorf("cannot inspect node %s in provision state %q", node.UUID, ps)
}

// hardwareDetails reads GET /inventory when Ironic has one, else the node's
// properties and ports. (Any inspect interface can have one: an inventory
// can be stored out of band, so even fake-inspected nodes are asked.)
func (p *Provisioner) hardwareDetails(ctx context.Context, node *nodes.Node) (*lifecycle.HardwareDetails, error) {
	d := &lifecycle.HardwareDetails{}
	r := nodes.GetInventory(ctx, p.sc, node.UUID)
	if r.Err == nil {
		var inv struct {
			Inventory struct {
				CPU struct {
					Architecture string `json:"architecture"`
					Count        int    `json:"count"`
				} `json:"cpu"`
				Memory struct {
					PhysicalMB int `json:"physical_mb"`
				} `json:"memory"`
				Interfaces []struct {
					Name       string `json:"name"`
					MACAddress string `json:"mac_address"`
					IPv4       string `json:"ipv4_address"`
					IPv6       string `json:"ipv6_address"`
					HasCarrier bool   `json:"has_carrier"`
				} `json:"interfaces"`
				Disks []struct {
					Name string `json:"name"`
					Size int64  `json:"size"`
				} `json:"disks"`
			} `json:"inventory"`
		}
		if err := r.ExtractInto(&inv); err == nil {
			d.CPUArch = inv.Inventory.CPU.Architecture
			d.CPUCount = inv.Inventory.CPU.Count
			d.RAMMebibytes = inv.Inventory.Memory.PhysicalMB
			for _, i := range inv.Inventory.Interfaces {
				ip := i.IPv4
				if ip == "" {
					ip = i.IPv6
				}
				d.NICs = append(d.NICs, lifecycle.NIC{Name: i.Name, MAC: i.MACAddress, IP: ip})
			}
			for _, dk := range inv.Inventory.Disks {
				d.Storage = append(d.Storage, lifecycle.Disk{Name: dk.Name, SizeBytes: dk.Size})
			}
			return d, nil
		}
	} else if !isNotFound(r.Err) {
		return nil, fmt.Errorf("get inventory of node %s: %w", node.UUID, r.Err)
	}
	// No inventory: node properties and ports.
	return p.propertiesAndPorts(ctx, node, d)
}

// propertiesAndPorts fills d from the node's properties and its ports (from
// the watcher's shared port list when there is a watcher).
func (p *Provisioner) propertiesAndPorts(ctx context.Context, node *nodes.Node, d *lifecycle.HardwareDetails) (*lifecycle.HardwareDetails, error) {
	d.CPUArch, _ = node.Properties["cpu_arch"].(string)
	d.CPUCount = intProp(node.Properties["cpus"])
	d.RAMMebibytes = intProp(node.Properties["memory_mb"])
	if gb := intProp(node.Properties["local_gb"]); gb > 0 {
		d.Storage = append(d.Storage, lifecycle.Disk{Name: "local", SizeBytes: int64(gb) << 30})
	}
	var all []ports.Port
	if p.w != nil {
		s, err := p.w.Ports(ctx, time.Now().Add(-passReadMaxAge), node.UUID)
		if err != nil {
			return nil, fmt.Errorf("list ports (of node %s): %w", node.UUID, err)
		}
		all = s.byNode[node.UUID]
	} else {
		pages, err := ports.List(p.sc, ports.ListOpts{NodeUUID: node.UUID, Fields: []string{"uuid", "address", "pxe_enabled"}}).AllPages(ctx)
		if err != nil {
			return nil, fmt.Errorf("list ports of node %s: %w", node.UUID, err)
		}
		if all, err = ports.ExtractPorts(pages); err != nil {
			return nil, err
		}
	}
	for _, pt := range all {
		d.NICs = append(d.NICs, lifecycle.NIC{MAC: pt.Address, PXE: pt.PXEEnabled})
	}
	d.NICsArePorts = true
	return d, nil
}

func intProp(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case string:
		var n int
		_, _ = fmt.Sscan(x, &n)
		return n
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	}
	return 0
}

// ---------------------------------------------------------------------------
// Prepare (BMO IR ironicProvisioner.buildManualCleaningSteps, buildFirmwareSettings, startManualCleaning, Prepare)

// prepareSteps returns the manual clean steps the spec needs: the RAID
// configuration when it changed, a BIOS factory reset when asked, and the
// firmware settings that differ from what Ironic reports.
func (p *Provisioner) prepareSteps(ctx context.Context, h *lifecycle.Host, node *nodes.Node) ([]nodes.CleanStep, error) {
	var steps []nodes.CleanStep
	if lifecycle.RAIDPending(h) && node.RAIDInterface != "fake" {
		// BMO's order: RAID, then BIOS, then firmware. Ironic's fake RAID
		// interface has no clean steps (Ironic refuses them: "node does
		// not support this clean step"): it only gets target_raid_config.
		steps = raidSteps(h.Spec.RAID)
	}
	bios, err := p.firmwareSteps(ctx, h, node)
	return append(steps, bios...), err
}

// syncRootHints writes properties.root_device from the spec's hints. A
// spec registered elsewhere (firmware settings) leaves them to their owner.
func (p *Provisioner) syncRootHints(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, bool, error) {
	if h.Spec.RegisteredElsewhere {
		return lifecycle.Result{}, true, nil
	}
	want := RootDeviceHintMap(h.Spec.RootDeviceHints)
	cur, has := node.Properties["root_device"]
	var patch nodes.UpdateOpts
	switch {
	case want == nil && has:
		patch = nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/properties/root_device"}}
	case want != nil && (!has || !jsonEqual(cur, want)):
		patch = nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/root_device", Value: want}}
	}
	_, res, ok, err := p.update(ctx, h, node, "update", patch)
	return res, ok, err
}

// Prepare runs manual cleaning with the steps the spec needs. Without
// steps it only writes the root device hints: Ironic rejects a manual
// clean without steps.
func (p *Provisioner) Prepare(ctx context.Context, h *lifecycle.Host, unprepared, restartOnFailure bool) (lifecycle.Result, bool, error) {
	node, err := p.changing(ctx, h, "clean")
	if err != nil {
		return lifecycle.Result{Verb: "clean"}, false, err
	}
	ps := node.ProvisionState
	switch ps {
	case psAvailable:
		if !unprepared {
			return done("clean", ps), false, nil
		}
		steps, err := p.prepareSteps(ctx, h, node)
		if err != nil {
			return lifecycle.Result{Verb: "clean", ProvisionState: ps}, false, err
		}
		if len(steps) > 0 || pendingRunbook(h) != "" {
			res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
			return res, false, err
		}
		if res, ok, err := p.setTargetRAID(ctx, h, node); !ok {
			return res, false, err
		}
		if res, ok, err := p.syncRootHints(ctx, h, node); !ok {
			return res, false, err
		}
		return done("clean", ps), true, nil
	case psManageable:
		if !unprepared {
			return done("clean", ps), false, nil
		}
		if res, ok, err := p.syncRootHints(ctx, h, node); !ok {
			return res, false, err
		}
		steps, err := p.prepareSteps(ctx, h, node)
		if err != nil {
			return lifecycle.Result{Verb: "clean", ProvisionState: ps}, false, err
		}
		if res, ok, err := p.setTargetRAID(ctx, h, node); !ok {
			return res, false, err
		}
		if rb := pendingRunbook(h); rb != "" {
			opts, err := p.runbookState(nodes.TargetClean, rb, steps, node)
			if err != nil {
				return lifecycle.Result{Verb: "clean", ProvisionState: ps}, false, err
			}
			return p.changeState(ctx, h, node, opts)
		}
		if len(steps) == 0 {
			logInfo(ctx, "nothing to clean", h, node, "clean")
			return done("clean", ps), true, nil
		}
		res, started, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetClean, CleanSteps: steps})
		return res, started, err
	case psCleanFail:
		if !restartOnFailure && !interrupted(node) {
			logInfo(ctx, "manual cleaning failed", h, node, "clean")
			return failed("clean", ps, node.LastError), false, nil
		}
		if node.Maintenance {
			res, err := p.setMaintenance(ctx, h, node, false, "")
			return res, false, err
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, false, err
	case psCleaning, psCleanWait:
		logDebug(ctx, "waiting for cleaning", h, node, "clean")
		return p.continuing("clean", ps, p.slowPoll), false, nil
	}
	return lifecycle.Result{Verb: "clean", ProvisionState: ps}, false,
		fmt.Errorf("cannot prepare node %s in provision state %q", node.UUID, ps)
}

// ---------------------------------------------------------------------------
// Provide

// Provide moves a manageable node to available through automated cleaning.
func (p *Provisioner) Provide(ctx context.Context, h *lifecycle.Host) (lifecycle.Result, error) {
	node, err := p.changing(ctx, h, "provide")
	if err != nil {
		return lifecycle.Result{Verb: "provide"}, err
	}
	ps := node.ProvisionState
	switch ps {
	case psManageable:
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetProvide})
		return res, err
	case psAvailable:
		return done("provide", ps), nil
	case psCleaning, psCleanWait:
		logDebug(ctx, "waiting for automated cleaning", h, node, "provide")
		return p.continuing("provide", ps, p.slowPoll), nil
	case psCleanFail:
		// Retrying (the host carries an error): back to manageable, then
		// provide again. Otherwise report Ironic's error.
		if h.Status.ErrorType == lifecycle.NoError && !interrupted(node) {
			return failed("provide", ps, "Cleaning failed: "+node.LastError), nil
		}
		if node.Maintenance {
			return p.setMaintenance(ctx, h, node, false, "")
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, err
	}
	return lifecycle.Result{Verb: "provide", ProvisionState: ps},
		fmt.Errorf("cannot provide node %s in provision state %q", node.UUID, ps)
}

// ---------------------------------------------------------------------------
// Provision (BMO IR ironicProvisioner.setUpForProvisioning, Provision)

// validate runs GET /validate; boot or deploy failures give a message.
func (p *Provisioner) validate(ctx context.Context, node *nodes.Node) (string, error) {
	v, err := nodes.Validate(ctx, p.sc, node.UUID).Extract()
	if err != nil {
		return "", err
	}
	var errs []string
	if !v.Boot.Result {
		errs = append(errs, "boot: "+v.Boot.Reason)
	}
	if !v.Deploy.Result {
		errs = append(errs, "deploy: "+v.Deploy.Reason)
	}
	if len(errs) == 0 {
		return "", nil
	}
	return "host validation error: " + strings.Join(errs, "; "), nil
}

// startDeploy writes instance_info, validates and issues "active".
func (p *Provisioner) startDeploy(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, error) {
	ps := node.ProvisionState
	node, res, ok, err := p.update(ctx, h, node, "update", instanceInfoPatch(node, &h.Spec))
	if !ok {
		return res, err
	}
	msg, err := p.validate(ctx, node)
	switch {
	case isConflict(err):
		return p.continuing("validate", ps, p.slowPoll), nil
	case err != nil:
		return lifecycle.Result{Verb: "validate", ProvisionState: ps}, fmt.Errorf("validate node %s: %w", node.UUID, err)
	case msg != "":
		logInfo(ctx, "validation failed", h, node, "validate")
		return failed("validate", ps, msg), nil
	}
	opts := nodes.ProvisionStateOpts{Target: nodes.TargetActive, DeploySteps: customDeploySteps(&h.Spec)}
	if cd := ConfigDrive(&h.Spec); cd != nil {
		opts.ConfigDrive = *cd
	}
	res, _, err = p.changeState(ctx, h, node, opts)
	return res, err
}

// Provision deploys Spec.Image (or Spec.CustomDeploy) with the config drive.
func (p *Provisioner) Provision(ctx context.Context, h *lifecycle.Host, restartOnFailure bool) (lifecycle.Result, error) {
	if h.Spec.Image == nil && h.Spec.CustomDeploy == "" {
		return failed("active", "", "no image or custom deploy method to provision"), nil
	}
	node, err := p.changing(ctx, h, "deploy on")
	if err != nil {
		return lifecycle.Result{Verb: "active"}, err
	}
	ps := node.ProvisionState
	switch ps {
	case psDeployFail:
		if sameImage(node.InstanceInfo, h.Spec.Image) && !restartOnFailure && !interrupted(node) {
			if node.LastError == "" {
				// Not written yet: look again shortly.
				return p.continuing("active", ps, p.fastPoll), nil
			}
			img := h.Spec.Image
			logInfo(ctx, "image provisioning failed", h, node, "active")
			return failed("active", ps, fmt.Sprintf("Image provisioning failed (%s, %s): %s", img.URL, img.Checksum, node.LastError)), nil
		}
		logInfo(ctx, "recovering from a failed deploy", h, node, "active")
		return p.startDeploy(ctx, h, node)
	case psManageable:
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetProvide})
		return res, err
	case psCleanFail:
		if node.Maintenance {
			return p.setMaintenance(ctx, h, node, false, "")
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, err
	case psAvailable:
		return p.startDeploy(ctx, h, node)
	case psActive:
		logInfo(ctx, "provisioned", h, node, "active")
		return done("active", ps), nil
	case psEnroll, psVerifying, psInspectFail, psAdoptFail, psError:
		return lifecycle.Result{Verb: "active", ProvisionState: ps},
			fmt.Errorf("cannot provision node %s in provision state %q", node.UUID, ps)
	}
	// cleaning, clean wait, deploying, wait call-back, ...
	logDebug(ctx, "waiting for deploy", h, node, "active")
	return p.continuing("active", ps, p.slowPoll), nil
}

// ---------------------------------------------------------------------------
// Deprovision (BMO IR ironicProvisioner.Deprovision)

// Deprovision undeploys and waits through cleaning back to available.
func (p *Provisioner) Deprovision(ctx context.Context, h *lifecycle.Host, restartOnFailure bool) (lifecycle.Result, error) {
	node, err := p.changing(ctx, h, "undeploy")
	if err != nil {
		return lifecycle.Result{Verb: "deleted"}, err
	}
	ps := node.ProvisionState
	switch ps {
	case psError:
		if !restartOnFailure && !interrupted(node) {
			msg := node.LastError
			if msg == "" {
				msg = "Deprovisioning failed"
			}
			return failed("deleted", ps, msg), nil
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetDeleted})
		return res, err
	case psCleanFail:
		if !restartOnFailure && !interrupted(node) {
			return failed("deleted", ps, "Cleaning failed: "+node.LastError), nil
		}
		if node.Maintenance {
			return p.setMaintenance(ctx, h, node, false, "")
		}
		if extraString(node, extraErase) == eraseRunning {
			// The erasure failed: it runs again after manage.
			var res lifecycle.Result
			var ok bool
			if node, res, ok, err = p.update(ctx, h, node, "update", nodes.UpdateOpts{eraseMarkerOp(eraseQueued)}); !ok {
				return res, err
			}
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, err
	case psManageable:
		if step := eraseStep(h, node); step != "" && erasePending(node) {
			res, updated, finished, err := p.eraseDisks(ctx, h, node, "deleted", step)
			if !finished {
				return res, err
			}
			node = updated
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetProvide})
		return res, err
	case psAvailable:
		if step := eraseStep(h, node); step != "" && erasePending(node) {
			res, _, _, err := p.eraseDisks(ctx, h, node, "deleted", step)
			return res, err
		}
		logInfo(ctx, "deprovisioned", h, node, "deleted")
		return done("deleted", ps), nil
	case psDeleting, psCleaning, psCleanWait, psDeploying:
		logDebug(ctx, "waiting for deprovisioning", h, node, "deleted")
		return p.continuing("deleted", ps, p.slowPoll), nil
	case psActive, psDeployFail, psDeployWait, psServiceFail:
		// (A failed servicing leaves the deployment in place: Ironic
		// tears it down from "service failed" too.)
		// Sync automated_clean from the spec (BMO), unless another owner
		// registered the node: then its setting stands.
		want := h.Spec.AutomatedCleaningMode != lifecycle.CleaningDisabled
		var patch nodes.UpdateOpts
		if !h.Spec.RegisteredElsewhere && (node.AutomatedClean == nil || *node.AutomatedClean != want) {
			patch = append(patch, nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/automated_clean", Value: want})
		}
		// express and full erase the disks once the undeploy's cleaning
		// is over (eraseDisks).
		if eraseStep(h, node) != "" && extraString(node, extraErase) != eraseQueued {
			patch = append(patch, eraseMarkerOp(eraseQueued))
		}
		if len(patch) > 0 {
			var res lifecycle.Result
			var ok bool
			if node, res, ok, err = p.update(ctx, h, node, "update", patch); !ok {
				return res, err
			}
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetDeleted})
		return res, err
	}
	return lifecycle.Result{Verb: "deleted", ProvisionState: ps},
		fmt.Errorf("cannot deprovision node %s in provision state %q", node.UUID, ps)
}

// ---------------------------------------------------------------------------
// Adopt (BMO IR ironicProvisioner.Adopt)

// Adopt adopts an externally provisioned (or provisioned) host.
func (p *Provisioner) Adopt(ctx context.Context, h *lifecycle.Host, restartOnFailure bool) (lifecycle.Result, error) {
	node, err := p.changing(ctx, h, "adopt")
	if err != nil {
		return lifecycle.Result{Verb: "adopt"}, err
	}
	ps := node.ProvisionState
	switch ps {
	case psEnroll, psVerifying:
		return lifecycle.Result{Verb: "adopt", ProvisionState: ps},
			fmt.Errorf("cannot adopt node %s in provision state %q", node.UUID, ps)
	case psManageable:
		if h.Status.State == lifecycle.StateDeprovisioning {
			// Deprovision moves it on to available (BMO).
			return done("adopt", ps), nil
		}
		if h.Spec.Image != nil || h.Spec.CustomDeploy != "" {
			var res lifecycle.Result
			var ok bool
			node, res, ok, err = p.update(ctx, h, node, "update", instanceInfoPatch(node, &h.Spec))
			if !ok {
				return res, err
			}
		}
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAdopt})
		return res, err
	case psAdopting:
		return p.continuing("adopt", ps, p.fastPoll), nil
	case psAdoptFail:
		if restartOnFailure || interrupted(node) {
			res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAdopt})
			return res, err
		}
		return failed("adopt", ps, "Host adoption failed: "+node.LastError), nil
	case psActive:
		if node.Maintenance && node.Fault == "" && h.Status.State != lifecycle.StateDeleting {
			logInfo(ctx, "clearing maintenance set by hand on an active node", h, node, "adopt")
			return p.setMaintenance(ctx, h, node, false, "")
		}
	}
	return done("adopt", ps), nil
}
