package ociregistry

// conductor.go plays the part Ironic 2025.1's conductor takes in an OCI
// deploy (ironic/common/oci_registry.py OciClient.authenticate,
// image_service.py OciImageService.identify_specific_image,
// drivers/modules/agent.py): it authenticates with the node's
// instance_info.image_pull_secret (HTTP Basic with an empty user and the
// secret as password, at the realm of the registry's bearer challenge),
// resolves the tag to the artifact index, picks the manifest whose
// `disktype` annotation and platform suit the node, and builds the
// image_info the agent gets: the blob URL, the blob's sha256 as checksum
// and image_request_authorization, base64 of the "Bearer <token>"
// Authorization header. The simulated agent's hermetic tests feed that to
// it; the acceptance test (testOCIDeploys) has the real Ironic 2025.1 do it.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// ImageInfo is the part of the agent's image_info an OCI deploy sets.
type ImageInfo struct {
	URL           string // the blob URL
	Checksum      string // the blob digest's hex (sha256)
	DiskFormat    string
	Authorization string // base64 of the Authorization header value
}

// Map is image_info as Ironic sends it to the agent.
func (i ImageInfo) Map(id string) map[string]any {
	m := map[string]any{"id": id, "urls": []any{i.URL}, "checksum": i.Checksum, "disk_format": i.DiskFormat}
	if i.Authorization != "" {
		m["image_request_authorization"] = i.Authorization
	}
	return m
}

var challengeParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// Resolve finds the disk image of ociURL (oci://host/repo:tag) for a node
// of architecture arch, authenticating with pullSecret when the registry
// asks for it. scheme is the registry's ("https", or "http" as Ironic's
// permit_fallback_to_http_transport allows).
func Resolve(ctx context.Context, hc *http.Client, scheme, ociURL, pullSecret, arch string) (ImageInfo, error) {
	u, err := url.Parse(ociURL)
	if err != nil || u.Scheme != "oci" {
		return ImageInfo{}, fmt.Errorf("%q is not an oci:// URL", ociURL)
	}
	repo, tag, ok := strings.Cut(strings.TrimPrefix(u.Path, "/"), ":")
	if !ok {
		tag = "latest"
	}
	base := scheme + "://" + u.Host + "/v2/"
	c := &client{hc: hc, ctx: ctx}
	if err := c.authenticate(base, repo, pullSecret); err != nil {
		return ImageInfo{}, err
	}
	var index struct {
		Manifests []struct {
			Digest      string            `json:"digest"`
			Platform    map[string]string `json:"platform"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := c.getJSON(base+repo+"/manifests/"+tag, MediaIndex, &index); err != nil {
		return ImageInfo{}, err
	}
	for _, m := range index.Manifests {
		disk := m.Annotations["disktype"]
		if disk != "qcow2" && disk != "raw" || !archMatches(m.Platform["architecture"], arch) {
			continue
		}
		var manifest struct {
			Layers []struct {
				Digest string `json:"digest"`
			} `json:"layers"`
		}
		if err := c.getJSON(base+repo+"/manifests/"+m.Digest, MediaManifest, &manifest); err != nil {
			return ImageInfo{}, err
		}
		if len(manifest.Layers) != 1 {
			continue // a container, not a disk image artifact
		}
		d := manifest.Layers[0].Digest
		return ImageInfo{URL: base + repo + "/blobs/" + d, Checksum: strings.TrimPrefix(d, "sha256:"),
			DiskFormat: disk, Authorization: c.authorization()}, nil
	}
	return ImageInfo{}, fmt.Errorf("no disk image for %s in %s", arch, ociURL)
}

// archMatches treats x86_64/amd64 and aarch64/arm64 as the same, as Ironic.
func archMatches(have, want string) bool {
	norm := map[string]string{"x86_64": "amd64", "aarch64": "arm64"}
	n := func(s string) string {
		if v, ok := norm[s]; ok {
			return v
		}
		return s
	}
	return have == "" || want == "" || n(have) == n(want)
}

type client struct {
	hc     *http.Client
	ctx    context.Context
	bearer string
}

func (c *client) authorization() string {
	if c.bearer == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte("Bearer " + c.bearer))
}

// authenticate: GET /v2/; on a bearer challenge, get a token from its realm.
func (c *client) authenticate(base, repo, secret string) error {
	resp, err := c.do(base, "")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(ch, "Bearer ") {
		return fmt.Errorf("GET %s: %s (challenge %q)", base, resp.Status, ch)
	}
	params := map[string]string{}
	for _, m := range challengeParam.FindAllStringSubmatch(ch, -1) {
		params[m[1]] = m[2]
	}
	q := url.Values{"service": {params["service"]}, "scope": {"repository:" + repo + ":pull"}}
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, params["realm"]+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	if secret != "" {
		req.SetBasicAuth("", secret)
	}
	tr, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer tr.Body.Close()
	if tr.StatusCode != http.StatusOK {
		return fmt.Errorf("token request to %s: %s", params["realm"], tr.Status)
	}
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(tr.Body).Decode(&tok); err != nil || tok.Token == "" {
		return fmt.Errorf("token request to %s: no token in the answer", params["realm"])
	}
	c.bearer = tok.Token
	return nil
}

func (c *client) do(u, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	return c.hc.Do(req)
}

func (c *client) getJSON(u, accept string, out any) error {
	resp, err := c.do(u, accept)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, out)
}
