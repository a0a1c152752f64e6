package acctest

// ociregistry.go starts the private OCI registry of the tests
// (internal/ociregistry) in-process, with the demo's tiny qcow2 pushed as
// the OCI artifact Ironic 2025.1 looks for.

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ociregistry"
)

// OCIImage is the demo image in an authenticating registry.
type OCIImage struct {
	URL            string // oci://127.0.0.1:<port>/demo/disk:latest
	User, Password string // the registry's only account
	Registry       *ociregistry.Registry
	Pushed         ociregistry.Pushed
	// TLS reports whether the registry serves https (with the rig's
	// certificate, see OCITLS), as Ironic 2025.1 requires.
	TLS bool
	// Roots trusts the registry's certificate (nil without TLS).
	Roots *x509.CertPool
}

// HTTPClient is a client that trusts the registry, for a simulated agent
// (a real ramdisk has the site's CA in its trust store).
func (i OCIImage) HTTPClient() *http.Client {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConns: 10, IdleConnTimeout: 90 * time.Second}
	if i.Roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: i.Roots, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// OCITLS is the certificate and key the rig's Ironic trusts for the tests'
// registries (scripts/ironic.sh env: BAREMETAL_TEST_OCI_TLS_CERT and
// _KEY), or "" when the rig gives none.
func OCITLS() (certFile, keyFile string) {
	return os.Getenv("BAREMETAL_TEST_OCI_TLS_CERT"), os.Getenv("BAREMETAL_TEST_OCI_TLS_KEY")
}

// OCIRegistry starts a registry that requires authentication, with a
// random password, and pushes a new 64 MiB qcow2 (qemu-img) to it; it
// stops when the test ends. With the rig's certificate (OCITLS) it serves
// https, the only scheme Ironic 2025.1's OCI client speaks; else http.
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
	srv := httptest.NewUnstartedServer(img.Registry)
	if certFile, keyFile := OCITLS(); certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatalf("the rig's OCI registry certificate: %v", err)
		}
		pem, err := os.ReadFile(certFile)
		if err != nil {
			t.Fatal(err)
		}
		img.Roots = x509.NewCertPool()
		img.Roots.AppendCertsFromPEM(pem)
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		srv.StartTLS()
		img.TLS = true
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(strings.TrimPrefix(srv.URL, "https://"), "http://")
	img.Pushed, err = ociregistry.Push(context.Background(), host, "demo/disk", "latest",
		img.User, img.Password, ociregistry.DiskImage{Data: data, FileName: "demo.qcow2", DiskType: "qcow2", Arch: "amd64"},
		remote.WithTransport(img.HTTPClient().Transport))
	if err != nil {
		t.Fatal(err)
	}
	img.URL = img.Pushed.URL
	return img
}
