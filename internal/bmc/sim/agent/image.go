package agent

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/kdomanski/iso9660"
)

// writeImage downloads the image, verifies its checksum and records the
// config drive, as IPA's write_image does (minus the disk).
func (a *Agent) writeImage(b *boot, info map[string]any, configdrive any) error {
	if _, err := a.download(b, info); err != nil {
		return err
	}
	cd := decodeConfigDrive(a.http, configdrive)
	if cd == nil {
		cd = decodeConfigDrive(a.http, info["configdrive"])
	}
	var bondErr error
	if cd != nil && cd.Error == "" && len(cd.NetworkData) > 0 {
		cd.Bonds, bondErr = checkBonds(cd.NetworkData, a.m.MACs())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rec.ConfigDrive = cd
	if cd != nil && cd.Error != "" {
		return &CommandError{Type: "ConfigDriveWriteError", Code: 500, Message: "Error writing config drive",
			Details: "Writing configdrive to device /dev/sda failed: " + cd.Error}
	}
	if bondErr != nil {
		a.rec.event("config drive's network_data has a bond this machine cannot build: %v", bondErr)
		return &CommandError{Type: "ConfigDriveWriteError", Code: 500, Message: "Error writing config drive",
			Details: "The config drive's network_data.json would leave the instance without its bond: " + bondErr.Error()}
	}
	b.wroteOS = true
	a.rec.event("image written and config drive recorded")
	return nil
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// download fetches image_info.urls[0] and checks it against os_hash_algo
// and os_hash_value, else against checksum (a value or a URL of a checksum
// file; the algorithm follows from its length).
func (a *Agent) download(b *boot, info map[string]any) (*ImageRecord, error) {
	id := str(info, "id")
	urls, _ := info["urls"].([]any)
	loc := ""
	if len(urls) > 0 {
		loc, _ = urls[0].(string)
	}
	rec := &ImageRecord{URL: loc, DiskFormat: str(info, "disk_format")}
	a.mu.Lock()
	a.rec.Image = rec
	faults := a.faults
	a.mu.Unlock()

	fail := func(msg string) (*ImageRecord, error) {
		a.mu.Lock()
		rec.Verdict, rec.Error = "download failed", msg
		a.mu.Unlock()
		return rec, &CommandError{Type: "ImageDownloadError", Code: 500, Message: "Error downloading image",
			Details: fmt.Sprintf("Download of image %s failed: %s", id, msg)}
	}
	algo, expected := strings.ToLower(str(info, "os_hash_algo")), strings.ToLower(str(info, "os_hash_value"))
	if algo == "" || expected == "" {
		expected = strings.TrimSpace(str(info, "checksum"))
		if strings.HasPrefix(expected, "http://") || strings.HasPrefix(expected, "https://") {
			sum, err := a.checksumFromFile(b, expected, loc)
			if err != nil {
				return fail(err.Error())
			}
			expected = sum
		}
		expected = strings.ToLower(expected)
		algo = algoByLength(expected)
	}
	if loc == "" {
		return fail("no image URL")
	}
	newHash := hashes[algo]
	if newHash == nil {
		return rec, &CommandError{Type: "ImageChecksumError", Code: 500, Message: "Error verifying image checksum",
			Details: fmt.Sprintf("Unable to verify image %s with available checksums. Please make sure the specified 'os_hash_algo' (currently %s) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field", id, algo)}
	}
	a.mu.Lock()
	rec.Algorithm, rec.Expected = algo, expected
	a.mu.Unlock()

	if faults.DownloadDelay > 0 && !sleep(b.ctx, faults.DownloadDelay) {
		return fail("the ramdisk shut down")
	}
	if faults.DownloadFail {
		return fail(fmt.Sprintf("Received status code 503 from %s, expected 200. Response body: injected fault", loc))
	}
	req, err := http.NewRequestWithContext(b.ctx, http.MethodGet, loc, nil)
	if err != nil {
		return fail(err.Error())
	}
	if err := supplyAuthorization(req, info); err != nil {
		return fail(err.Error())
	}
	if h := req.Header.Get("Authorization"); h != "" {
		scheme, _, _ := strings.Cut(h, " ")
		a.mu.Lock()
		rec.AuthScheme = scheme
		a.mu.Unlock()
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return fail(err.Error())
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// IPA's wording, with the answer's body (a registry's 401 says why).
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fail(fmt.Sprintf("Received status code %d from %s, expected 200. Response body: %s",
			resp.StatusCode, loc, strings.TrimSpace(string(body))))
	}
	h := newHash()
	n, err := io.Copy(h, resp.Body)
	if err != nil {
		return fail(err.Error())
	}
	actual := hex.EncodeToString(h.Sum(nil))
	a.mu.Lock()
	defer a.mu.Unlock()
	rec.Bytes, rec.Actual = n, actual
	if actual != expected {
		rec.Verdict = "mismatch"
		return rec, &CommandError{Type: "ImageChecksumError", Code: 500, Message: "Error verifying image checksum",
			Details: fmt.Sprintf("Image failed to verify against checksum. location: %s; image ID: %s; image checksum: %s; verification checksum: %s", loc, id, expected, actual)}
	}
	rec.Verdict = "match"
	a.rec.event("downloaded %s (%d bytes), %s checksum matches", loc, n, algo)
	return rec, nil
}

// supplyAuthorization sets the Authorization header Ironic 2025.1 hands
// over for an oci:// image: image_info.image_request_authorization is
// base64 of the header value ("Bearer <token>") the conductor obtained from
// the registry with the node's pull secret (IPA standby.py
// _load_supplied_authorization). The value is never logged or recorded.
func supplyAuthorization(req *http.Request, info map[string]any) error {
	enc := str(info, "image_request_authorization")
	if enc == "" {
		return nil
	}
	v, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return fmt.Errorf("image_request_authorization is not base64")
	}
	req.Header.Set("Authorization", string(v))
	return nil
}

var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New,
}

func algoByLength(sum string) string {
	switch len(sum) {
	case 32:
		return "md5"
	case 40:
		return "sha1"
	case 64:
		return "sha256"
	case 128:
		return "sha512"
	}
	return "unknown"
}

// checksumFromFile reads a checksum file (a bare sum, or "sum  name" lines)
// and picks the line of the image's file name.
func (a *Agent) checksumFromFile(b *boot, u, image string) (string, error) {
	req, err := http.NewRequestWithContext(b.ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		//nolint:staticcheck // ST1005: the agent's own wording, which Ironic shows in last_error
		return "", fmt.Errorf("Received status code %d from %s, expected 200.", resp.StatusCode, u)
	}
	var lines [][]string
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 1<<20))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			lines = append(lines, f)
		}
	}
	if len(lines) == 1 {
		return lines[0][0], nil
	}
	for _, f := range lines {
		if len(f) > 1 && strings.TrimPrefix(f[len(f)-1], "*") == path.Base(image) {
			return f[0], nil
		}
	}
	//nolint:staticcheck // ST1005: the agent's own wording, which Ironic shows in last_error
	return "", fmt.Errorf("Checksum file %s does not contain name %s", u, path.Base(image))
}

// decodeConfigDrive reads Ironic's config drive: base64 of a gzipped ISO
// 9660 image labelled config-2 (or a URL of one), holding
// openstack/latest/{meta_data.json,user_data,network_data.json}. nil when
// there is none.
func decodeConfigDrive(hc *http.Client, v any) *ConfigDriveRecord {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	out := &ConfigDriveRecord{Files: []string{}}
	raw := []byte(s)
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		resp, err := hc.Get(s)
		if err != nil {
			out.Error = err.Error()
			return out
		}
		defer resp.Body.Close()
		if raw, err = io.ReadAll(resp.Body); err != nil {
			out.Error = err.Error()
			return out
		}
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		out.Error = "config drive is not base64: " + err.Error()
		return out
	}
	if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
		if unzipped, err := io.ReadAll(zr); err == nil {
			data = unzipped
		}
	}
	img, err := iso9660.OpenImage(bytes.NewReader(data))
	if err != nil {
		out.Error = "config drive is not an ISO 9660 image: " + err.Error()
		return out
	}
	out.Label, _ = img.Label()
	root, err := img.RootDir()
	if err != nil {
		out.Error = err.Error()
		return out
	}
	files := map[string][]byte{}
	if err := walk(root, "", files); err != nil {
		out.Error = err.Error()
		return out
	}
	for name := range files {
		out.Files = append(out.Files, name)
	}
	sort.Strings(out.Files)
	if md := files["openstack/latest/meta_data.json"]; md != nil {
		out.MetaData = compactJSON(md)
	}
	if ud, ok := files["openstack/latest/user_data"]; ok {
		out.UserData = string(ud)
	}
	if nd := files["openstack/latest/network_data.json"]; nd != nil {
		out.NetworkData = compactJSON(nd)
	}
	return out
}

func walk(dir *iso9660.File, prefix string, out map[string][]byte) error {
	children, err := dir.GetChildren()
	if err != nil {
		return err
	}
	for _, c := range children {
		name := strings.ToLower(prefix + c.Name())
		if c.IsDir() {
			if err := walk(c, name+"/", out); err != nil {
				return err
			}
			continue
		}
		b, err := io.ReadAll(c.Reader())
		if err != nil {
			return err
		}
		out[name] = b
	}
	return nil
}

func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		s, _ := json.Marshal(string(b))
		return s
	}
	return buf.Bytes()
}
