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
