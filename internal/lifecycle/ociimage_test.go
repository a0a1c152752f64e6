package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

type apiMax struct {
	max   string
	err   error
	asked int
}

func (a *apiMax) ServerMaxMicroversion(context.Context) (string, error) {
	a.asked++
	return a.max, a.err
}

func TestCheckImageSupported(t *testing.T) {
	oci := &lifecycle.Image{URL: "oci://quay.io/org/os:1"}
	cases := []struct {
		name    string
		img     *lifecycle.Image
		v       *apiMax
		wantErr string // "" none
		asks    int
	}{
		{"oci on 2025.1", oci, &apiMax{max: "1.96"}, "", 1},
		{"oci on a newer Ironic", oci, &apiMax{max: "1.102"}, "", 1},
		{"oci on 21.4", oci, &apiMax{max: "1.82"}, `image.url "oci://quay.io/org/os:1" uses the oci:// scheme, which needs Ironic 2025.1 (29.0, API microversion 1.96) or later`, 1},
		{"oci on 28.0", &lifecycle.Image{URL: "OCI://quay.io/org/os:1"}, &apiMax{max: "1.95"}, "maximum API microversion is 1.95", 1},
		{"unreadable version", oci, &apiMax{max: "banana"}, "maximum API microversion is banana", 1},
		{"version not readable", oci, &apiMax{err: errors.New("connection refused")}, "reading Ironic's API version to check that it deploys oci:// images: connection refused", 1},
		{"http image never asks", &lifecycle.Image{URL: "https://h/i.qcow2"}, &apiMax{max: "1.82"}, "", 0},
		{"no image", nil, &apiMax{max: "1.82"}, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := lifecycle.CheckImageSupported(context.Background(), c.v, c.img)
			if c.v.asked != c.asks {
				t.Errorf("asked Ironic %d times, want %d", c.v.asked, c.asks)
			}
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
	if err := lifecycle.CheckImageSupported(context.Background(), nil, oci); err != nil {
		t.Errorf("nothing to ask: %v", err)
	}
}

// TestSameOCIImage: oci:// image identity is the repository with its tag,
// or its digest when either side is pinned to one.
func TestSameOCIImage(t *testing.T) {
	const d1 = "sha256:8b1a9953c4611296a827abf8c47804d7e6c49c6b3e4e6b8f1f1f4b5d4c3b2a10"
	const d2 = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"oci://reg.example/demo/disk:1", "oci://reg.example/demo/disk:1", true},
		{"oci://reg.example/demo/disk:1", "oci://reg.example/demo/disk:2", false},
		{"oci://reg.example/demo/disk", "oci://reg.example/demo/disk:latest", false},
		{"oci://reg.example:5000/demo/disk:1", "oci://reg.example:5000/demo/disk:1", true},
		{"oci://reg.example/demo/disk:1", "oci://reg.example/demo/other:1", false},
		{"oci://REG.example/demo/disk:1", "oci://reg.example/demo/disk:1", true},
		{"oci://reg.example/demo/disk@" + d1, "oci://reg.example/demo/disk@" + d1, true},
		{"oci://reg.example/demo/disk:1@" + d1, "oci://reg.example/demo/disk@" + d1, true},
		{"oci://reg.example/demo/disk@" + d1, "oci://reg.example/demo/disk@" + d2, false},
		{"oci://reg.example/demo/disk:1@" + d1, "oci://reg.example/demo/disk:1", false},
		{"http://reg.example/demo/disk:1", "oci://reg.example/demo/disk:1", false},
	} {
		if got := lifecycle.SameOCIImage(c.a, c.b); got != c.same {
			t.Errorf("SameOCIImage(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
