package lifecycle

// ociimage.go owns the question whether the Ironic in use can deploy an
// oci:// image. Ironic 2025.1 (29.0) is the first release with an OCI image
// service (image_source oci://..., instance_info.image_pull_secret); the
// feature has no microversion of its own (instance_info is free-form), so
// the API maximum tells the releases apart: 1.96 is 29.0's, 1.95 28.0's.

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// OCIMinMicroversion is the API maximum of Ironic 2025.1 (29.0), the first
// release that deploys oci:// images (FeatureOCI).
var OCIMinMicroversion = FeatureOCI.Microversion()

// APIVersions reports the Ironic API's maximum microversion (the server's,
// not the negotiated one). Implemented by internal/ironic's Catalog.
type APIVersions interface {
	ServerMaxMicroversion(ctx context.Context) (string, error)
}

// OCIUnsupportedError says that Ironic is too old for an oci:// image.
type OCIUnsupportedError struct {
	URL, ServerMax string
}

func (e *OCIUnsupportedError) Error() string {
	scheme := "oci"
	if u, err := url.Parse(e.URL); err == nil && u.Scheme != "" {
		scheme = u.Scheme
	}
	return fmt.Sprintf("image.url %q uses the %s:// scheme, which needs Ironic 2025.1 (29.0, API microversion %s) or later "+
		"(Ironic's OCI image service); this Ironic's maximum API microversion is %s. Upgrade Ironic, or serve the image over "+
		"http(s):// with a checksum.", e.URL, scheme, OCIMinMicroversion, e.ServerMax)
}

// IsOCI reports whether an image URL is oci://.
func IsOCI(imageURL string) bool {
	u, err := url.Parse(imageURL)
	return err == nil && strings.EqualFold(u.Scheme, "oci")
}

// SameOCIImage reports whether two oci:// references name the same image:
// the same repository, and the same digest when either is pinned to one
// (oci://reg/repo@sha256:..., a tag beside it says nothing more), else the
// same tag. Two references that are not both oci:// are not the same.
func SameOCIImage(a, b string) bool {
	if !IsOCI(a) || !IsOCI(b) {
		return false
	}
	repoA, tagA, digestA := ociIdentity(a)
	repoB, tagB, digestB := ociIdentity(b)
	if repoA != repoB {
		return false
	}
	if digestA != "" || digestB != "" {
		return digestA == digestB
	}
	return tagA == tagB
}

// ociIdentity splits an oci:// reference into its repository (registry
// host in lower case, then path), tag and digest; a colon before the last
// slash is the registry's port, not a tag.
func ociIdentity(ref string) (repo, tag, digest string) {
	rest := ref[len("oci://"):]
	rest, digest, _ = strings.Cut(rest, "@")
	if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") {
		rest, tag = rest[:i], rest[i+1:]
	}
	host, path, _ := strings.Cut(rest, "/")
	return strings.ToLower(host) + "/" + path, tag, strings.ToLower(digest)
}

// CheckImageSupported returns an *OCIUnsupportedError when img is oci://
// and Ironic's API maximum is older than OCIMinMicroversion; nil for other
// images, and when v is nil (nothing to ask).
func CheckImageSupported(ctx context.Context, v APIVersions, img *Image) error {
	if img == nil || !IsOCI(img.URL) || v == nil {
		return nil
	}
	max, err := v.ServerMaxMicroversion(ctx)
	if err != nil {
		return fmt.Errorf("reading Ironic's API version to check that it deploys oci:// images: %w", err)
	}
	if !FeatureOCI.In(max) {
		return &OCIUnsupportedError{URL: img.URL, ServerMax: max}
	}
	return nil
}

// microversionLess compares "1.NN" strings; an unreadable one counts as
// older.
func microversionLess(a, b string) bool {
	parse := func(s string) (int, int, bool) {
		x, y, ok := strings.Cut(s, ".")
		ma, err1 := strconv.Atoi(x)
		mi, err2 := strconv.Atoi(y)
		return ma, mi, ok && err1 == nil && err2 == nil
	}
	amaj, amin, aok := parse(a)
	bmaj, bmin, _ := parse(b)
	if !aok {
		return true
	}
	return amaj < bmaj || amaj == bmaj && amin < bmin
}
