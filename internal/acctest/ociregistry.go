package acctest

// ociregistry.go starts the private OCI registry of the tests
// (internal/ociregistry) in-process, with the demo's tiny qcow2 pushed as
// the OCI artifact Ironic 2025.1 looks for.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ociregistry"
)

// OCIImage is the demo image in an authenticating registry.
type OCIImage struct {
	URL            string // oci://127.0.0.1:<port>/demo/disk:latest
	User, Password string // the registry's only account
	Registry       *ociregistry.Registry
	Pushed         ociregistry.Pushed
}

// OCIRegistry starts a registry that requires authentication, with a
// random password, and pushes a new 64 MiB qcow2 (qemu-img) to it; it
// stops when the test ends.
func OCIRegistry(t *testing.T) OCIImage {
	t.Helper()
	data, err := ociregistry.DemoQcow2()
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 8)
	_, _ = rand.Read(raw)
	img := OCIImage{User: "deployer", Password: "regpw-" + hex.EncodeToString(raw)}
	img.Registry = ociregistry.New(img.User, img.Password)
	srv := httptest.NewServer(img.Registry)
	t.Cleanup(srv.Close)
	img.Pushed, err = ociregistry.Push(context.Background(), strings.TrimPrefix(srv.URL, "http://"), "demo/disk", "latest",
		img.User, img.Password, ociregistry.DiskImage{Data: data, FileName: "demo.qcow2", DiskType: "qcow2", Arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	img.URL = img.Pushed.URL
	return img
}
