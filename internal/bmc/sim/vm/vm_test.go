package vm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// fakeTools writes stand-ins for qemu-img (creates the disk file) and
// qemu-system-x86_64 (records its arguments, says so on the FIFO started,
// then runs until killed).
func fakeTools(t *testing.T) (qemu, img, argsFile, started string) {
	t.Helper()
	dir := t.TempDir()
	argsFile, started = filepath.Join(dir, "args"), filepath.Join(dir, "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	qemu, img = filepath.Join(dir, "qemu"), filepath.Join(dir, "qemu-img")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(qemu, `printf '%s\n' "$@" >>`+argsFile+"\necho up >"+started+"\nexec sleep 600\n")
	write(img, `for a; do prev=$last; last=$a; done; : >"$prev"`+"\n")
	return qemu, img, argsFile, started
}

// awaitStart returns once the fake qemu has recorded its arguments.
func awaitStart(t *testing.T, started string) {
	t.Helper()
	if _, err := os.ReadFile(started); err != nil {
		t.Fatal(err)
	}
}

func newTestVM(t *testing.T) (*VM, string, string) {
	t.Helper()
	qemu, img, args, started := fakeTools(t)
	v, err := New(Config{Name: "sys-0", Dir: t.TempDir(), MAC: "52:54:00:12:34:56", Forwards: []int{6385, 8088},
		HostForwards: []HostForward{{Host: 41000, Guest: 9999}}, QEMU: qemu, QEMUImg: img})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v, args, started
}

// TestArgs: the guest reaches only the forwarded loopback ports (restrict=on,
// every guestfwd to 127.0.0.1), the host reaches the agent's port on
// loopback only, the boot device follows the override, and the CD drive
// holds the ISO only when one is inserted.
func TestArgs(t *testing.T) {
	v, _, _ := newTestVM(t)
	args := v.Args(BootCD, "/tmp/ipa.iso")
	joined := strings.Join(args, " ")
	netdev := args[slices.Index(args, "-netdev")+1]
	for _, want := range []string{"restrict=on", "guestfwd=tcp:10.0.2.100:6385-tcp:127.0.0.1:6385",
		"guestfwd=tcp:10.0.2.100:8088-tcp:127.0.0.1:8088", "hostfwd=tcp:127.0.0.1:41000-:9999"} {
		if !strings.Contains(netdev, want) {
			t.Errorf("netdev %q lacks %s", netdev, want)
		}
	}
	for _, part := range strings.Split(netdev, ",") {
		if k, val, _ := strings.Cut(part, "="); k == "guestfwd" && !strings.Contains(val, "-tcp:127.0.0.1:") {
			t.Errorf("a guest forward leaves loopback: %s", part)
		}
	}
	for _, want := range []string{"-boot order=d", "mac=52:54:00:12:34:56", "file=/tmp/ipa.iso,media=cdrom", "-m 2048", "tcg"} {
		if !strings.Contains(joined, want) {
			t.Errorf("args lack %q: %s", want, joined)
		}
	}
	for boot, order := range map[Boot]string{BootDisk: "order=c", BootNetwork: "order=n"} {
		a := strings.Join(v.Args(boot, ""), " ")
		if !strings.Contains(a, "-boot "+order) || strings.Contains(a, "media=cdrom") {
			t.Errorf("%s: %s", boot, a)
		}
	}
}

// TestPower: power on starts one qemu (a second power-on while on does
// not start another), power off kills it, and the next power-on boots
// again, from the device asked for.
func TestPower(t *testing.T) {
	v, argsFile, started := newTestVM(t)
	if _, err := os.Stat(v.Disk()); err != nil {
		t.Fatalf("no disk: %v", err)
	}
	if err := v.PowerOn(BootCD, "/tmp/a.iso"); err != nil {
		t.Fatal(err)
	}
	awaitStart(t, started)
	if err := v.PowerOn(BootDisk, ""); err != nil {
		t.Fatal(err)
	}
	if !v.On() {
		t.Fatal("not on after power on")
	}
	v.PowerOff()
	if v.On() {
		t.Fatal("on after power off")
	}
	if err := v.PowerOn(BootDisk, ""); err != nil {
		t.Fatal(err)
	}
	awaitStart(t, started)
	v.PowerOff()
	raw, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	var orders []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "order=") {
			orders = append(orders, l)
		}
	}
	if !slices.Equal(orders, []string{"order=d", "order=c"}) {
		t.Errorf("qemu started with boot %v, want a CD boot then a disk boot", orders)
	}
}

// TestFetch: an inserted image is fetched into the machine's folder at
// every boot from it, as a BMC reads the URL when the machine boots (Ironic
// rebuilds a node's ISO under the same URL for each boot, with that boot's
// kernel parameters); an image the server does not have is an error naming
// the URL and status.
func TestFetch(t *testing.T) {
	v, _, _ := newTestVM(t)
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/boot.iso" {
			http.NotFound(w, r)
			return
		}
		hits++
		_, _ = fmt.Fprintf(w, "ISO %d", hits)
	}))
	t.Cleanup(srv.Close)
	for i := 1; i <= 2; i++ {
		p, err := v.Fetch(context.Background(), srv.URL+"/boot.iso")
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != fmt.Sprintf("ISO %d", i) {
			t.Fatalf("fetch %d: %s holds %q", i, p, b)
		}
	}
	if _, err := v.Fetch(context.Background(), srv.URL+"/gone.iso"); err == nil || !strings.Contains(err.Error(), "gone.iso: HTTP 404") {
		t.Errorf("err = %v", err)
	}
}

// TestGuestPowersOff: a guest that ends qemu by itself (it powered off)
// leaves the machine off and calls OnExit, so the BMC reports it off.
func TestGuestPowersOff(t *testing.T) {
	_, img, _, _ := fakeTools(t)
	dir := t.TempDir()
	qemu := filepath.Join(dir, "qemu")
	if err := os.WriteFile(qemu, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	v, err := New(Config{Name: "sys-1", Dir: dir, MAC: "52:54:00:12:34:57", QEMU: qemu, QEMUImg: img,
		OnExit: func() { close(exited) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.PowerOn(BootDisk, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-t.Context().Done():
		t.Fatal("OnExit was not called")
	}
	if v.On() {
		t.Error("on after the guest powered off")
	}
}
