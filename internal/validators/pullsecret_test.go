package validators

import (
	"encoding/base64"
	"strings"
	"testing"
)

const secretPassword = "hunter2-do-not-leak"

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestPullSecretForIronic(t *testing.T) {
	want := b64("robot:" + secretPassword)
	cases := []struct {
		name, host, secret string
		want               string // "" with wantErr
		wantErr            string
	}{
		{"user:token", "quay.io", "robot:" + secretPassword, want, ""},
		{"docker config auth", "quay.io", `{"auths":{"quay.io":{"auth":"` + want + `"}}}`, want, ""},
		{"docker config username and password", "quay.io", `{"auths":{"quay.io":{"username":"robot","password":"` + secretPassword + `"}}}`, want, ""},
		{"key with scheme and path", "reg.example:5000", `{"auths":{"https://reg.example:5000/v2/":{"auth":"` + want + `"}}}`, want, ""},
		{"the entry of the image's registry", "b.example", `{"auths":{"a.example":{"auth":"` + b64("a:b") + `"},"b.example":{"auth":"` + want + `"}}}`, want, ""},
		{"one entry, URL not known yet", "", `{"auths":{"quay.io":{"auth":"` + want + `"}}}`, want, ""},

		{"empty", "quay.io", "  ", "", "is empty"},
		{"bare token", "quay.io", secretPassword, "", `nor "user:token"`},
		{"user without token", "quay.io", "robot:", "", `nor "user:token"`},
		{"broken JSON", "quay.io", `{"auths": {"quay.io": ` + secretPassword, "", "not valid JSON (syntax error at byte"},
		{"auths of the wrong type", "quay.io", `{"auths": ["` + secretPassword + `"]}`, "", `"auths" must map`},
		{"no auths", "quay.io", `{"credHelpers": {}}`, "", `no "auths" entries`},
		{"other registry only", "quay.io", `{"auths":{"ghcr.io":{"auth":"` + want + `"}}}`, "", `no "auths" entry for the image's registry "quay.io" (it has ghcr.io)`},
		{"auth not base64", "quay.io", `{"auths":{"quay.io":{"auth":"` + secretPassword + `"}}}`, "", `is not base64 of "user:password"`},
		{"entry without credentials", "quay.io", `{"auths":{"quay.io":{"email":"a@b"}}}`, "", `neither "auth" nor "username" and "password"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PullSecretForIronic(c.host, c.secret)
			if c.wantErr == "" {
				if err != nil || got != c.want {
					t.Fatalf("got %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
			if strings.Contains(err.Error(), secretPassword) || strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("the error quotes the secret: %v", err)
			}
		})
	}
}

func TestCheckImagePullSecret(t *testing.T) {
	ok := "robot:" + secretPassword
	cases := []struct {
		name    string
		img     ImageSpec
		attr    string
		wantErr string
	}{
		{"oci with secret and version", ImageSpec{URL: "oci://quay.io/org/img:1", PullSecret: ok, PullSecretVersion: "1"}, "", ""},
		{"unknown secret", ImageSpec{URL: "oci://quay.io/org/img:1", PullSecretVersion: "1", Unknown: map[string]bool{"pull_secret_wo": true}}, "", ""},
		{"unknown URL", ImageSpec{PullSecret: ok, PullSecretVersion: "1", Unknown: map[string]bool{"url": true}}, "", ""},
		{"secret without version", ImageSpec{URL: "oci://quay.io/org/img:1", PullSecret: ok}, "pull_secret_wo_version", "needs pull_secret_wo_version"},
		{"version without secret", ImageSpec{URL: "oci://quay.io/org/img:1", PullSecretVersion: "1"}, "pull_secret_wo", "without pull_secret_wo"},
		{"http image", ImageSpec{URL: "https://h/i.qcow2", Checksum: md5Sum, PullSecret: ok, PullSecretVersion: "1"}, "pull_secret_wo", `only used to pull oci:// images from a registry; the image URL is "https://h/i.qcow2"`},
		{"bad secret", ImageSpec{URL: "oci://quay.io/org/img:1", PullSecret: secretPassword, PullSecretVersion: "1"}, "pull_secret_wo", `nor "user:token"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := checkImageProblem(t, c.img, c.attr, c.wantErr)
			if c.attr != "" && len(ps) != 1 {
				t.Fatalf("got %+v, want only %q at %s", ps, c.wantErr, c.attr)
			}
			for _, p := range ps {
				if strings.Contains(p.Detail, secretPassword) {
					t.Fatalf("the problem quotes the secret: %s", p.Detail)
				}
			}
		})
	}
}
