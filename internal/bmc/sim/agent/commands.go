package agent

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// handlerFunc runs one command of boot b.
type handlerFunc func(b *boot, params map[string]any) (any, error)

// hardwareManager names the simulated hardware manager in step lists.
const hardwareManager = "SimulatedHardwareManager"

var managerVersion = map[string]string{hardwareManager: "1.2"}

// handler returns the command's implementation and whether it runs
// synchronously (IPA's sync_command).
func (a *Agent) handler(ext, cmd string) (handlerFunc, bool) {
	switch ext + "." + cmd {
	case "clean.get_clean_steps":
		return a.getCleanSteps, true
	case "clean.execute_clean_step":
		return a.executeCleanStep, false
	case "service.get_service_steps":
		return a.getServiceSteps, true
	case "service.execute_service_step":
		return a.executeServiceStep, false
	case "deploy.get_deploy_steps":
		return a.getDeploySteps, true
	case "deploy.execute_deploy_step":
		return a.executeDeployStep, false
	case "standby.prepare_image":
		return func(b *boot, p map[string]any) (any, error) {
			info, _ := p["image_info"].(map[string]any)
			return nil, a.writeImage(b, info, p["configdrive"])
		}, false
	case "standby.cache_image":
		return func(b *boot, p map[string]any) (any, error) {
			info, _ := p["image_info"].(map[string]any)
			_, err := a.download(b, info)
			return "image cached", err
		}, false
	case "standby.get_partition_uuids":
		return a.partitionUUIDs, true
	case "image.install_bootloader":
		return a.installBootloader, false
	case "standby.power_off":
		return a.powerOff, false
	case "standby.reboot", "standby.run_image":
		return a.reboot, false
	case "standby.sync":
		return func(*boot, map[string]any) (any, error) { return nil, nil }, true
	case "log.collect_system_logs":
		return a.collectLogs, true
	}
	return nil, false
}

func step(name, iface string, priority int, reboot bool, argsinfo map[string]any) map[string]any {
	s := map[string]any{"step": name, "interface": iface, "priority": priority, "reboot_requested": reboot, "abortable": true}
	if argsinfo != nil {
		s["argsinfo"] = argsinfo
	}
	return s
}

// getCleanSteps lists the clean steps of IPA's generic hardware manager
// that the simulator implements, with IPA's priorities.
func (a *Agent) getCleanSteps(*boot, map[string]any) (any, error) {
	steps := []any{
		step("erase_devices", "deploy", 10, false, nil),
		step("erase_devices_express", "deploy", 0, false, nil),
		step("erase_devices_metadata", "deploy", 99, false, nil),
		step("delete_configuration", "raid", 0, false, nil),
		step("create_configuration", "raid", 0, false, nil),
		step("apply_configuration", "bios", 0, true, map[string]any{
			"settings": map[string]any{"description": "a list of BIOS settings ({name, value}) to apply", "required": true},
		}),
	}
	return map[string]any{"clean_steps": map[string]any{hardwareManager: steps}, "hardware_manager_version": managerVersion}, nil
}

// getServiceSteps lists the agent's service steps (IPA's service
// extension, asked when servicing boots the agent: a step of the
// conductor's interfaces, such as the Redfish BIOS's apply_configuration,
// may need the ramdisk running).
func (a *Agent) getServiceSteps(*boot, map[string]any) (any, error) {
	steps := []any{step("erase_devices_metadata", "deploy", 0, false, nil)}
	return map[string]any{"service_steps": map[string]any{hardwareManager: steps}, "hardware_manager_version": managerVersion}, nil
}

func (a *Agent) executeServiceStep(b *boot, params map[string]any) (any, error) {
	s, id, _ := stepOf(params)
	if id != "deploy.erase_devices_metadata" {
		return nil, unknownStep(id)
	}
	a.erase(b, "erase_devices_metadata")
	a.mu.Lock()
	a.rec.ServiceSteps = append(a.rec.ServiceSteps, id)
	a.mu.Unlock()
	return map[string]any{"service_result": nil, "service_step": s}, nil
}

func (a *Agent) getDeploySteps(*boot, map[string]any) (any, error) {
	steps := []any{
		step("write_image", "deploy", 0, false, map[string]any{
			"image_info":  map[string]any{"description": "the image to write", "required": true},
			"configdrive": map[string]any{"description": "the config drive", "required": false},
		}),
		step("erase_devices_metadata", "deploy", 0, false, nil),
		step("apply_configuration", "raid", 0, false, map[string]any{
			"raid_config": map[string]any{"description": "the RAID configuration to apply", "required": true},
		}),
		step("inject_files", "deploy", 0, false, nil),
	}
	for _, name := range a.cfg.CustomDeploySteps {
		steps = append(steps, step(name, "deploy", 0, false, nil))
	}
	return map[string]any{"deploy_steps": map[string]any{hardwareManager: steps}, "hardware_manager_version": managerVersion}, nil
}

func stepOf(params map[string]any) (m map[string]any, id string, args map[string]any) {
	m, _ = params["step"].(map[string]any)
	iface, _ := m["interface"].(string)
	name, _ := m["step"].(string)
	args, _ = m["args"].(map[string]any)
	return m, iface + "." + name, args
}

func unknownStep(id string) error {
	return &CommandError{Type: "HardwareManagerMethodNotFound", Code: 400,
		Message: "No HardwareManager found to handle method", Details: "Could not find method: " + id}
}

func (a *Agent) executeCleanStep(b *boot, params map[string]any) (any, error) {
	s, id, args := stepOf(params)
	var res any
	switch id {
	case "deploy.erase_devices", "deploy.erase_devices_express", "deploy.erase_devices_metadata":
		a.erase(b, strings.TrimPrefix(id, "deploy."))
	case "raid.create_configuration":
		node, _ := params["node"].(map[string]any)
		cfg, _ := node["target_raid_config"].(map[string]any)
		if len(cfg) == 0 {
			return nil, &CommandError{Type: "InvalidCommandParamsError", Code: 400, Message: "Invalid command parameters", Details: "the node has no target_raid_config"}
		}
		a.mu.Lock()
		a.rec.RAID = cfg
		a.mu.Unlock()
		res = cfg
	case "raid.delete_configuration":
		a.mu.Lock()
		a.rec.RAID = nil
		a.mu.Unlock()
	case "bios.apply_configuration":
		settings := map[string]any{}
		list, _ := args["settings"].([]any)
		for _, item := range list {
			m, _ := item.(map[string]any)
			if name, ok := m["name"].(string); ok {
				settings[name] = m["value"]
			}
		}
		if err := a.m.SetPendingBIOS(settings); err != nil {
			return nil, &CommandError{Type: "CommandExecutionError", Code: 500, Message: "Command execution failed", Details: err.Error()}
		}
		a.mu.Lock()
		a.rec.BIOS = settings
		a.mu.Unlock()
	default:
		return nil, unknownStep(id)
	}
	a.mu.Lock()
	a.rec.CleanSteps = append(a.rec.CleanSteps, id)
	a.mu.Unlock()
	return map[string]any{"clean_result": res, "clean_step": s}, nil
}

func (a *Agent) executeDeployStep(b *boot, params map[string]any) (any, error) {
	s, id, args := stepOf(params)
	switch id {
	case "deploy.write_image":
		info, _ := args["image_info"].(map[string]any)
		if err := a.writeImage(b, info, args["configdrive"]); err != nil {
			return nil, err
		}
	case "deploy.erase_devices_metadata":
		a.erase(b, "erase_devices_metadata")
	case "deploy.inject_files":
	case "raid.apply_configuration":
		cfg, _ := args["raid_config"].(map[string]any)
		a.mu.Lock()
		a.rec.RAID = cfg
		a.mu.Unlock()
	default:
		custom := false
		for _, name := range a.cfg.CustomDeploySteps {
			custom = custom || id == "deploy."+name
		}
		if !custom {
			return nil, unknownStep(id)
		}
		a.mu.Lock()
		b.wroteOS = true
		a.mu.Unlock()
	}
	a.mu.Lock()
	a.rec.DeploySteps = append(a.rec.DeploySteps, id)
	a.mu.Unlock()
	return map[string]any{"deploy_result": nil, "deploy_step": s}, nil
}

// erase runs erase step (erase_devices_metadata, erase_devices_express or
// erase_devices) on every disk of the inventory and records it per disk.
func (a *Agent) erase(b *boot, step string) {
	disks := a.m.Inventory().Disks
	a.mu.Lock()
	defer a.mu.Unlock()
	if step == "erase_devices_metadata" {
		a.rec.ErasedMetadata++
	}
	for _, d := range disks {
		a.rec.Erasures = append(a.rec.Erasures, Erasure{Step: step, Disk: d.Name})
	}
	b.wroteOS = false
}

// partitionUUIDs answers for a whole-disk image: the disk identifier is the
// root, plus the EFI system partition.
func (a *Agent) partitionUUIDs(b *boot, _ map[string]any) (any, error) {
	return map[string]any{
		"root uuid":                 "0x5e1f0001",
		"efi system partition uuid": "5e1f0000-0000-4000-8000-0000000000ef",
		"PReP Boot partition uuid":  nil,
		"partitions":                map[string]any{},
	}, nil
}

func (a *Agent) installBootloader(b *boot, params map[string]any) (any, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rec.Bootloader = params
	return nil, nil
}

// powerOff shuts the ramdisk down: the command succeeds, then the system
// turns off. If this boot wrote an OS, the next power-on boots it.
func (a *Agent) powerOff(b *boot, _ map[string]any) (any, error) {
	a.mu.Lock()
	if a.boot == b && b.wroteOS {
		a.instanceNext = true
	}
	a.mu.Unlock()
	time.AfterFunc(200*time.Millisecond, a.m.PowerOff)
	return nil, nil
}

func (a *Agent) reboot(b *boot, _ map[string]any) (any, error) {
	a.mu.Lock()
	if a.boot == b && b.wroteOS {
		a.instanceNext = true
	}
	a.mu.Unlock()
	time.AfterFunc(200*time.Millisecond, a.m.Reboot)
	return nil, nil
}

// collectLogs returns a gzipped tarball of the agent's journal, base64
// encoded, as IPA's collect_system_logs does.
func (a *Agent) collectLogs(b *boot, _ map[string]any) (any, error) {
	a.mu.Lock()
	a.rec.LogsCollected++
	journal := strings.Join(a.rec.Events, "\n") + "\n"
	a.mu.Unlock()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := map[string]string{"journal": journal, "version": fmt.Sprintf("ironic-python-agent %s (simulated)\n", Version)}
	for _, name := range []string{"journal", "version"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), ModTime: time.Now()}); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(files[name])); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return map[string]any{"system_logs": base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
}
