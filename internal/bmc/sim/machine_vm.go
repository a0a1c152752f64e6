package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/vm"
)

// VMOptions makes every system a qemu machine (package vm), as
// sushy-tools' libvirt driver makes libvirt domains Redfish systems: power
// starts and stops the machine, the boot override picks its boot device,
// and an inserted virtual media image is fetched and put in its CD drive.
// The machine's NIC has the MAC of the profile's first NIC.
type VMOptions struct {
	// Dir holds each system's machine in Dir/<system id>.
	Dir string
	// Forwards are the loopback ports the machines reach, at
	// vm.DefaultGuestHost (Ironic's API, its boot server, image servers).
	Forwards []int
	// AgentPorts maps a system id to the loopback port where the host
	// reaches its agent's API (guest port 9999); advertise it to Ironic
	// with ipa-advertise-host=127.0.0.1 and ipa-advertise-port.
	AgentPorts map[string]int
	// MemoryMiB and DiskGiB size each machine (vm.Config defaults).
	MemoryMiB, DiskGiB int
	// QEMU and QEMUImg are the qemu binaries (default: found on PATH).
	QEMU, QEMUImg string
}

// vmSystem is a system's machine and the queue of its power operations,
// run one after the other in their order (a reset is off, then on).
type vmSystem struct {
	m    *vm.VM
	ops  chan func()
	logf func(format string, args ...any)
}

func (s *Server) newVM(sys *system) (*vmSystem, error) {
	o := s.opts.VM
	if len(sys.profile.NICs) == 0 {
		return nil, fmt.Errorf("sim: system %s has no NIC to give its machine", sys.id)
	}
	cfg := vm.Config{Name: sys.id, Dir: filepath.Join(o.Dir, sys.id), MAC: sys.profile.NICs[0].MAC,
		MemoryMiB: o.MemoryMiB, DiskGiB: o.DiskGiB, Forwards: o.Forwards, QEMU: o.QEMU, QEMUImg: o.QEMUImg, Logf: s.opts.Logf}
	if p := o.AgentPorts[sys.id]; p != 0 {
		cfg.HostForwards = []vm.HostForward{{Host: p, Guest: 9999}}
	}
	cfg.OnExit = func() {
		s.mu.Lock()
		sys.power = PowerOff
		s.mu.Unlock()
	}
	m, err := vm.New(cfg)
	if err != nil {
		return nil, err
	}
	v := &vmSystem{m: m, ops: make(chan func(), 16), logf: s.opts.Logf}
	go func() {
		for op := range v.ops {
			op()
		}
	}()
	return v, nil
}

// powerOn boots sys's machine as its BMC state says (called with the
// server's lock held): from the inserted CD when the override says Cd,
// from the network for Pxe, else from its disk.
func (v *vmSystem) powerOn(sys *system) {
	boot, image := vm.BootDisk, ""
	switch sys.boot.Target {
	case "Cd":
		if m := sys.media[sys.mediaDev("Cd")]; m != nil && m.Inserted && m.Image != "" {
			boot, image = vm.BootCD, m.Image
		}
	case "Pxe":
		boot = vm.BootNetwork
	}
	id, logf := sys.id, v.logf
	v.ops <- func() {
		iso := ""
		if image != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			p, err := v.m.Fetch(ctx, image)
			cancel()
			if err != nil {
				// A BMC that cannot fetch the image boots nothing from it.
				if logf != nil {
					logf("system %s: virtual media: %v", id, err)
				}
				return
			}
			iso = p
		}
		if err := v.m.PowerOn(boot, iso); err != nil && logf != nil {
			logf("system %s: %v", id, err)
		}
	}
}

func (v *vmSystem) powerOff() { v.ops <- v.m.PowerOff }

// Machine is system id's qemu machine (nil unless Options.VM).
func (s *Server) Machine(id string) *vm.VM {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sys := s.systems[id]; sys != nil && sys.vm != nil {
		return sys.vm.m
	}
	return nil
}

// SyncMachine returns once system id's machine has done every power
// operation asked of it so far (a barrier for tests).
func (s *Server) SyncMachine(id string) {
	s.mu.Lock()
	sys := s.systems[id]
	s.mu.Unlock()
	if sys == nil || sys.vm == nil {
		return
	}
	done := make(chan struct{})
	sys.vm.ops <- func() { close(done) }
	<-done
}

func (v *vmSystem) close() {
	done := make(chan struct{})
	v.ops <- func() { v.m.PowerOff(); close(done) }
	<-done
	close(v.ops)
}
