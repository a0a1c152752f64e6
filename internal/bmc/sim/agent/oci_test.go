package agent

// oci_test.go: the agent pulls an oci:// image as IPA does for Ironic
// 2025.1, from a real authenticating registry (internal/ociregistry), with
// the image_info Ironic's conductor builds (the blob URL, its sha256, and
// image_request_authorization obtained with the node's pull secret).

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ociregistry"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// ociMachine is the least a Machine needs for a download.
type ociMachine struct{}

func (ociMachine) MACs() []string                      { return []string{"52:54:00:00:0c:01"} }
func (ociMachine) PowerOff()                           {}
func (ociMachine) Reboot()                             {}
func (ociMachine) SetPendingBIOS(map[string]any) error { return nil }
func (ociMachine) Inventory() Inventory                { return Inventory{} }

// demoQcow2 makes the demo's tiny qcow2 with qemu-img.
func demoQcow2(t *testing.T) []byte {
	t.Helper()
	qemu, err := exec.LookPath("qemu-img")
	if err != nil {
		t.Skipf("qemu-img is not installed (scripts/ironic.sh install adds qemu-utils): %v", err)
	}
	p := filepath.Join(t.TempDir(), "demo.qcow2")
	if out, err := exec.Command(qemu, "create", "-q", "-f", "qcow2", p, "64M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOCIPullWithCredentials(t *testing.T) {
	ctx := context.Background()
	reg := ociregistry.New("deployer", "registry-pass-0c1")
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	disk := demoQcow2(t)
	pushed, err := ociregistry.Push(ctx, host, "demo/disk", "latest", "deployer", "registry-pass-0c1",
		ociregistry.DiskImage{Data: disk, FileName: "demo.qcow2", DiskType: "qcow2", Arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	// What the provider sends as instance_info.image_pull_secret for
	// pull_secret_wo = "deployer:registry-pass-0c1".
	secret, err := validators.PullSecretForIronic(host, "deployer:registry-pass-0c1")
	if err != nil {
		t.Fatal(err)
	}
	// What Ironic 2025.1's conductor then hands the agent.
	resolved, err := ociregistry.Resolve(ctx, http.DefaultClient, "http", pushed.URL, secret, "x86_64")
	if err != nil {
		t.Fatalf("the conductor's side: %v", err)
	}
	a, err := New(Config{IronicURL: "http://127.0.0.1:1", Logf: t.Logf}, "sys-oci", ociMachine{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })

	cases := []struct {
		name    string
		auth    string // image_request_authorization; "-" leaves it out
		wantErr string
	}{
		{"with the credentials Ironic obtained", resolved.Authorization, ""},
		{"without credentials", "-", "Received status code 401 from " + resolved.URL + ", expected 200. Response body: {\"errors\":[{\"code\":\"UNAUTHORIZED\""},
		{"with a wrong token", base64.StdEncoding.EncodeToString([]byte("Bearer not-a-token")), "Received status code 401 from " + resolved.URL},
		{"with basic credentials instead of the token", base64.StdEncoding.EncodeToString([]byte("Basic " + secret)), "Received status code 401"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := resolved
			info.Authorization = ""
			m := info.Map("disk:latest")
			if c.auth != "-" {
				m["image_request_authorization"] = c.auth
			}
			m["node_uuid"] = "11111111-2222-4333-8444-0c0c0c0c0c0c"
			rec, err := a.download(&boot{ctx: ctx}, m)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("download: %v", err)
				}
				if rec.Verdict != "match" || rec.Bytes != int64(len(disk)) || rec.Algorithm != "sha256" || rec.URL != resolved.URL || rec.AuthScheme != "Bearer" {
					t.Fatalf("record %+v", rec)
				}
				// The registry logged the agent's download under the
				// account whose pull secret the conductor used.
				var blob *ociregistry.Pull
				for _, p := range reg.Pulls() {
					if p.Kind == "blob" {
						blob = &p
					}
				}
				if blob == nil || blob.User != "deployer" || blob.Via != "pull secret" || blob.Reference != pushed.BlobDigest || blob.Bytes != int64(len(disk)) {
					t.Fatalf("registry pulls %v, want the blob %s by deployer", reg.Pulls(), pushed.BlobDigest)
				}
				t.Log(blob)
				return
			}
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Type != "ImageDownloadError" || !strings.Contains(ce.Details, c.wantErr) {
				t.Fatalf("error %v, want an ImageDownloadError with %q", err, c.wantErr)
			}
			if rec.Verdict != "download failed" {
				t.Errorf("verdict %q", rec.Verdict)
			}
			if strings.Contains(ce.Details, secret) || strings.Contains(ce.Details, "registry-pass-0c1") {
				t.Errorf("the error shows the credentials: %s", ce.Details)
			}
		})
	}
}
