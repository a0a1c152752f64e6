package ociregistry

// artifact.go pushes a disk image as the OCI artifact Ironic's OCI image
// service looks for (Ironic's "Use of an OCI Container Registry" guide, the
// `oras push -a disktype=qcow2 --artifact-platform linux/x86_64` example):
// a tag on an image index whose manifest entry carries the `disktype`
// annotation and the platform, a single-layer manifest with an empty
// config, the layer being the disk image itself. It also makes the demo's
// disk image that the rig and the tests push.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Media types of the artifact.
const (
	MediaIndex    = "application/vnd.oci.image.index.v1+json"
	MediaManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaEmpty    = "application/vnd.oci.empty.v1+json"
	MediaDisk     = "application/octet-stream"
	ArtifactType  = "application/vnd.unknown.artifact.v1"
)

// DemoQcow2 is the demo's disk image, as the rig, the demo and the tests
// push it: a new, empty 64 MiB qcow2 made with qemu-img.
func DemoQcow2() ([]byte, error) {
	qemu, err := exec.LookPath("qemu-img")
	if err != nil {
		return nil, fmt.Errorf("qemu-img is not installed (scripts/ironic.sh install adds qemu-utils): %w", err)
	}
	dir, err := os.MkdirTemp("", "ociregistry")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	p := filepath.Join(dir, "demo.qcow2")
	if out, err := exec.Command(qemu, "create", "-q", "-f", "qcow2", p, "64M").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("qemu-img create: %v: %s", err, out)
	}
	return os.ReadFile(p)
}

// DiskImage is a disk image to push.
type DiskImage struct {
	Data     []byte
	FileName string // org.opencontainers.image.title, e.g. disk.qcow2
	DiskType string // the disktype annotation: qcow2 or raw
	Arch     string // platform architecture, e.g. amd64
}

// Pushed says where the artifact went.
type Pushed struct {
	// URL is the oci:// URL of the tag.
	URL string
	// ManifestDigest and BlobDigest ("sha256:...").
	ManifestDigest, BlobDigest string
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    map[string]string `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// rawManifest is a manifest or index to PUT as is.
type rawManifest struct {
	body      []byte
	mediaType string
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.body, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return types.MediaType(m.mediaType), nil }

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Push uploads img to host/repo:tag with the registry's credentials,
// through go-containerregistry's client (which goes through the same token
// exchange as any other client). extra are more client options, such as
// remote.WithTransport for a registry serving TLS with a test certificate.
func Push(ctx context.Context, host, repo, tag, user, password string, img DiskImage, extra ...remote.Option) (Pushed, error) {
	ref, err := name.NewTag(host+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		return Pushed{}, err
	}
	opts := append([]remote.Option{remote.WithContext(ctx), remote.WithAuth(&authn.Basic{Username: user, Password: password})}, extra...)
	empty := []byte("{}")
	for _, blob := range []struct {
		data []byte
		mt   string
	}{{empty, MediaEmpty}, {img.Data, MediaDisk}} {
		if err := remote.WriteLayer(ref.Context(), static.NewLayer(blob.data, types.MediaType(blob.mt)), opts...); err != nil {
			return Pushed{}, fmt.Errorf("pushing a blob to %s: %w", ref.Context(), err)
		}
	}
	blob := descriptor{MediaType: MediaDisk, Digest: digestOf(img.Data), Size: int64(len(img.Data)),
		Annotations: map[string]string{"org.opencontainers.image.title": img.FileName}}
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": MediaManifest, "artifactType": ArtifactType,
		"config": descriptor{MediaType: MediaEmpty, Digest: digestOf(empty), Size: int64(len(empty))},
		"layers": []descriptor{blob},
	})
	md := digestOf(manifest)
	if err := remote.Put(ref.Context().Digest(md), rawManifest{manifest, MediaManifest}, opts...); err != nil {
		return Pushed{}, fmt.Errorf("pushing the manifest: %w", err)
	}
	index, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": MediaIndex,
		"manifests": []descriptor{{MediaType: MediaManifest, Digest: md, Size: int64(len(manifest)),
			Platform:    map[string]string{"architecture": img.Arch, "os": "linux"},
			Annotations: map[string]string{"disktype": img.DiskType}}},
	})
	if err := remote.Put(ref, rawManifest{index, MediaIndex}, opts...); err != nil {
		return Pushed{}, fmt.Errorf("pushing the index: %w", err)
	}
	return Pushed{URL: "oci://" + host + "/" + repo + ":" + tag, ManifestDigest: md, BlobDigest: blob.Digest}, nil
}
