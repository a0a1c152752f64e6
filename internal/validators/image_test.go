package validators

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	md5Sum    = strings.Repeat("a", 32)
	sha256Sum = strings.Repeat("b", 64)
	sha512Sum = strings.Repeat("C", 128)
)

func TestCheckImage(t *testing.T) {
	cases := []struct {
		name    string
		img     ImageSpec
		attr    string // attribute of the first problem; "" = none
		wantErr string
	}{
		{"http with auto md5", ImageSpec{URL: "http://h/i.qcow2", Checksum: md5Sum, ChecksumType: "auto"}, "", ""},
		{"https with sha256", ImageSpec{URL: "https://h/i.raw", Checksum: sha256Sum, ChecksumType: "sha256", Format: "raw"}, "", ""},
		{"sha512 upper case hex", ImageSpec{URL: "https://h/i", Checksum: sha512Sum, ChecksumType: "sha512"}, "", ""},
		{"empty type is auto", ImageSpec{URL: "https://h/i", Checksum: sha512Sum}, "", ""},
		{"file URL", ImageSpec{URL: "file:///var/lib/images/i.qcow2", Checksum: md5Sum}, "", ""},
		{"checksum file URL", ImageSpec{URL: "http://h/i.qcow2", Checksum: "http://h/i.qcow2.sha256sum", ChecksumType: "sha256"}, "", ""},
		{"oci without checksum", ImageSpec{URL: "oci://quay.io/org/image:tag"}, "", ""},
		{"live-iso without checksum", ImageSpec{URL: "http://h/live.iso", Format: "live-iso"}, "", ""},
		{"live-iso with checksum is accepted", ImageSpec{URL: "http://h/live.iso", Format: "live-iso", Checksum: md5Sum}, "", ""},

		{"missing checksum", ImageSpec{URL: "http://h/i.qcow2", Format: "qcow2"}, "checksum", "needs a checksum"},
		{"oci with checksum", ImageSpec{URL: "oci://quay.io/org/image:tag", Checksum: sha256Sum}, "checksum", "must not have a checksum"},
		{"md5 of the wrong length", ImageSpec{URL: "http://h/i", Checksum: sha256Sum, ChecksumType: "md5"}, "checksum", "md5, whose digest has 32"},
		{"sha256 of the wrong length", ImageSpec{URL: "http://h/i", Checksum: md5Sum, ChecksumType: "sha256"}, "checksum", "64 hex digits; this checksum has 32"},
		{"sha512 of the wrong length", ImageSpec{URL: "http://h/i", Checksum: sha256Sum, ChecksumType: "sha512"}, "checksum", "128"},
		{"auto of no known length", ImageSpec{URL: "http://h/i", Checksum: "abcd", ChecksumType: "auto"}, "checksum", "32, 64 or 128"},
		{"not hex", ImageSpec{URL: "http://h/i", Checksum: strings.Repeat("z", 32)}, "checksum", "neither a hex digest"},
		{"checksum URL of another scheme", ImageSpec{URL: "http://h/i", Checksum: "ftp://h/sum"}, "checksum", "http://, https:// or file://"},
		{"ftp image", ImageSpec{URL: "ftp://h/i.qcow2", Checksum: md5Sum}, "url", "must start with http://, https://, file:// or oci://"},
		{"no scheme", ImageSpec{URL: "h/i.qcow2", Checksum: md5Sum}, "url", "must start with"},
		{"http without host", ImageSpec{URL: "http:///i.qcow2", Checksum: md5Sum}, "url", "has no host"},
		{"empty URL", ImageSpec{URL: "", Checksum: md5Sum}, "url", "must not be empty"},

		// Unknown values skip the rules that need them.
		{"unknown URL", ImageSpec{Checksum: "", Unknown: map[string]bool{"url": true}}, "", ""},
		{"unknown checksum", ImageSpec{URL: "http://h/i", Unknown: map[string]bool{"checksum": true}}, "", ""},
		{"unknown URL still checks the digest", ImageSpec{Checksum: md5Sum, ChecksumType: "sha256", Unknown: map[string]bool{"url": true}}, "checksum", "64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkImageProblem(t, c.img, c.attr, c.wantErr) })
	}
}

// checkImageProblem runs CheckImage on img: with attr "" it must find no
// problem, else its first problem must be at attr with a detail holding
// want. It returns the problems.
func checkImageProblem(t *testing.T, img ImageSpec, attr, want string) []ImageProblem {
	t.Helper()
	ps := CheckImage(img)
	if attr == "" {
		if len(ps) != 0 {
			t.Fatalf("unexpected problems %+v", ps)
		}
		return ps
	}
	if len(ps) == 0 {
		t.Fatalf("no problem, want %q at %s", want, attr)
	}
	if ps[0].Attribute != attr || !strings.Contains(ps[0].Detail, want) {
		t.Fatalf("got %+v, want %q at %s", ps[0], want, attr)
	}
	return ps
}

func TestImageWarnings(t *testing.T) {
	if w := ImageWarnings(ImageSpec{URL: "http://h/l.iso", Format: "live-iso", Checksum: md5Sum}); len(w) != 1 || w[0].Attribute != "checksum" {
		t.Errorf("live-iso with checksum: %+v", w)
	}
	if w := ImageWarnings(ImageSpec{URL: "http://h/l.iso", Format: "live-iso"}); len(w) != 0 {
		t.Errorf("live-iso without checksum: %+v", w)
	}
	if w := ImageWarnings(ImageSpec{URL: "http://h/i", Checksum: md5Sum}); len(w) != 0 {
		t.Errorf("qcow2: %+v", w)
	}
}

var imageAttrTypes = map[string]attr.Type{
	"url": types.StringType, "checksum": types.StringType, "checksum_type": types.StringType, "format": types.StringType,
}

func imageObject(t *testing.T, url, checksum, typ, format attr.Value) types.Object {
	t.Helper()
	o, d := types.ObjectValue(imageAttrTypes, map[string]attr.Value{
		"url": url, "checksum": checksum, "checksum_type": typ, "format": format,
	})
	if d.HasError() {
		t.Fatal(d)
	}
	return o
}

func TestImageValidatorPaths(t *testing.T) {
	s := types.StringValue
	null := types.StringNull()
	cases := []struct {
		name     string
		obj      types.Object
		errPath  string
		warnPath string
	}{
		{"valid", imageObject(t, s("http://h/i"), s(md5Sum), s("auto"), null), "", ""},
		{"missing checksum", imageObject(t, s("http://h/i"), null, s("auto"), s("qcow2")), "image.checksum", ""},
		{"bad scheme", imageObject(t, s("gopher://h/i"), s(md5Sum), s("md5"), null), "image.url", ""},
		{"length mismatch", imageObject(t, s("http://h/i"), s(md5Sum), s("sha512"), null), "image.checksum", ""},
		{"oci with checksum", imageObject(t, s("oci://r/i:t"), s(sha256Sum), s("auto"), null), "image.checksum", ""},
		{"live-iso checksum warns", imageObject(t, s("http://h/l.iso"), s(md5Sum), s("auto"), s("live-iso")), "", "image.checksum"},
		{"unknown url", imageObject(t, types.StringUnknown(), null, s("auto"), null), "", ""},
		{"null object", types.ObjectNull(imageAttrTypes), "", ""},
		{"unknown object", types.ObjectUnknown(imageAttrTypes), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := &validator.ObjectResponse{}
			Image().ValidateObject(context.Background(), validator.ObjectRequest{Path: path.Root("image"), ConfigValue: c.obj}, resp)
			errs, warns := resp.Diagnostics.Errors(), resp.Diagnostics.Warnings()
			if c.errPath == "" && len(errs) > 0 {
				t.Fatalf("unexpected errors %v", errs)
			}
			if c.errPath != "" {
				if len(errs) == 0 {
					t.Fatalf("no error, want one at %s", c.errPath)
				}
				if p := errs[0].(interface{ Path() path.Path }).Path().String(); p != c.errPath {
					t.Fatalf("error at %s, want %s", p, c.errPath)
				}
			}
			if c.warnPath != "" {
				if len(warns) == 0 {
					t.Fatalf("no warning, want one at %s", c.warnPath)
				}
				if p := warns[0].(interface{ Path() path.Path }).Path().String(); p != c.warnPath {
					t.Fatalf("warning at %s, want %s", p, c.warnPath)
				}
			}
		})
	}
}

func TestParseJSONObject(t *testing.T) {
	ok := `{"links":[{"id":"eth0","type":"phy","ethernet_mac_address":"52:54:00:12:34:56","mtu":9000}],"networks":[],"services":[]}`
	obj, err := ParseJSONObject(ok)
	if err != nil {
		t.Fatal(err)
	}
	if _, has := obj["links"]; !has {
		t.Errorf("links missing: %v", obj)
	}
	bad := []struct{ in, want string }{
		{`[1,2]`, "got an array"},
		{`"links"`, "got a string"},
		{`42`, "got a number"},
		{`null`, "got null"},
		{`true`, "got a boolean"},
		{`{"links": [}`, "not valid JSON"},
		{`{} {}`, "unexpected data after"},
		{``, "not valid JSON"},
	}
	for _, b := range bad {
		if _, err := ParseJSONObject(b.in); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: err %v, want %q", b.in, err, b.want)
		}
	}
	resp := &validator.StringResponse{}
	JSONObject().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("network_data"), ConfigValue: types.StringValue("[]")}, resp)
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Summary(), "network_data") {
		t.Errorf("JSONObject on an array: %v", resp.Diagnostics)
	}
}
