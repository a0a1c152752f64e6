// Package vm runs a simulated system as a qemu virtual machine, as
// sushy-tools' libvirt driver does for metal3-dev-env: the Redfish
// simulator's power, boot override and virtual media drive a real
// machine, which boots the real Ironic Python Agent from the ISO Ironic
// inserts, writes to a real disk and reboots into what it wrote.
//
// The machine reaches loopback only: qemu's user networking with
// restrict=on, where the guest sees the host's services it is given
// (Forwards) at GuestHost and nothing else, and the host reaches the
// guest's ports it is given (HostForwards) on 127.0.0.1. There is no KVM
// here: qemu emulates (tcg).
package vm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Boot is the device a power-on boots from.
type Boot string

const (
	BootDisk    Boot = "disk"    // the VM's disk (Redfish Hdd, or no override)
	BootCD      Boot = "cd"      // the inserted virtual media ISO (Redfish Cd)
	BootNetwork Boot = "network" // iPXE from the NIC (Redfish Pxe)
)

// DefaultGuestHost is where the guest reaches the host's forwarded
// services.
const DefaultGuestHost = "10.0.2.100"

// HostForward makes the guest's port Guest reachable on 127.0.0.1:Host.
type HostForward struct{ Host, Guest int }

// Config describes one machine.
type Config struct {
	// Name names the machine in logs and its console file.
	Name string
	// Dir holds the machine's files: its disk, its console log and the
	// ISOs fetched for its virtual media.
	Dir string
	// MAC is its NIC's address (one virtio NIC, on the loopback-only
	// user network).
	MAC string
	// MemoryMiB is the guest's memory; default 2048 (the agent's
	// initramfs unpacks into a tmpfs capped at half of it).
	MemoryMiB int
	// DiskGiB is the size of its disk; default 8.
	DiskGiB int
	// GuestHost is where the guest sees Forwards; default DefaultGuestHost.
	GuestHost string
	// Forwards are the host's loopback ports the guest may reach, at
	// GuestHost:port (Ironic's API, its boot HTTP server, image servers).
	Forwards []int
	// HostForwards are the guest's ports the host reaches on loopback
	// (the agent's API).
	HostForwards []HostForward
	// QEMU is qemu-system-x86_64's path; default found on PATH.
	QEMU string
	// QEMUImg is qemu-img's path; default found on PATH.
	QEMUImg string
	// Logf, if set, receives what the machine does.
	Logf func(format string, args ...any)
	// OnExit, if set, is called when the guest ends qemu by itself (it
	// powered off, or rebooted: -no-reboot ends qemu then), so that the
	// BMC reports the machine off; not after PowerOff.
	OnExit func()
}

// VM is one machine. Its methods are safe for concurrent use.
type VM struct {
	cfg  Config
	disk string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	boot Boot
}

// New creates the machine's folder and its empty disk; it is off.
func New(cfg Config) (*VM, error) {
	if cfg.Name == "" || cfg.Dir == "" || cfg.MAC == "" {
		return nil, errors.New("vm: a machine needs a name, a folder and a MAC")
	}
	if cfg.MemoryMiB == 0 {
		cfg.MemoryMiB = 2048
	}
	if cfg.DiskGiB == 0 {
		cfg.DiskGiB = 8
	}
	if cfg.GuestHost == "" {
		cfg.GuestHost = DefaultGuestHost
	}
	var err error
	if cfg.QEMU, err = tool(cfg.QEMU, "qemu-system-x86_64"); err != nil {
		return nil, err
	}
	if cfg.QEMUImg, err = tool(cfg.QEMUImg, "qemu-img"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	v := &VM{cfg: cfg, disk: filepath.Join(cfg.Dir, "disk.qcow2")}
	if _, err := os.Stat(v.disk); errors.Is(err, os.ErrNotExist) {
		out, err := exec.Command(cfg.QEMUImg, "create", "-q", "-f", "qcow2", v.disk, strconv.Itoa(cfg.DiskGiB)+"G").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("vm %s: qemu-img create: %v: %s", cfg.Name, err, out)
		}
	}
	return v, nil
}

// tool is path, else name found on PATH.
func tool(path, name string) (string, error) {
	if path != "" {
		return path, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("vm: %s is not installed (Debian's qemu-system-x86 and qemu-utils): %w", name, err)
	}
	return p, nil
}

// Disk is the path of the machine's disk (qcow2).
func (v *VM) Disk() string { return v.disk }

// ConsolePath is the file its serial console is written to.
func (v *VM) ConsolePath() string { return filepath.Join(v.cfg.Dir, "console.log") }

// Args is qemu's command line for a boot from boot with iso in the CD
// drive ("" for an empty drive).
func (v *VM) Args(boot Boot, iso string) []string {
	c := v.cfg
	netdev := "user,id=n0,restrict=on"
	for _, p := range c.Forwards {
		netdev += fmt.Sprintf(",guestfwd=tcp:%s:%d-tcp:127.0.0.1:%d", c.GuestHost, p, p)
	}
	for _, f := range c.HostForwards {
		netdev += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-:%d", f.Host, f.Guest)
	}
	order := map[Boot]string{BootDisk: "c", BootCD: "d", BootNetwork: "n"}[boot]
	if order == "" {
		order = "c"
	}
	args := []string{
		"-name", c.Name,
		"-machine", "q35", "-accel", "tcg,tb-size=256", "-smp", "1", "-m", strconv.Itoa(c.MemoryMiB),
		"-nographic", "-no-reboot", "-monitor", "none",
		// The console of every boot, one after the other.
		"-chardev", "file,id=console,append=on,path=" + v.ConsolePath(), "-serial", "chardev:console",
		"-boot", "order=" + order,
		"-drive", "file=" + v.disk + ",if=virtio,format=qcow2,cache=unsafe",
		"-netdev", netdev,
		"-device", "virtio-net-pci,netdev=n0,mac=" + c.MAC,
	}
	if iso != "" {
		args = append(args, "-drive", "file="+iso+",media=cdrom,readonly=on,if=ide")
	}
	return args
}

// PowerOn starts the machine from boot (iso in its CD drive, "" for
// none); a machine already on stays as it is.
func (v *VM) PowerOn(boot Boot, iso string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cmd != nil {
		return nil
	}
	cmd := exec.Command(v.cfg.QEMU, v.Args(boot, iso)...)
	cmd.Dir = v.cfg.Dir
	out, err := os.OpenFile(filepath.Join(v.cfg.Dir, "qemu.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: a test that dies does not leave it behind
	// (Close kills the group).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("vm %s: starting qemu: %w", v.cfg.Name, err)
	}
	done := make(chan struct{})
	v.cmd, v.done, v.boot = cmd, done, boot
	v.logf("powered on, booting from %s (qemu pid %d)", boot, cmd.Process.Pid)
	go func() {
		err := cmd.Wait()
		out.Close()
		v.mu.Lock()
		byItself := v.cmd == cmd
		if byItself {
			// The guest powered itself off, or rebooted (-no-reboot ends
			// qemu on a reboot: the BMC's next power-on boots it again).
			v.cmd = nil
			v.logf("qemu exited (%v): the machine is off", err)
		}
		v.mu.Unlock()
		close(done)
		if byItself && v.cfg.OnExit != nil {
			v.cfg.OnExit()
		}
	}()
	return nil
}

// PowerOff stops the machine at once, as pulling the power does.
func (v *VM) PowerOff() {
	v.mu.Lock()
	cmd, done := v.cmd, v.done
	v.cmd = nil
	v.mu.Unlock()
	if cmd == nil {
		return
	}
	peak := peakRSS(cmd.Process.Pid)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	v.logf("powered off (qemu's peak memory: %s)", peak)
}

// peakRSS is process pid's peak resident memory (VmHWM), or "unknown".
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// On reports whether the machine runs.
func (v *VM) On() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cmd != nil
}

// Fetch downloads the image at url into the machine's folder, as a BMC
// reads the image of an InsertMedia when the machine boots from it, and
// returns its path. It is fetched again at every boot: Ironic rebuilds a
// node's ISO under the same URL for each boot (a machine still running
// keeps the file it opened).
func (v *VM) Fetch(ctx context.Context, url string) (string, error) {
	sum := sha256.Sum256([]byte(url))
	path := filepath.Join(v.cfg.Dir, "media-"+hex.EncodeToString(sum[:8])+".iso")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("vm %s: fetching %s: %w", v.cfg.Name, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("vm %s: fetching %s: HTTP %d", v.cfg.Name, url, resp.StatusCode)
	}
	tmp, err := os.CreateTemp(v.cfg.Dir, "media-*.part")
	if err != nil {
		return "", err
	}
	began := time.Now()
	n, err := io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("vm %s: fetching %s: %w", v.cfg.Name, url, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	v.logf("fetched %s (%d bytes in %s)", url, n, time.Since(began).Round(time.Millisecond))
	return path, nil
}

// Close powers the machine off; its folder stays.
func (v *VM) Close() error {
	v.PowerOff()
	return nil
}

func (v *VM) logf(format string, args ...any) {
	if v.cfg.Logf != nil {
		v.cfg.Logf("vm %s: "+format, append([]any{v.cfg.Name}, args...)...)
	}
}
