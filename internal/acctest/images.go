package acctest

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Image is a real qcow2 image served over HTTP for agent deploys.
type Image struct {
	URL    string
	SHA256 string
	MD5    string
	Size   int64
}

// ImageServer makes a tiny qcow2 image with qemu-img and serves it (and
// GET/HEAD of anything else in its directory) on a free loopback port until
// the test ends. The rig installs qemu-utils; without qemu-img the test
// fails, saying so.
func ImageServer(t *testing.T) Image {
	t.Helper()
	qemu, err := exec.LookPath("qemu-img")
	if err != nil {
		t.Fatalf("qemu-img is not installed (scripts/ironic.sh install adds qemu-utils): %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "disk.qcow2")
	if out, err := exec.Command(qemu, "create", "-q", "-f", "qcow2", path, "64M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s256, m5 := sha256.Sum256(data), md5.Sum(data)
	return Image{URL: "http://" + ln.Addr().String() + "/disk.qcow2", SHA256: hex.EncodeToString(s256[:]), MD5: hex.EncodeToString(m5[:]), Size: int64(len(data))}
}
