package ociregistry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func startRegistry(t *testing.T) (*Registry, *httptest.Server) {
	t.Helper()
	r := New("deployer", "s3cret-pass")
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv
}

// The registry refuses anonymous access with a bearer challenge, as real
// registries do, and its token endpoint refuses wrong credentials.
func TestRegistryRequiresToken(t *testing.T) {
	_, srv := startRegistry(t)
	resp, err := http.Get(srv.URL + "/v2/demo/manifests/latest")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(ch, `Bearer realm="`+srv.URL+`/token",service="ociregistry"`) ||
		!strings.Contains(ch, `scope="repository:demo:pull"`) {
		t.Fatalf("anonymous GET: %d %q", resp.StatusCode, ch)
	}
	for name, set := range map[string]func(*http.Request){
		"none":           func(*http.Request) {},
		"wrong password": func(r *http.Request) { r.SetBasicAuth("deployer", "nope") },
		"wrong auth":     func(r *http.Request) { r.SetBasicAuth("", base64.StdEncoding.EncodeToString([]byte("deployer:nope"))) },
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/token?service=ociregistry&scope=repository:demo:pull", nil)
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: token endpoint answered %d, want 401", name, resp.StatusCode)
		}
	}
}

// Pushed through go-containerregistry's client, then resolved as Ironic
// 2025.1's conductor does with the pull secret: the blob URL with the
// bearer authorization downloads the image; without a secret the
// resolution fails at the token endpoint.
func TestPushAndResolve(t *testing.T) {
	r, srv := startRegistry(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	disk := []byte("QFI\xfb not really a qcow2, but bytes with a digest")
	ctx := context.Background()
	p, err := Push(ctx, host, "images/demo", "v1", "deployer", "s3cret-pass", DiskImage{Data: disk, FileName: "disk.qcow2", DiskType: "qcow2", Arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "oci://"+host+"/images/demo:v1" {
		t.Errorf("URL %q", p.URL)
	}
	info, err := Resolve(ctx, http.DefaultClient, "http", p.URL, r.Auth(), "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(disk)
	if info.Checksum != hex.EncodeToString(sum[:]) || info.URL != srv.URL+"/v2/images/demo/blobs/"+p.BlobDigest || info.DiskFormat != "qcow2" {
		t.Fatalf("resolved %+v", info)
	}
	hdr, _ := base64.StdEncoding.DecodeString(info.Authorization)
	req, _ := http.NewRequest(http.MethodGet, info.URL, nil)
	req.Header.Set("Authorization", string(hdr))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(got) != string(disk) {
		t.Fatalf("blob with the token: %d, %d bytes", resp.StatusCode, len(got))
	}
	// The access log: the conductor's manifest reads and the blob download,
	// each under the account and the credential form behind its token.
	pulls := r.Pulls()
	var blobs []Pull
	for _, pl := range pulls {
		if pl.User != "deployer" || pl.Via != "pull secret" || pl.Repository != "images/demo" || pl.Status != http.StatusOK {
			t.Errorf("pull %s", pl)
		}
		if pl.Kind == "blob" {
			blobs = append(blobs, pl)
		}
	}
	if len(pulls) != 3 || len(blobs) != 1 || blobs[0].Reference != p.BlobDigest || blobs[0].Bytes != int64(len(disk)) {
		t.Fatalf("pulls %v, want the tag's index, the manifest and blob %s (%d bytes)", pulls, p.BlobDigest, len(disk))
	}
	if line := blobs[0].String(); !strings.Contains(line, `authenticated pull: user="deployer" via="pull secret" repository="images/demo" blob=`+p.BlobDigest+` status=200 bytes=`) {
		t.Errorf("log line %q", line)
	}
	if _, err := Resolve(ctx, http.DefaultClient, "http", p.URL, "", "x86_64"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without a secret: %v, want the token endpoint's 401", err)
	}
	if _, err := Resolve(ctx, http.DefaultClient, "http", p.URL, r.Auth(), "aarch64"); err == nil {
		t.Fatal("an aarch64 node found the amd64 image")
	}
	if n := len(r.Pulls()); n != 4 { // + the aarch64 look-up's index
		t.Errorf("%d pulls logged, want 4: refused requests are not pulls", n)
	}
}

// Over TLS, as Ironic 2025.1 reaches registries (https only): pushed with
// the user and password, resolved with the account's password too (the
// access log says which credential form was used).
func TestPushAndResolveTLS(t *testing.T) {
	r := New("deployer", "s3cret-pass")
	srv := httptest.NewTLSServer(r)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	ctx := context.Background()
	p, err := Push(ctx, host, "demo", "latest", "deployer", "s3cret-pass",
		DiskImage{Data: []byte("raw disk"), FileName: "disk.raw", DiskType: "raw", Arch: "amd64"}, remote.WithTransport(srv.Client().Transport))
	if err != nil {
		t.Fatal(err)
	}
	var printed []string
	r.OnPull(func(p Pull) { printed = append(printed, p.String()) })
	c := &client{hc: srv.Client(), ctx: ctx}
	if err := c.authenticate("https://"+host+"/v2/", "demo", ""); err == nil {
		t.Fatal("authenticated without credentials")
	}
	info, err := Resolve(ctx, srv.Client(), "https", p.URL, r.Auth(), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.URL, "https://"+host+"/v2/demo/blobs/sha256:") || info.DiskFormat != "raw" {
		t.Fatalf("resolved %+v", info)
	}
	if pulls := r.Pulls(); len(pulls) != 2 || pulls[0].Kind != "manifest" || pulls[0].Reference != "latest" {
		t.Fatalf("pulls %v, want the tag and the manifest", pulls)
	}
	if len(printed) != 2 || !strings.Contains(printed[0], `user="deployer" via="pull secret" repository="demo" manifest=latest status=200`) {
		t.Fatalf("OnPull saw %q", printed)
	}
}

// DemoQcow2 is a qcow2 (its magic, version 3 or 2) of 64 MiB virtual size.
func TestDemoQcow2(t *testing.T) {
	if _, err := exec.LookPath("qemu-img"); err != nil {
		t.Skip("qemu-img is not installed (scripts/ironic.sh install adds qemu-utils)")
	}
	data, err := DemoQcow2()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 32 || string(data[:4]) != "QFI\xfb" || binary.BigEndian.Uint64(data[24:32]) != 64<<20 {
		t.Fatalf("not a 64 MiB qcow2: % x", data[:min(len(data), 32)])
	}
}
