package validators

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Image checksum types and formats (BMO API Image and its checksum type and format constants).
var (
	ChecksumTypes = []string{"auto", "md5", "sha256", "sha512"}
	ImageFormats  = []string{"raw", "qcow2", "vdi", "vmdk", "live-iso"}
)

// checksumHexLen is the length of a hex digest of each checksum type.
var checksumHexLen = map[string]int{"md5": 32, "sha256": 64, "sha512": 128}

// ImageSpec is an image block's values as plain strings; Unknown marks the
// attributes whose value is not known yet (their checks are skipped).
type ImageSpec struct {
	URL, Checksum, ChecksumType, Format string
	// PullSecret is pull_secret_wo; PullSecretVersion pull_secret_wo_version
	// ("" when null).
	PullSecret, PullSecretVersion string
	Unknown                       map[string]bool
}

// ImageProblem is one violation of the checksum rules, at an attribute of
// the image block.
type ImageProblem struct {
	Attribute string // url, checksum, checksum_type or format
	Summary   string
	Detail    string
}

// CheckImage applies BMO's image rules (API Image.GetChecksum) plus the checks a
// plan can do early:
//   - the URL is http(s)://, file:// or oci://;
//   - an oci:// image must not have a checksum;
//   - a live-iso needs none (a checksum is reported, as a warning, by the
//     caller through ImageWarnings);
//   - every other image requires one;
//   - a checksum is a URL of a checksum file or a hex digest whose length
//     matches its type (md5 32, sha256 64, sha512 128; auto: any of them).
func CheckImage(img ImageSpec) []ImageProblem {
	var out []ImageProblem
	add := func(attr, summary, detail string) {
		out = append(out, ImageProblem{Attribute: attr, Summary: summary, Detail: detail})
	}
	known := func(a string) bool { return !img.Unknown[a] }

	oci := false
	if known("url") {
		u, err := url.Parse(img.URL)
		switch {
		case img.URL == "":
			add("url", "Missing image URL", "image.url must not be empty.")
		case err != nil:
			add("url", "Invalid image URL", fmt.Sprintf("%q is not a URL: %v", img.URL, err))
		default:
			switch strings.ToLower(u.Scheme) {
			case "http", "https":
				if u.Host == "" {
					add("url", "Invalid image URL", fmt.Sprintf("%q has no host.", img.URL))
				}
			case "file":
				if u.Path == "" {
					add("url", "Invalid image URL", fmt.Sprintf("%q has no path.", img.URL))
				}
			case "oci":
				oci = true
			default:
				add("url", "Unsupported image URL", fmt.Sprintf(
					"%q: the image URL must start with http://, https://, file:// or oci://.", img.URL))
			}
		}
	}
	// An unknown URL may still turn out to be oci://: skip the rules that
	// depend on it.
	if !known("url") || !known("format") || !known("checksum") {
		if known("checksum") && known("checksum_type") && img.Checksum != "" {
			out = append(out, checkDigest(img)...)
		}
		return append(out, checkPullSecret(img, oci)...)
	}
	switch {
	case oci:
		if img.Checksum != "" {
			add("checksum", "Checksum not allowed for OCI images",
				"oci:// images must not have a checksum: the registry's digest verifies them (BMO rule). Remove image.checksum.")
		}
	case img.Format == "live-iso":
		// Needs none; ImageWarnings says it is ignored.
	case img.Checksum == "":
		add("checksum", "Missing image checksum", fmt.Sprintf(
			"image %q needs a checksum (a hex digest, or the URL of a checksum file): only oci:// images and live-iso images go without one (BMO rule).", img.URL))
	default:
		if known("checksum_type") {
			out = append(out, checkDigest(img)...)
		}
	}
	return append(out, checkPullSecret(img, oci)...)
}

// checkPullSecret: pull_secret_wo needs its version (and the other way
// round), an oci:// URL, and the shape PullSecretForIronic reads. The
// problems never quote the secret.
func checkPullSecret(img ImageSpec, oci bool) []ImageProblem {
	known := func(a string) bool { return !img.Unknown[a] }
	var out []ImageProblem
	hasSecret := img.PullSecret != "" || img.Unknown["pull_secret_wo"]
	hasVersion := img.PullSecretVersion != "" || img.Unknown["pull_secret_wo_version"]
	switch {
	case hasSecret && !hasVersion:
		out = append(out, ImageProblem{Attribute: "pull_secret_wo_version", Summary: "Missing pull_secret_wo_version",
			Detail: "pull_secret_wo needs pull_secret_wo_version, which tells the provider when to send it again (changing it replaces the deployment)."})
	case hasVersion && !hasSecret:
		out = append(out, ImageProblem{Attribute: "pull_secret_wo", Summary: "Missing pull_secret_wo",
			Detail: "pull_secret_wo_version is set without pull_secret_wo (a write-only attribute needs Terraform 1.11 or later)."})
	}
	if img.PullSecret == "" || !known("pull_secret_wo") || !known("url") {
		return out
	}
	if !oci {
		return append(out, ImageProblem{Attribute: "pull_secret_wo", Summary: "Pull secret without an OCI image",
			Detail: fmt.Sprintf("a pull secret is only used to pull oci:// images from a registry; the image URL is %q. Remove pull_secret_wo or use an oci:// URL.", img.URL)})
	}
	if _, err := PullSecretForIronic(OCIHost(img.URL), img.PullSecret); err != nil {
		out = append(out, ImageProblem{Attribute: "pull_secret_wo", Summary: "Invalid image pull secret", Detail: err.Error() + "."})
	}
	return out
}

// ImageWarnings returns what is accepted but has no effect: a checksum on a
// live ISO, which Ironic's ramdisk deploy does not verify.
func ImageWarnings(img ImageSpec) []ImageProblem {
	if img.Unknown["format"] || img.Unknown["checksum"] || img.Format != "live-iso" || img.Checksum == "" {
		return nil
	}
	return []ImageProblem{{Attribute: "checksum", Summary: "Checksum ignored for a live ISO",
		Detail: "A live-iso image is booted with Ironic's ramdisk deploy, which does not verify a checksum: image.checksum is not used."}}
}

// checkDigest checks a checksum that is not a URL against its type.
func checkDigest(img ImageSpec) []ImageProblem {
	sum := img.Checksum
	if u, err := url.Parse(sum); err == nil && u.Scheme != "" {
		switch strings.ToLower(u.Scheme) {
		case "http", "https", "file":
			return nil // a checksum file Ironic downloads
		}
		return []ImageProblem{{Attribute: "checksum", Summary: "Invalid image checksum",
			Detail: fmt.Sprintf("%q: a checksum URL must be http://, https:// or file://.", sum)}}
	}
	if !isHex(sum) {
		return []ImageProblem{{Attribute: "checksum", Summary: "Invalid image checksum",
			Detail: fmt.Sprintf("%q is neither a hex digest nor the URL of a checksum file.", sum)}}
	}
	typ := strings.ToLower(img.ChecksumType)
	if typ == "" || typ == "auto" {
		for _, n := range checksumHexLen {
			if len(sum) == n {
				return nil
			}
		}
		return []ImageProblem{{Attribute: "checksum", Summary: "Invalid image checksum",
			Detail: fmt.Sprintf("the checksum has %d hex digits; an md5, sha256 or sha512 digest has 32, 64 or 128.", len(sum))}}
	}
	want, ok := checksumHexLen[typ]
	if !ok {
		return nil // checksum_type's own validator reports it
	}
	if len(sum) != want {
		return []ImageProblem{{Attribute: "checksum", Summary: "Checksum does not match its type",
			Detail: fmt.Sprintf("checksum_type is %s, whose digest has %d hex digits; this checksum has %d.", typ, want, len(sum))}}
	}
	return nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// imageRules is the validator.Object of an image block.
type imageRules struct{}

// Image returns the validator of an image block (attributes url, checksum,
// checksum_type, format): CheckImage's rules at plan time, each reported
// at the attribute's path, plus ImageWarnings.
func Image() validator.Object { return imageRules{} }

func (imageRules) Description(context.Context) string {
	return "image URL and checksum rules: http(s)/file/oci URL; oci:// has no checksum; live-iso needs none; others need one whose length matches its type"
}
func (v imageRules) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (imageRules) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	img := ImageSpecFromAttributes(req.ConfigValue.Attributes())
	report := func(ps []ImageProblem, warn bool) {
		for _, p := range ps {
			at := req.Path.AtName(p.Attribute)
			// Terraform cannot point into an object's source: name the
			// attribute in the message.
			detail := at.String() + ": " + p.Detail
			if warn {
				resp.Diagnostics.AddAttributeWarning(at, p.Summary, detail)
			} else {
				resp.Diagnostics.AddAttributeError(at, p.Summary, detail)
			}
		}
	}
	report(CheckImage(img), false)
	report(ImageWarnings(img), true)
}

// ImageSpecFromAttributes reads an image object's string attributes; null
// counts as empty, unknown is recorded in Unknown.
func ImageSpecFromAttributes(attrs map[string]attr.Value) ImageSpec {
	img := ImageSpec{Unknown: map[string]bool{}}
	for name, dst := range map[string]*string{
		"url": &img.URL, "checksum": &img.Checksum, "checksum_type": &img.ChecksumType, "format": &img.Format,
		"pull_secret_wo": &img.PullSecret, "pull_secret_wo_version": &img.PullSecretVersion,
	} {
		v, ok := attrs[name]
		if !ok {
			continue
		}
		s, ok := v.(types.String)
		if !ok {
			continue
		}
		if s.IsUnknown() {
			img.Unknown[name] = true
			continue
		}
		*dst = s.ValueString()
	}
	return img
}

// ParseJSONObject parses s as a JSON object (network_data.json); anything
// else is an error that says what was found.
func ParseJSONObject(s string) (map[string]any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("not valid JSON: unexpected data after the top-level value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a JSON object ({...}) is required, got %s", jsonKind(v))
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// JSONObject accepts a string holding a JSON object, such as OpenStack's
// network_data.json.
func JSONObject() validator.String {
	return New("a JSON object, such as network_data.json", func(s string) error {
		_, err := ParseJSONObject(s)
		return err
	})
}
