package acctest

// An IPMI BMC in front of a simulated system: OpenIPMI's ipmi_sim (Debian
// package openipmi) speaks IPMI over LAN on a loopback UDP port, and its
// chassis_control program hands power and boot device changes to the
// simulator's /sim/systems/{id}/ipmi-chassis (internal/bmc/sim/ipmi.go).

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// StartIPMISim starts ipmi_sim for system id of srv, accepting user/pass
// (cipher suite 3: ipmitool's discovery of suites times out against
// ipmi_sim), and returns its UDP port on 127.0.0.1. It skips the test,
// saying why, without ipmi_sim or ipmitool; ipmi_sim stops when the test
// ends.
func StartIPMISim(t *testing.T, srv *sim.Server, id, user, pass string) int {
	t.Helper()
	bin, err := exec.LookPath("ipmi_sim")
	if err != nil {
		t.Skip("IPMI test: ipmi_sim is not installed (Debian package openipmi; scripts/ironic.sh install installs it)")
	}
	if _, err := exec.LookPath("ipmitool"); err != nil {
		t.Skip("IPMI test: ipmitool is not installed")
	}
	port := freeUDPPort(t)
	dir := t.TempDir()
	chassis := filepath.Join(dir, "chassis")
	// The program gets DEVICE get|set PARAMS...: the simulator answers.
	script := fmt.Sprintf("#!/bin/sh\nshift\nexec curl -fsS --max-time 10 --data-binary \"$*\" %s/sim/systems/%s/ipmi-chassis\n", srv.URL(), id)
	conf := fmt.Sprintf(`name "%[1]s"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 %[2]d
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  chassis_control "%[3]s 0x20"
  user 2 true "%[4]s" "%[5]s" admin 10 none md2 md5 straight
`, id, port, chassis, user, pass)
	// One BMC management controller, no sensors.
	emu := "mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr\nmc_enable 0x20\n"
	for name, body := range map[string]string{chassis: script, filepath.Join(dir, "lan.conf"): conf, filepath.Join(dir, "bmc.emu"): emu} {
		if err := os.WriteFile(name, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "ipmi_sim.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", filepath.Join(dir, "lan.conf"), "-f", filepath.Join(dir, "bmc.emu"), "-s", filepath.Join(dir, "state"), "-n")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start ipmi_sim: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = out.Close()
	})
	// Up once ipmitool gets an answer through it (a few hundred ms).
	var last []byte
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		last, err = exec.Command("ipmitool", "-I", "lanplus", "-C", "3", "-H", "127.0.0.1", "-p", strconv.Itoa(port), "-U", user, "-P", pass, "power", "status").CombinedOutput()
		if err == nil {
			return port
		}
		time.Sleep(100 * time.Millisecond) // polling a starting process
	}
	log, _ := os.ReadFile(filepath.Join(dir, "ipmi_sim.log"))
	t.Fatalf("ipmi_sim on 127.0.0.1:%d never answered: %v: %s (its log: %s)", port, err, last, log)
	return 0
}

func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	addr, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok {
		t.Fatalf("UDP listener address %v", c.LocalAddr())
	}
	return addr.Port
}
